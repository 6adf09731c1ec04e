package riverqueue

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Joining the store's transaction on Postgres.
//
// The store runs its transactions through database/sql (bun on pgx's stdlib driver), so
// EnqueueScan holds a *sql.Tx; River's Postgres driver inserts with a pgx.Tx. River's
// database/sql driver would take the *sql.Tx directly, but no release of it matching River
// v0.47.0 is served by the module proxy. A *sql.Tx does not expose its connection, so the
// bridge asks pgx for it: pgx calls a QueryRewriter passed as the first argument of a query
// with the *pgx.Conn that runs the query, before sending anything, and pgx's stdlib driver
// passes any argument through to pgx unchanged. insertOnConn runs the insert there, on the
// very connection (and so in the very transaction) of the *sql.Tx, then lets pgx run a no-op.
// The transaction stays the store's: conn's Commit and Rollback refuse.

// insertOnConn runs fn with a pgx.Tx on the connection of tx, inside tx.
func insertOnConn(ctx context.Context, tx *sql.Tx, fn func(ctx context.Context, t pgx.Tx) error) error {
	called := false
	_, err := tx.ExecContext(ctx, "SELECT 1", onConn(func(ctx context.Context, c *pgx.Conn) error {
		called = true
		return fn(ctx, &conn{c})
	}))
	if err == nil && !called {
		// Another database/sql driver than pgx's would ignore the rewriter.
		return errors.New("the store's transaction is not on pgx's database/sql driver")
	}
	return err
}

// onConn is a pgx.QueryRewriter that hands the query's connection to a function.
type onConn func(ctx context.Context, c *pgx.Conn) error

// RewriteQuery implements pgx.QueryRewriter; it leaves the query as it is.
func (f onConn) RewriteQuery(ctx context.Context, c *pgx.Conn, sql string, args []any) (string, []any, error) {
	if err := f(ctx, c); err != nil {
		return "", nil, err
	}
	return sql, args, nil
}

var errNotOwner = errors.New("riverqueue: the store owns this transaction")

// conn is a pgx.Tx over a connection already inside the store's transaction.
type conn struct{ c *pgx.Conn }

var _ pgx.Tx = (*conn)(nil)

// Begin would need a savepoint; River's inserts do not nest transactions.
func (t *conn) Begin(context.Context) (pgx.Tx, error) {
	return nil, errors.New("riverqueue: nested transaction on the store's connection")
}

// Commit refuses: the store commits.
func (t *conn) Commit(context.Context) error { return errNotOwner }

// Rollback refuses: the store rolls back.
func (t *conn) Rollback(context.Context) error { return errNotOwner }

// CopyFrom copies rows on the connection.
func (t *conn) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	return t.c.CopyFrom(ctx, table, columns, src)
}

// SendBatch sends a batch on the connection.
func (t *conn) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.c.SendBatch(ctx, b)
}

// LargeObjects is not supported (pgx offers no way to make one outside its own transactions);
// River does not use it.
func (t *conn) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

// Prepare prepares a statement on the connection.
func (t *conn) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.c.Prepare(ctx, name, sql)
}

// Exec runs a statement on the connection.
func (t *conn) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.c.Exec(ctx, sql, args...)
}

// Query runs a query on the connection.
func (t *conn) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.c.Query(ctx, sql, args...)
}

// QueryRow runs a one-row query on the connection.
func (t *conn) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.c.QueryRow(ctx, sql, args...)
}

// Conn returns the connection.
func (t *conn) Conn() *pgx.Conn { return t.c }
