package bunstore_test

import (
	"context"
	"fmt"
	neturl "net/url"
	"os"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core/coretest"
	"github.com/consentd/consentd/core/usecases"
)

// openPostgres returns a migrated store on a fresh database: a copy of migratedTemplate,
// which Migrate then finds up to date.
func openPostgres(tb testing.TB) *bunstore.Store {
	tb.Helper()
	return openPostgresURL(tb, pgtest.FreshURLFrom(tb, migratedTemplate(tb)))
}

var migratedDB struct {
	once     sync.Once
	template string
	err      error
}

// migratedTemplate is the name of a database migrated once for the test binary, the template
// of openPostgres's databases: a migration per test made the Postgres contract's 47 tests
// spend most of their time migrating. The migration tests start from empty databases
// instead (pgtest.FreshURL).
func migratedTemplate(tb testing.TB) string {
	tb.Helper()
	pgtest.ServerURL(tb)
	migratedDB.once.Do(func() {
		migratedDB.template, migratedDB.err = pgtest.Template(tb, func(url string) error {
			ctx := context.Background()
			s, err := bunstore.Open(ctx, url)
			if err != nil {
				return err
			}
			defer s.Close()
			return s.Migrate(ctx)
		})
	})
	if migratedDB.err != nil {
		tb.Fatal(migratedDB.err)
	}
	return migratedDB.template
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.DropTemplates()
	os.Exit(code)
}

// openPostgresURL opens and migrates a store on a Postgres database URL.
func openPostgresURL(tb testing.TB, url string) *bunstore.Store {
	tb.Helper()
	ctx := context.Background()
	s, err := bunstore.Open(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	return s
}

// withQueryMode is raw with pgx's default_query_exec_mode set to mode: the whole store then
// talks that way, consent batches included (no committer connections of their own).
func withQueryMode(tb testing.TB, raw, mode string) string {
	tb.Helper()
	u, err := neturl.Parse(raw)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("default_query_exec_mode", mode)
	u.RawQuery = q.Encode()
	return u.String()
}

func TestPostgresStoreContract(t *testing.T) {
	pgtest.ServerURL(t)
	coretest.StoreContract(t, func(t *testing.T) usecases.Store { return openPostgres(t) })
}

// TestPostgresConcurrentMigrate starts several migrations of one empty database at once, as
// several consentd processes starting together do: the advisory lock serializes them and all
// succeed.
func TestPostgresConcurrentMigrate(t *testing.T) {
	dsn := pgtest.FreshURL(t)
	ctx := context.Background()
	const n = 4
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := bunstore.Open(ctx, dsn)
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			errs[i] = s.Migrate(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("migration %d: %v", i, err)
		}
	}
	s, err := bunstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var applied int
	if err := s.DB().NewRaw("SELECT count(*) FROM bun_migrations").Scan(ctx, &applied); err != nil {
		t.Fatal(err)
	}
	if want := countMigrations(t, "postgres"); applied != want {
		t.Fatalf("%d migrations recorded, want %d (each exactly once)", applied, want)
	}
}

func countMigrations(t *testing.T, dialect string) int {
	t.Helper()
	entries, err := os.ReadDir("migrations/" + dialect)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".up.sql") {
			n++
		}
	}
	return n
}

var _ = fmt.Sprint

func TestPostgresAnalyticsContract(t *testing.T) {
	pgtest.ServerURL(t)
	coretest.AnalyticsContract(t, func(t *testing.T) usecases.Store { return openPostgres(t) })
}
