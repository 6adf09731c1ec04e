package bunstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/uptrace/bun/migrate"
)

//go:embed migrations
var migrationFiles embed.FS

// Migrate applies pending schema migrations. On Postgres it holds an advisory lock meanwhile,
// so several processes starting at once migrate one after the other.
func (s *Store) Migrate(ctx context.Context) error {
	dir := "migrations/sqlite"
	if s.Dialect() == "postgres" {
		dir = "migrations/postgres"
		unlock, err := lockMigrations(ctx, s.root)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		defer unlock()
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
