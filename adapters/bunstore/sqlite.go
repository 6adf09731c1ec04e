package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"modernc.org/sqlite"

	"github.com/consentd/consentd/adapters/bunstore/dbguard"
	"github.com/consentd/consentd/core"
)

// openSQLite opens a SQLite file in WAL mode with foreign keys on. Transactions begin
// IMMEDIATE so that concurrent writers wait for each other (busy_timeout) instead of failing on
// a lock upgrade; synchronous=FULL makes every commit durable before it is acknowledged.
func openSQLite(ctx context.Context, path string, faults *dbguard.Faults) (*bun.DB, error) {
	if path == "" {
		return nil, fmt.Errorf("sqlite url: empty path (use sqlite://consentd.db)")
	}
	// A missing directory is most likely a typo: refuse it rather than create a tree.
	if dir := filepath.Dir(path); dir != "." {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("sqlite url: directory %s does not exist (create it first)", dir)
		}
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	sqldb := sql.OpenDB(dbguard.Connector(dbguard.DSNConnector(&sqlite.Driver{}, "file:"+path+"?"+q.Encode()), faults))
	sqldb.SetMaxOpenConns(8)
	if err := setWAL(ctx, sqldb); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	return bun.NewDB(sqldb, sqlitedialect.New()), nil
}

// setWAL puts the database in WAL mode, which the file then keeps for every later
// connection. Switching a new file to WAL reads it and then takes its write lock in one
// statement, and SQLite answers SQLITE_BUSY at once, without waiting busy_timeout, when
// another process holds the lock between the two (two processes creating one database
// together); the switch is then tried again, as busy_timeout would have waited.
func setWAL(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(sqliteBusyTimeout)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		if err == nil && !strings.EqualFold(mode, "wal") {
			err = fmt.Errorf("journal_mode is %s, not wal", mode)
		}
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// sqliteBusyTimeout is how long a statement waits for another connection's lock.
const sqliteBusyTimeout = 10 * time.Second

// isBusy reports whether err is SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	var sc interface{ Code() int }
	return errors.As(err, &sc) && sc.Code()&0xff == 5
}

// translateSQLite translates a SQLite error by its extended result code; nil when err is none
// it knows.
func translateSQLite(err error, what string) error {
	var sc interface{ Code() int }
	if errors.As(err, &sc) {
		switch sc.Code() {
		case 2067, 1555: // SQLITE_CONSTRAINT_UNIQUE, SQLITE_CONSTRAINT_PRIMARYKEY
			return core.Wrap(core.CodeConflict, err, what+" already exists")
		case 787: // SQLITE_CONSTRAINT_FOREIGNKEY
			return core.Wrap(core.CodeNotFound, err, what+" refers to a row that does not exist")
		}
	}
	if strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return core.Wrap(core.CodeConflict, err, what+" already exists")
	}
	return nil
}
