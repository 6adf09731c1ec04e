package browser

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindPrefersTheBinaryOverAWrapper: a name with a slash is taken as it is when it exists,
// before the names looked up on the PATH, so that Debian's headless shell binary comes before
// its wrapper script (whose PID the pool would otherwise hold and kill).
func TestFindPrefersTheBinaryOverAWrapper(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "lib", "shell")
	wrapper := filepath.Join(dir, "bin", "shell-wrapper")
	for _, p := range []string{bin, wrapper} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", filepath.Dir(wrapper))
	old := Executables
	t.Cleanup(func() { Executables = old })
	Executables = []string{bin, "shell-wrapper"}
	if got := Find(); got != bin {
		t.Fatalf("Find() = %q, want the binary %q", got, bin)
	}
	Executables = []string{filepath.Join(dir, "missing"), "shell-wrapper"}
	if got := Find(); got != wrapper {
		t.Fatalf("Find() = %q, want the wrapper on the PATH %q", got, wrapper)
	}
	Executables = []string{"nothing-of-that-name"}
	if got := Find(); got != "" {
		t.Fatalf("Find() = %q with nothing installed", got)
	}
}
