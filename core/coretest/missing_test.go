package coretest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records how Missing ended the test.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Fatalf(f string, a ...any) { r.fatal = fmt.Sprintf(f, a...) }
func (r *recorder) Skipf(f string, a ...any)  { r.skip = fmt.Sprintf(f, a...) }

// TestLoudReachesTheTerminalOnce: the line goes to the terminal (here a file standing in for
// it), once however often it is said, and a second message gets its own line.
func TestLoudReachesTheTerminalOnce(t *testing.T) {
	tty := fakeTTY(t)
	Loud("!!! SKIPPING: %s", "the loud test's first line")
	Loud("!!! SKIPPING: %s", "the loud test's first line")
	Loud("!!! SKIPPING: the loud test's second line")
	got, err := os.ReadFile(tty)
	if err != nil {
		t.Fatal(err)
	}
	want := "!!! SKIPPING: the loud test's first line\n!!! SKIPPING: the loud test's second line\n"
	if string(got) != want {
		t.Fatalf("the terminal got %q, want %q", got, want)
	}
}

// TestHush: a hushed test's lines reach no terminal, and are said once it has ended.
func TestHush(t *testing.T) {
	tty := fakeTTY(t)
	t.Run("hushed", func(t *testing.T) {
		Hush(t)
		Loud("!!! SKIPPING: the hush test's line")
	})
	if got, _ := os.ReadFile(tty); len(got) != 0 {
		t.Fatalf("a hushed line reached the terminal: %q", got)
	}
	Loud("!!! SKIPPING: the hush test's line")
	if got, _ := os.ReadFile(tty); string(got) != "!!! SKIPPING: the hush test's line\n" {
		t.Fatalf("after the hush the terminal got %q", got)
	}
}

// TestMissingFailsUnderCI: under CI=true a missing tool fails the test; elsewhere it skips it,
// saying what is missing on the terminal too.
func TestMissingFailsUnderCI(t *testing.T) {
	tty := fakeTTY(t)

	t.Setenv("CI", "true")
	r := &recorder{}
	Missing(r, "the missing test's tool is not installed")
	if r.fatal != "CI=true but the missing test's tool is not installed" || r.skip != "" {
		t.Fatalf("under CI=true: fatal %q, skip %q", r.fatal, r.skip)
	}
	t.Setenv("CI", "")
	r = &recorder{}
	Missing(r, "the missing test's tool is not installed")
	if r.skip != "!!! SKIPPING: the missing test's tool is not installed" || r.fatal != "" {
		t.Fatalf("without CI: fatal %q, skip %q", r.fatal, r.skip)
	}
	if got, _ := os.ReadFile(tty); string(got) != "!!! SKIPPING: the missing test's tool is not installed\n" {
		t.Fatalf("the terminal got %q", got)
	}
}

// fakeTTY points Loud at a file of the test's instead of the terminal, and returns its path.
func fakeTTY(t *testing.T) string {
	t.Helper()
	tty := filepath.Join(t.TempDir(), "tty")
	if err := os.WriteFile(tty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	loudMu.Lock()
	old := ttyPath
	ttyPath = tty
	loudMu.Unlock()
	t.Cleanup(func() {
		loudMu.Lock()
		ttyPath = old
		loudMu.Unlock()
	})
	return tty
}
