package bunstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/migrate"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" database/sql driver
)

//go:embed migrations
var migrationFiles embed.FS

// Open connects to the database named by a URL: sqlite://PATH (embedded, single node) or
// postgres://... (production). It does not migrate; call Migrate.
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	var (
		db  *bun.DB
		err error
	)
	switch {
	case strings.HasPrefix(databaseURL, "sqlite://"):
		db, err = openSQLite(strings.TrimPrefix(databaseURL, "sqlite://"))
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		db, err = openPostgres(databaseURL)
	default:
		return nil, fmt.Errorf("database url %q: must start with sqlite:// or postgres://", databaseURL)
	}
	if err != nil {
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	committers, batch := 1, 512 // SQLite has one writer at a time
	if db.Dialect().Name().String() == "pg" {
		committers, batch = 4, 256
	}
	return &Store{db: db, root: db, ingest: newGroupCommit(db, committers, batch)}, nil
}

// openSQLite opens a SQLite file in WAL mode with foreign keys on. Transactions begin
// IMMEDIATE so that concurrent writers wait for each other (busy_timeout) instead of failing on
// a lock upgrade; synchronous=FULL makes every commit durable before it is acknowledged.
func openSQLite(path string) (*bun.DB, error) {
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
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	sqldb, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	sqldb.SetMaxOpenConns(8)
	return bun.NewDB(sqldb, sqlitedialect.New()), nil
}

func openPostgres(dsn string) (*bun.DB, error) {
	sqldb, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	sqldb.SetMaxOpenConns(32)
	sqldb.SetMaxIdleConns(32)
	return bun.NewDB(sqldb, pgdialect.New()), nil
}

// Dialect names the database: "sqlite" or "postgres".
func (s *Store) Dialect() string {
	if s.root.Dialect().Name().String() == "pg" {
		return "postgres"
	}
	return "sqlite"
}

// Migrate applies pending schema migrations. On Postgres it holds an advisory lock meanwhile,
// so several processes starting at once migrate one after the other.
func (s *Store) Migrate(ctx context.Context) error {
	dir := "migrations/sqlite"
	if s.Dialect() == "postgres" {
		dir = "migrations/postgres"
		conn, err := s.root.Conn(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		defer conn.Close()
		const lockID = 0x636f6e73656e74 // "consent"
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", lockID); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(?)", lockID) //nolint:errcheck // unlock also happens when the session closes
	}
	sub, err := fs.Sub(migrationFiles, dir)
	if err != nil {
		return err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(sub); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	m := migrate.NewMigrator(s.root, ms, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("migrate: init: %w", err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}
