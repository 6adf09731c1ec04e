package dbguard

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/consentd/consentd/core"
)

type sqliteErr int

func (c sqliteErr) Error() string { return fmt.Sprintf("sqlite %d", int(c)) }
func (c sqliteErr) Code() int     { return int(c) }

// TestUnavailableClassifies: the errors of a database that cannot serve now become core's
// unavailable error (keeping the driver's error in the chain); the client's own errors and
// the request's do not; a broken connection is told from a full disk.
func TestUnavailableClassifies(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err               error
		unavailable, drop bool
	}{
		{&pgconn.PgError{Code: "57P01"}, true, true},  // admin_shutdown
		{&pgconn.PgError{Code: "57P03"}, true, true},  // cannot_connect_now
		{&pgconn.PgError{Code: "08006"}, true, true},  // connection_failure
		{&pgconn.PgError{Code: "53100"}, true, false}, // disk_full
		{&pgconn.PgError{Code: "25006"}, true, false}, // read_only_sql_transaction
		{&pgconn.PgError{Code: "58030"}, true, false}, // io_error
		{&pgconn.PgError{Code: "23505"}, false, false},
		{&pgconn.PgError{Code: "22P02"}, false, false},
		{sqliteErr(8), true, true},         // SQLITE_READONLY
		{sqliteErr(8 | 1<<8), true, true},  // SQLITE_READONLY_RECOVERY
		{sqliteErr(10 | 3<<8), true, true}, // SQLITE_IOERR_WRITE
		{sqliteErr(13), true, false},       // SQLITE_FULL
		{sqliteErr(5), true, false},        // SQLITE_BUSY beyond busy_timeout
		{sqliteErr(2067), false, false},    // SQLITE_CONSTRAINT_UNIQUE
		{fmt.Errorf("write: %w", syscall.ECONNRESET), true, true},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true, true},
		{io.ErrUnexpectedEOF, true, true},
		{driver.ErrBadConn, true, true},
		{errors.New("conn closed"), true, true},
		{context.Canceled, false, false},
		{context.DeadlineExceeded, false, false},
		{errors.New("no such column: x"), false, false},
	} {
		got := Unavailable(c.err)
		if core.IsUnavailable(got) != c.unavailable {
			t.Errorf("%v: unavailable %v, want %v", c.err, core.IsUnavailable(got), c.unavailable)
		}
		if !errors.Is(got, c.err) && !errors.As(got, new(*pgconn.PgError)) {
			t.Errorf("%v: the driver's error is lost: %v", c.err, got)
		}
		if brokenConn(c.err) != c.drop {
			t.Errorf("%v: connection dropped %v, want %v", c.err, brokenConn(c.err), c.drop)
		}
	}
}
