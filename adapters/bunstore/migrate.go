package bunstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// migrationFiles holds the migrations of each dialect, migrations/sqlite and
// migrations/postgres. Every file is named NAME_COMMENT.tx.up.sql: bun runs it in one
// transaction and records it under NAME alone (the digits), the name it has always had.
//
//go:embed migrations
var migrationFiles embed.FS

// migrationsTable is where bun records applied migrations.
const migrationsTable = "bun_migrations"

// errAlreadyApplied stops a migration that another process applied after this one read the
// list of applied migrations; Migrate then reads the list again.
var errAlreadyApplied = errors.New("migration applied meanwhile by another process")

// Migrate applies pending schema migrations, each in a transaction that also records it, so
// that a process killed at any point leaves every migration either wholly applied and recorded
// or not applied at all, and the next Migrate resumes where it stopped. On Postgres it holds an
// advisory lock meanwhile, so several processes starting at once migrate one after the other;
// on SQLite the write lock each migration's transaction takes (BEGIN IMMEDIATE) serializes them.
// On Postgres it works in one session of its own (see postgresMigrationDB).
func (s *Store) Migrate(ctx context.Context) error {
	dir, db := "migrations/sqlite", s.root
	for _, h := range s.migrationHooks {
		db = db.WithQueryHook(h)
	}
	if s.Dialect() == "postgres" {
		dir = "migrations/postgres"
		pg, close, err := s.postgresMigrationDB(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		defer close()
		db = pg
	}
	sub, err := fs.Sub(migrationFiles, dir)
	if err != nil {
		return err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(sub); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	m := migrate.NewMigrator(db, ms,
		migrate.WithTableName(migrationsTable),
		// bun marks a migration applied after its transaction commits, in a statement of its
		// own; recordInTx has recorded it in the transaction already, and the upsert makes
		// bun's second record a no-op instead of a duplicate.
		migrate.WithMarkAppliedOnSuccess(true),
		migrate.WithUpsert(true),
		migrate.BeforeMigration(skipIfApplied),
		migrate.AfterMigration(recordInTx),
	)
	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("migrate: init: %w", err)
	}
	for attempt := 0; ; attempt++ {
		_, err := m.Migrate(ctx)
		if errors.Is(err, errAlreadyApplied) && attempt < 10 {
			continue
		}
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		return nil
	}
}

// Migrated reports whether the database holds consentd's schema (some migration recorded),
// so that commands that only read or add refuse a database nobody set up.
func (s *Store) Migrated(ctx context.Context) (bool, error) {
	q := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
	if s.Dialect() == "postgres" {
		q = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?"
	}
	var n int
	if err := s.root.NewRaw(q, migrationsTable).Scan(ctx, &n); err != nil {
		return false, fmt.Errorf("read the schema: %w", err)
	}
	return n > 0, nil
}

// migrationTx returns the transaction a migration runs in; a migration file not named
// .tx.up.sql would run outside one, and is refused.
func migrationTx(db bun.IConn, mig *migrate.Migration) (bun.Tx, error) {
	tx, ok := db.(bun.Tx)
	if !ok {
		return bun.Tx{}, fmt.Errorf("migration %s does not run in a transaction: name it %s.tx.up.sql", mig.Name, mig)
	}
	return tx, nil
}

// skipIfApplied runs first in a migration's transaction: it stops the migration if another
// process recorded it since this one read the list (possible on SQLite, which has no
// advisory lock; the transaction's write lock makes the check and the migration atomic).
func skipIfApplied(ctx context.Context, db bun.IConn, mig *migrate.Migration) error {
	tx, err := migrationTx(db, mig)
	if err != nil {
		return err
	}
	if err := relockMigrations(ctx, tx); err != nil {
		return err
	}
	n, err := tx.NewSelect().TableExpr(migrationsTable).Where("name = ?", mig.Name).Count(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		return errAlreadyApplied
	}
	return nil
}

// recordInTx runs last in a migration's transaction: it records the migration, so that the
// schema change and its record commit together.
func recordInTx(ctx context.Context, db bun.IConn, mig *migrate.Migration) error {
	tx, err := migrationTx(db, mig)
	if err != nil {
		return err
	}
	row := migrate.Migration{Name: mig.Name, GroupID: mig.GroupID} // a copy: bun inserts mig again after commit
	_, err = tx.NewInsert().Model(&row).ModelTableExpr(migrationsTable).
		On("CONFLICT (name) DO UPDATE").Set("group_id = EXCLUDED.group_id").Exec(ctx)
	return err
}
