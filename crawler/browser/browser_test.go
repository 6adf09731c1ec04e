package browser

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPoolWithoutChromium: a pool whose executable is missing says so, from Available and
// Acquire alike, and a closed pool gives out no browser.
func TestPoolWithoutChromium(t *testing.T) {
	t.Parallel()
	p := NewPool(Options{Path: "/nonexistent/chromium"})
	var missing *MissingError
	if err := p.Available(); !errors.As(err, &missing) || missing.Why != "/nonexistent/chromium does not exist" {
		t.Fatalf("Available: %v", err)
	}
	if br, err := p.Acquire(context.Background()); br != nil || !errors.As(err, &missing) {
		t.Fatalf("Acquire: %v, %v", br, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Acquire(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Acquire after Close: %v", err)
	}
}

// TestFlagsFresh: each caller appends its own options to a slice of its own.
func TestFlagsFresh(t *testing.T) {
	t.Parallel()
	a, b := Flags(), Flags()
	if len(a) == 0 || &a[0] == &b[0] {
		t.Fatalf("Flags share their backing array (%d options)", len(a))
	}
}

// TestFlagsWrittenOnce fails when Chromium's launch flags are spelt out again outside Flags:
// tests that drive a browser start it with Flags() and add only their own.
func TestFlagsWrittenOnce(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	self, err := filepath.Abs(".") // this package, which writes them and checks them
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		if abs, _ := filepath.Abs(p); filepath.Dir(abs) == self {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, flag := range []string{`"no-sandbox"`, `"disable-gpu"`, `"disable-quic"`, `"no-first-run"`, "DefaultExecAllocatorOptions"} {
			if bytes.Contains(b, []byte(flag)) {
				t.Errorf("%s spells out %s: start the browser with browser.Flags()", p, flag)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
