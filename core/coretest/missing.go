package coretest

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// ttyPath is where Loud writes: the terminal of the person running the tests.
var ttyPath = "/dev/tty"

var (
	loudMu   sync.Mutex
	loudSaid = map[string]bool{}
	hushed   int // tests in progress that called Hush
)

// Loud tells the person running the tests something they must not miss, such as tests skipped
// because this machine lacks a browser, node or a Postgres server: once per message and test
// binary, on their terminal, or on standard error when there is none. `go test ./...` shows a
// passing package's output (its skips, what its tests print) only with -v, so a skip reported
// only through the test's log would go unseen; the terminal is the one place the line reaches.
func Loud(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	loudMu.Lock()
	defer loudMu.Unlock()
	if hushed > 0 || loudSaid[msg] {
		return
	}
	loudSaid[msg] = true
	if tty, err := os.OpenFile(ttyPath, os.O_WRONLY|os.O_APPEND, 0); err == nil {
		defer tty.Close()
		if _, err := fmt.Fprintln(tty, msg); err == nil {
			return
		}
	}
	fmt.Fprintln(os.Stderr, msg)
}

// Hush keeps Loud silent until tb ends, for a test of something that skips on purpose
// (Missing's callers' own tests), whose lines would tell the person running the tests that
// something is missing when nothing is. tb must not run in parallel with tests that may skip.
func Hush(tb testing.TB) {
	tb.Helper()
	loudMu.Lock()
	hushed++
	loudMu.Unlock()
	tb.Cleanup(func() {
		loudMu.Lock()
		hushed--
		loudMu.Unlock()
	})
}

// Missing ends a test that needs what this machine does not have (what: "node is not
// installed, so …"): under CI=true, where every test must run, the test fails; elsewhere it is
// skipped, loudly (Loud, and in the test's log).
func Missing(tb testing.TB, what string) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("CI=true but %s", what)
		return
	}
	Loud("!!! SKIPPING: %s", what)
	tb.Skipf("!!! SKIPPING: %s", what)
}
