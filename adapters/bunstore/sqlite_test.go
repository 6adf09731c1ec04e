package bunstore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/core/coretest"
	"github.com/consentd/consentd/core/usecases"
)

// OpenSQLite returns a migrated store on a fresh SQLite file in t's temporary directory.
func openSQLite(t *testing.T) *bunstore.Store {
	t.Helper()
	ctx := context.Background()
	s, err := bunstore.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSQLiteStoreContract(t *testing.T) {
	coretest.StoreContract(t, func(t *testing.T) usecases.Store { return openSQLite(t) })
}

func TestSQLiteMigrateTwice(t *testing.T) {
	s := openSQLite(t)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
}

func TestSQLiteAnalyticsContract(t *testing.T) {
	coretest.AnalyticsContract(t, func(t *testing.T) usecases.Store { return openSQLite(t) })
}
