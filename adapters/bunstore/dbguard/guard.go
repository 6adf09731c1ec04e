package dbguard

import (
	"context"
	"database/sql/driver"
	"io"
	"reflect"
	"sync/atomic"
)

// Connector wraps inner, a database/sql driver's connector, with faults (nil in production):
// see guardConnector.
func Connector(inner driver.Connector, faults *Faults) driver.Connector {
	return &guardConnector{inner: inner, faults: faults}
}

// DSNConnector is the connector of a driver that has none of its own (modernc's sqlite).
func DSNConnector(drv driver.Driver, dsn string) driver.Connector {
	return dsnConnector{drv: drv, dsn: dsn}
}

// guardConnector wraps a database/sql driver so that every error a connection answers goes
// through Unavailable (whatever store method, query or transaction it came from, it reaches
// the use cases as core's unavailable error when the database cannot answer), and a connection
// that answered a connection-level failure (brokenConn) is discarded by the pool instead of
// being handed out again. With faults set (tests), each operation asks it first.
type guardConnector struct {
	inner  driver.Connector
	faults *Faults
}

func (c *guardConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := c.faults.before(opConnect); err != nil {
		return nil, Unavailable(err)
	}
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, Unavailable(err)
	}
	return &guardConn{inner: conn, faults: c.faults, stuck: c.faults.opened()}, nil
}

func (c *guardConnector) Driver() driver.Driver { return c.inner.Driver() }

// dsnConnector is the connector of a driver that has none of its own (modernc's sqlite).
type dsnConnector struct {
	drv driver.Driver
	dsn string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.drv }

// guardConn is a connection whose errors are classified; broken marks it for the pool to drop.
type guardConn struct {
	inner  driver.Conn
	faults *Faults
	broken atomic.Bool
	// stuck is the write fault this connection keeps for life (Faults.ReadOnly), in tests.
	stuck error
}

// check classifies err and marks the connection broken when it is.
func (c *guardConn) check(err error) error {
	if err == nil || err == driver.ErrSkip {
		return err
	}
	if brokenConn(err) {
		c.broken.Store(true)
	}
	return Unavailable(err)
}

// fault is the injected failure of a statement, nil without one.
func (c *guardConn) fault(query string) error {
	if err := c.faults.before(opStatement); err != nil {
		return err
	}
	return c.faults.write(query, c.stuck)
}

func (c *guardConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *guardConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.faults.before(opStatement); err != nil {
		return nil, c.check(err)
	}
	var st driver.Stmt
	var err error
	if p, ok := c.inner.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, query)
	} else {
		st, err = c.inner.Prepare(query)
	}
	if err != nil {
		return nil, c.check(err)
	}
	return &guardStmt{inner: st, conn: c, query: query}, nil
}

func (c *guardConn) Close() error { return c.inner.Close() }

func (c *guardConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *guardConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if err := c.faults.before(opStatement); err != nil {
		return nil, c.check(err)
	}
	var tx driver.Tx
	var err error
	if b, ok := c.inner.(driver.ConnBeginTx); ok {
		tx, err = b.BeginTx(ctx, opts)
	} else {
		tx, err = c.inner.Begin() //nolint:staticcheck // the driver has nothing else
	}
	if err != nil {
		return nil, c.check(err)
	}
	return &guardTx{inner: tx, conn: c}, nil
}

func (c *guardConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.inner.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	if err := c.fault(query); err != nil {
		return nil, c.check(err)
	}
	res, err := e.ExecContext(ctx, query, args)
	return res, c.check(err)
}

func (c *guardConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.inner.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	if err := c.fault(query); err != nil {
		return nil, c.check(err)
	}
	rows, err := q.QueryContext(ctx, query, args)
	if err != nil {
		return nil, c.check(err)
	}
	return &guardRows{inner: rows, conn: c}, nil
}

func (c *guardConn) Ping(ctx context.Context) error {
	if err := c.faults.before(opStatement); err != nil {
		return c.check(err)
	}
	if p, ok := c.inner.(driver.Pinger); ok {
		return c.check(p.Ping(ctx))
	}
	return nil
}

// ResetSession, before a used connection is handed out again, drops it when it broke or
// when its SQLite database is open read-only: SQLite opens a file it cannot write read-only
// and keeps it so, which would fail every later write on this connection after the file is
// writable again.
func (c *guardConn) ResetSession(ctx context.Context) error {
	if c.broken.Load() || c.readOnly() {
		return driver.ErrBadConn
	}
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// readOnly reports whether the connection's database is open read-only (sqlite3_db_readonly;
// in tests, a connection opened during Faults.ReadOnly).
func (c *guardConn) readOnly() bool {
	if c.stuck != nil {
		return true
	}
	ro, ok := c.inner.(interface{ IsReadOnly(string) (bool, error) })
	if !ok {
		return false
	}
	r, err := ro.IsReadOnly("main")
	return err == nil && r
}

func (c *guardConn) IsValid() bool {
	if c.broken.Load() {
		return false
	}
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *guardConn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.inner.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

type guardTx struct {
	inner driver.Tx
	conn  *guardConn
}

func (t *guardTx) Commit() error {
	if err := t.conn.faults.before(opCommit); err != nil {
		_ = t.inner.Rollback()
		return t.conn.check(err)
	}
	if err := t.inner.Commit(); err != nil {
		return t.conn.check(err)
	}
	// The commit is done; a fault here is its answer lost on the way back.
	return t.conn.check(t.conn.faults.after(opCommit))
}

func (t *guardTx) Rollback() error { return t.conn.check(t.inner.Rollback()) }

type guardStmt struct {
	inner driver.Stmt
	conn  *guardConn
	query string
}

func (s *guardStmt) Close() error  { return s.inner.Close() }
func (s *guardStmt) NumInput() int { return s.inner.NumInput() }

func (s *guardStmt) Exec(args []driver.Value) (driver.Result, error) {
	if err := s.conn.fault(s.query); err != nil {
		return nil, s.conn.check(err)
	}
	res, err := s.inner.Exec(args) //nolint:staticcheck // what database/sql calls without ExecContext
	return res, s.conn.check(err)
}

func (s *guardStmt) Query(args []driver.Value) (driver.Rows, error) {
	if err := s.conn.fault(s.query); err != nil {
		return nil, s.conn.check(err)
	}
	rows, err := s.inner.Query(args) //nolint:staticcheck // what database/sql calls without QueryContext
	if err != nil {
		return nil, s.conn.check(err)
	}
	return &guardRows{inner: rows, conn: s.conn}, nil
}

func (s *guardStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	e, ok := s.inner.(driver.StmtExecContext)
	if !ok {
		vals, err := values(args)
		if err != nil {
			return nil, err
		}
		return s.Exec(vals)
	}
	if err := s.conn.fault(s.query); err != nil {
		return nil, s.conn.check(err)
	}
	res, err := e.ExecContext(ctx, args)
	return res, s.conn.check(err)
}

func (s *guardStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := s.inner.(driver.StmtQueryContext)
	if !ok {
		vals, err := values(args)
		if err != nil {
			return nil, err
		}
		return s.Query(vals)
	}
	if err := s.conn.fault(s.query); err != nil {
		return nil, s.conn.check(err)
	}
	rows, err := q.QueryContext(ctx, args)
	if err != nil {
		return nil, s.conn.check(err)
	}
	return &guardRows{inner: rows, conn: s.conn}, nil
}

func (s *guardStmt) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := s.inner.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return s.conn.CheckNamedValue(nv)
}

// values is database/sql's own fallback for a statement without the context methods.
func values(named []driver.NamedValue) ([]driver.Value, error) {
	out := make([]driver.Value, len(named))
	for i, nv := range named {
		if nv.Name != "" {
			return nil, driver.ErrSkip
		}
		out[i] = nv.Value
	}
	return out, nil
}

// guardRows classifies the errors of reading rows; the column type methods answer what
// database/sql answers for a driver without them.
type guardRows struct {
	inner driver.Rows
	conn  *guardConn
}

func (r *guardRows) Columns() []string { return r.inner.Columns() }
func (r *guardRows) Close() error      { return r.conn.check(r.inner.Close()) }

func (r *guardRows) Next(dest []driver.Value) error {
	err := r.inner.Next(dest)
	if err == io.EOF {
		return err
	}
	return r.conn.check(err)
}

func (r *guardRows) HasNextResultSet() bool {
	n, ok := r.inner.(driver.RowsNextResultSet)
	return ok && n.HasNextResultSet()
}

func (r *guardRows) NextResultSet() error {
	if n, ok := r.inner.(driver.RowsNextResultSet); ok {
		err := n.NextResultSet()
		if err == io.EOF {
			return err
		}
		return r.conn.check(err)
	}
	return io.EOF
}

func (r *guardRows) ColumnTypeScanType(i int) reflect.Type {
	if c, ok := r.inner.(driver.RowsColumnTypeScanType); ok {
		return c.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *guardRows) ColumnTypeDatabaseTypeName(i int) string {
	if c, ok := r.inner.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return c.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *guardRows) ColumnTypeLength(i int) (int64, bool) {
	if c, ok := r.inner.(driver.RowsColumnTypeLength); ok {
		return c.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *guardRows) ColumnTypeNullable(i int) (bool, bool) {
	if c, ok := r.inner.(driver.RowsColumnTypeNullable); ok {
		return c.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *guardRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if c, ok := r.inner.(driver.RowsColumnTypePrecisionScale); ok {
		return c.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

var (
	_ driver.Connector          = (*guardConnector)(nil)
	_ driver.ConnBeginTx        = (*guardConn)(nil)
	_ driver.ConnPrepareContext = (*guardConn)(nil)
	_ driver.ExecerContext      = (*guardConn)(nil)
	_ driver.QueryerContext     = (*guardConn)(nil)
	_ driver.Pinger             = (*guardConn)(nil)
	_ driver.SessionResetter    = (*guardConn)(nil)
	_ driver.Validator          = (*guardConn)(nil)
	_ driver.NamedValueChecker  = (*guardConn)(nil)
	_ driver.StmtExecContext    = (*guardStmt)(nil)
	_ driver.StmtQueryContext   = (*guardStmt)(nil)
	_ driver.RowsNextResultSet  = (*guardRows)(nil)
)
