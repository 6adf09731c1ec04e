package dbguard

import (
	"strings"
	"sync"
)

// Faults makes a store's database connections fail on demand, for the tests of what consentd
// does while its database cannot answer (a stopped server, a read-only file, a full disk) and
// of commits whose answer is lost. It sits in the store's own driver layer (guardConnector), so
// that an injected error takes the path a real one takes: classified as unavailable, the
// connection dropped by the pool. A nil *Faults injects nothing; production stores have none.
type Faults struct {
	mu sync.Mutex
	// down fails every new connection, statement and commit with its error.
	down error
	// lostCommit is the error answering every commit after it was made.
	lostCommit error
	// commits counts commits made while lostCommit was set.
	commits int
	// writes fails every statement that writes (a full disk); readOnly too, and it sticks to
	// the connections opened while it is set (a read-only file).
	writes, readOnly error
}

type faultOp int

const (
	opConnect faultOp = iota
	opStatement
	opCommit
)

// Fail makes every new connection, statement and commit fail with err until Fail(nil): a
// database that stopped, or a file that became read-only or a disk that filled, when err is
// the driver's error for it.
func (f *Faults) Fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = err
}

// LoseCommitAnswers makes every commit answer err after the commit is made, until
// LoseCommitAnswers(nil): the answer of a commit lost on its way back (a connection that broke
// just then).
func (f *Faults) LoseCommitAnswers(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lostCommit = err
}

// LostCommits is how many commits were made whose answer was lost.
func (f *Faults) LostCommits() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.commits
}

// FailWrites makes every statement that writes fail with err until FailWrites(nil), while
// reads go on: a full disk, when err is the driver's error for it.
func (f *Faults) FailWrites(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = err
}

// ReadOnly makes every statement that writes fail with err until ReadOnly(nil), and a
// connection opened meanwhile fail its writes with err for as long as it lives, as SQLite's
// does when it opened a read-only file (it falls back to reading, for good): a database file
// made read-only for a while.
func (f *Faults) ReadOnly(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readOnly = err
}

// opened is the fault a new connection keeps for life (ReadOnly), nil for none.
func (f *Faults) opened() error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.readOnly
}

// write is the fault of a statement that writes, on a connection that kept stuck.
func (f *Faults) write(query string, stuck error) error {
	if f == nil || !writes(query) {
		return nil
	}
	if stuck != nil {
		return stuck
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.writes != nil {
		return f.writes
	}
	return f.readOnly
}

// writes reports whether a statement writes, by its first word.
func writes(query string) bool {
	w, _, _ := strings.Cut(strings.TrimSpace(query), " ")
	switch strings.ToUpper(w) {
	case "INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "ALTER", "DROP":
		return true
	}
	return false
}

func (f *Faults) before(faultOp) error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.down
}

// AfterCommit is the fault answering a commit made outside the driver layer (the bun store's
// own Postgres ingest connection), nil without one: see LoseCommitAnswers.
func (f *Faults) AfterCommit() error { return f.after(opCommit) }

func (f *Faults) after(op faultOp) error {
	if f == nil || op != opCommit {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lostCommit != nil {
		f.commits++
	}
	return f.lostCommit
}
