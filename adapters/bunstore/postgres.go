package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/consentd/consentd/adapters/bunstore/dbguard"
	"github.com/consentd/consentd/core"
)

// mainConns is the size of the store's main Postgres pool (README.md, "Each serve or worker
// process holds at most…").
const mainConns = 32

func openPostgres(dsn string, faults *dbguard.Faults) (*bun.DB, error) {
	sqldb, err := pgxDB(dsn, mainConns, faults, nil)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return bun.NewDB(sqldb, pgdialect.New()), nil
}

// behindPooler reports whether a Postgres URL says a pooler sits in front of the server (it
// sets default_query_exec_mode): sessions may then be shared between clients, so nothing may
// rely on a session's own state (prepared statements, settings).
func behindPooler(dsn string) bool { return strings.Contains(dsn, "default_query_exec_mode") }

// listingConns is the size of the Postgres pool of listing reads (listingRead).
const listingConns = 4

// openPostgresListing opens the pool listingRead reads listings and exports through: sessions
// started with enable_sort = off, so that a page's query can only be planned as a walk of the
// listing's index in its order, whatever the statistics say (listingRead). The setting comes
// with the connection (a startup parameter), so a page is one round trip, not four (begin, SET
// LOCAL, the page, commit, as in a transaction of the main pool); nothing but listing reads
// runs on these sessions. Not behind a pooler (behindPooler).
func openPostgresListing(dsn string, faults *dbguard.Faults) (*bun.DB, error) {
	sqldb, err := pgxDB(dsn, listingConns, faults, map[string]string{"enable_sort": "off"})
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return bun.NewDB(sqldb, pgdialect.New()), nil
}

// pgxDB opens a pool of at most conns connections through pgx. bun writes every argument
// into the SQL text, so pgx never gets parameters: its default mode would prepare each
// distinct text (a round trip and a server-side plan cached for nothing, then evicted)
// before running it. The simple protocol sends the text once. A default_query_exec_mode in
// the URL still wins. BenchmarkPostgresQueryMode measures the difference. params are run-time
// settings every session of the pool starts with.
func pgxDB(dsn string, conns int, faults *dbguard.Faults, params map[string]string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	for k, v := range params {
		cfg.RuntimeParams[k] = v
	}
	if !behindPooler(dsn) {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	sqldb := sql.OpenDB(dbguard.Connector(stdlib.GetConnector(*cfg), faults))
	sqldb.SetMaxOpenConns(conns)
	sqldb.SetMaxIdleConns(conns)
	return sqldb, nil
}

// migrationLockID is the Postgres advisory lock Migrate holds: "consent".
const migrationLockID = 0x636f6e73656e74

// postgresMigrationDB opens the database Postgres migrations run on: one session, which takes
// the migration advisory lock (waiting for a migration in progress in another process) and
// then does all the migration's work. The lock and the work must share the session: when a
// migrating process is killed, the server ends each of its sessions only once that session's
// statement in flight has finished; a lock held by a session of its own would be released at
// once, while another session could still be creating a table, and the next process's
// CREATE TABLE IF NOT EXISTS would race it (duplicate key in pg_type). close releases the
// lock and closes the database.
func (s *Store) postgresMigrationDB(ctx context.Context) (db *bun.DB, close func(), err error) {
	sqldb, err := pgxDB(s.url, 1, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	db = bun.NewDB(sqldb, pgdialect.New())
	for _, h := range s.migrationHooks {
		db = db.WithQueryHook(h)
	}
	if _, err := db.ExecContext(ctx, "SELECT pg_advisory_lock(?)", migrationLockID); err != nil {
		sqldb.Close()
		return nil, nil, fmt.Errorf("lock: %w", err)
	}
	return db, func() {
		db.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock_all()") //nolint:errcheck // unlock also happens when the session closes
		sqldb.Close()
	}, nil
}

// relockMigrations takes the migration advisory lock again in a migration's transaction.
// Advisory locks stack in a session, so this is immediate; but should the pool have replaced
// a broken connection, the lock taken at the start was lost with it, and this waits for it.
func relockMigrations(ctx context.Context, tx bun.Tx) error {
	if tx.Dialect().Name() != dialect.PG {
		return nil
	}
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_lock(?)", migrationLockID)
	return err
}

// locked makes a single-row read inside a transaction on Postgres lock the row (FOR UPDATE)
// until commit, so that concurrent read-modify-write updates of one site, banner or category
// apply one after the other instead of losing each other's changes. SQLite transactions are
// serialized already (BEGIN IMMEDIATE).
func (s *Store) locked(q *bun.SelectQuery) *bun.SelectQuery {
	if s.tx != nil && s.Dialect() == "postgres" {
		return q.For("UPDATE")
	}
	return q
}

// translatePostgres translates a Postgres error by its SQLSTATE; nil when err is none it knows.
func translatePostgres(err error, what string) error {
	var st interface{ SQLState() string }
	if !errors.As(err, &st) {
		return nil
	}
	switch code := st.SQLState(); {
	case code == "23505": // unique_violation
		return core.Wrap(core.CodeConflict, err, what+" already exists")
	case code == "23503": // foreign_key_violation
		return core.Wrap(core.CodeNotFound, err, what+" refers to a row that does not exist")
	case code == "22P02": // invalid_text_representation: not a uuid
		return core.Errorf(core.CodeNotFound, "%s not found", what)
	case strings.HasPrefix(code, "22"), code == "54000":
		// Class 22, data exception: a value Postgres cannot hold though SQLite and Go can, such
		// as an integer beyond int32 in an INTEGER column (22003), a date outside timestamptz
		// (22008, 22007), \u0000 in jsonb (22P05). 54000, program_limit_exceeded: a value too
		// large for an index. Input validation rejects these first; here they stay the
		// client's error instead of becoming internal ones.
		return core.Wrap(core.CodeInvalid, err, what+": a value is out of the range the database can store")
	}
	return nil
}
