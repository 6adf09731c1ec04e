package browser

import (
	"context"
	"errors"
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
