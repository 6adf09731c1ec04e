// Package dbguard is the bun store's database/sql driver layer: every error a connection
// answers is classified (Unavailable: the database cannot answer now), a connection that broke
// or whose SQLite database is open read-only is dropped by the pool, and tests inject faults
// (Faults). It is bunstore's own, split out to keep that package within its size.
package dbguard

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/consentd/consentd/core"
)

// UnavailableMessage is what a client is told while the database cannot answer.
const UnavailableMessage = "the database is unavailable; retry later"

// Unavailable returns err as a core unavailable error (code unavailable, which the HTTP
// adapters answer 503 with Retry-After) when it says the database cannot answer now rather than
// that the request or the code is wrong: the connection is lost or refused, the server shuts
// down or is starting, the database is read-only, the disk is full, an I/O error. Any other
// error is returned as it is. The wrapped error keeps the driver's, so that database/sql still
// sees driver.ErrBadConn and translate still sees SQLSTATEs.
func Unavailable(err error) error {
	if err == nil || core.IsUnavailable(err) || !isUnavailable(err) {
		return err
	}
	return core.Wrap(core.CodeUnavailable, err, UnavailableMessage)
}

// isUnavailable classifies a driver error; see Unavailable.
func isUnavailable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the client went away or gave up: its own doing, not the store's
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pgUnavailable(pe.Code)
	}
	var sc interface{ Code() int }
	if errors.As(err, &sc) {
		return sqliteUnavailable(sc.Code())
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EIO):
		return true
	}
	// pgx reports a connection it closed after a failure as "conn closed" and a batch whose
	// connection died as "conn busy"/"unexpected EOF", without a type of their own.
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "connection reset") ||
		strings.Contains(msg, "broken pipe") || strings.Contains(msg, "connection refused")
}

// pgUnavailable: the SQLSTATEs of a server that cannot serve now. Class 08 connection
// exception; 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting or
// in recovery), 57P05 idle_session_timeout; class 53 insufficient resources (53100 disk_full,
// 53200 out_of_memory, 53300 too_many_connections); 25006 read_only_sql_transaction (a standby,
// or default_transaction_read_only); class 58 system error (58030 io_error).
func pgUnavailable(code string) bool {
	switch {
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"), strings.HasPrefix(code, "58"):
		return true
	}
	switch code {
	case "57P01", "57P02", "57P03", "57P05", "25006":
		return true
	}
	return false
}

// SQLite primary result codes (the low byte of an extended one) of a database that cannot
// serve now.
const (
	sqliteBusy     = 5  // the lock stayed taken beyond busy_timeout
	sqliteNoMem    = 7  // out of memory
	sqliteReadOnly = 8  // the file (or its directory, its WAL) is not writable
	sqliteIOErr    = 10 // a read or write of the file failed
	sqliteFull     = 13 // the disk is full
	sqliteCantOpen = 14 // the file cannot be opened
)

func sqliteUnavailable(code int) bool {
	switch code & 0xff {
	case sqliteBusy, sqliteNoMem, sqliteReadOnly, sqliteIOErr, sqliteFull, sqliteCantOpen:
		return true
	}
	return false
}

// brokenConn reports whether a connection that answered err must not be used again: a
// connection-level Postgres failure, or a SQLite connection that found its file read-only
// (SQLite opened it read-only when it could not open it for writing, and it stays so) or failed
// to read or write it. The pool then opens a new one, which sees the file as it is now: that is
// how the store recovers without a restart once the fault clears.
func brokenConn(err error) bool {
	if !isUnavailable(err) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P")
	}
	var sc interface{ Code() int }
	if errors.As(err, &sc) {
		switch sc.Code() & 0xff {
		case sqliteReadOnly, sqliteIOErr, sqliteCantOpen:
			return true
		}
		return false
	}
	return true
}
