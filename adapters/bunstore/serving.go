package bunstore

import (
	"errors"
	"fmt"
	"strings"
)

// ErrServedElsewhere is returned by ClaimServing when another process serves the embedded
// database.
var ErrServedElsewhere = errors.New("served by another process")

// ClaimServing makes this process the one that serves the embedded database, for as long as
// the store is open: an embedded database belongs to one serving process, which works its
// scans and takes back at start those a dead predecessor left running, so a second one would
// take back (and crawl again) the live first one's scans. The claim is an advisory lock the
// operating system releases when the process ends, however it ends; commands that only read
// or add (apikey, site, backup, migrate) do not take it and run beside the server. On
// Postgres, which any number of processes share, it does nothing.
func (s *Store) ClaimServing() error {
	if s.Dialect() == "postgres" || s.serving != nil {
		return nil
	}
	path := strings.TrimPrefix(s.url, "sqlite://")
	f, err := lockServing(path)
	if errors.Is(err, ErrServedElsewhere) {
		return fmt.Errorf("the database %s is in use by another 'consentd serve' (an embedded SQLite database has one serving process): stop it first, or give this one its own CONSENTD_DATABASE_URL", path)
	}
	if err != nil {
		return fmt.Errorf("claim the database %s: %w", path, err)
	}
	s.serving = f
	return nil
}

// releaseServing ends the claim; it runs after the database is closed, since closing any
// descriptor of the file ends the POSIX locks SQLite holds on it in this process.
func (s *Store) releaseServing() error {
	if s.serving == nil {
		return nil
	}
	err := s.serving.Close()
	s.serving = nil
	return err
}
