package app

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// ErrBackupNeedsSQLite is returned by Backup on Postgres, whose own tools do it better.
var ErrBackupNeedsSQLite = errors.New("backup copies the embedded SQLite store; back up Postgres with pg_dump (README, Backups)")

// Backup writes a consistent copy of the SQLite database to path while the service keeps
// running: VACUUM INTO reads one snapshot and writes a compact database file, which is
// restored by putting it in place of consentd.db while consentd is stopped.
func (a *App) Backup(ctx context.Context, path string) error {
	if a.store.Dialect() != "sqlite" {
		return ErrBackupNeedsSQLite
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("backup: %s exists; choose a new file", path)
	}
	if _, err := a.store.DB().ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	return nil
}
