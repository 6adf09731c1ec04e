package bunstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/coretest"
)

// postgresURL returns CONSENTD_TEST_POSTGRES_URL. Without it the test is skipped with a
// message, except under CI=true, where a missing server is a failure.
func postgresURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("CONSENTD_TEST_POSTGRES_URL")
	if u == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal("CONSENTD_TEST_POSTGRES_URL is not set, and CI=true requires the Postgres tests to run")
		}
		tb.Skip("SKIPPED: Postgres store tests need CONSENTD_TEST_POSTGRES_URL " +
			"(e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)")
	}
	return u
}

// freshPostgresURL creates a database with a random name on the test server and returns its
// URL; the database is dropped when tb ends.
func freshPostgresURL(tb testing.TB) string {
	tb.Helper()
	base := postgresURL(tb)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatal(err)
	}
	defer admin.Close()
	name := "consentd_test_" + strings.ToLower(rand.Text()[:16])
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		tb.Fatalf("create test database: %v", err)
	}
	tb.Cleanup(func() {
		admin, err := sql.Open("pgx", base)
		if err != nil {
			tb.Error(err)
			return
		}
		defer admin.Close()
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			tb.Errorf("drop test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// openPostgres returns a migrated store on a fresh database.
func openPostgres(tb testing.TB) *bunstore.Store {
	tb.Helper()
	ctx := context.Background()
	s, err := bunstore.Open(ctx, freshPostgresURL(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestPostgresStoreContract(t *testing.T) {
	postgresURL(t)
	coretest.StoreContract(t, func(t *testing.T) core.Store { return openPostgres(t) })
}

// TestPostgresConcurrentMigrate starts several migrations of one empty database at once, as
// several consentd processes starting together do: the advisory lock serializes them and all
// succeed.
func TestPostgresConcurrentMigrate(t *testing.T) {
	dsn := freshPostgresURL(t)
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
