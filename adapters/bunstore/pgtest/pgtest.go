// Package pgtest gives tests a fresh Postgres database of their own on the server named by
// CONSENTD_TEST_POSTGRES_URL.
package pgtest

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
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/consentd/consentd/core/coretest"
)

// EnvURL names the variable holding the test server's URL.
const EnvURL = "CONSENTD_TEST_POSTGRES_URL"

// DefaultURL is the documented local server, used when EnvURL is unset and it answers.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

var (
	probeOnce sync.Once
	probed    string
)

// ServerURL returns the test server's URL: EnvURL's, or DefaultURL when that server answers.
// Without either the test is skipped, with one loud line on the terminal per test binary,
// except under CI=true, where it fails: CI must run the Postgres tests (coretest.Missing).
func ServerURL(tb testing.TB) string {
	tb.Helper()
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	probeOnce.Do(func() {
		if answers(DefaultURL) {
			probed = DefaultURL
		}
	})
	if probed != "" {
		return probed
	}
	coretest.Missing(tb, "the Postgres tests have no server: "+EnvURL+" is not set and none answers at "+DefaultURL)
	return ""
}

// answers reports whether a Postgres server accepts a connection at u within two seconds.
func answers(u string) bool {
	db, err := sql.Open("pgx", u)
	if err != nil {
		return false
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return db.PingContext(ctx) == nil
}

// FreshURL creates a database with a random name on the test server and returns its URL; the
// database is dropped (with its connections) when tb ends. Its sessions commit without
// waiting for the disk (synchronous_commit off).
func FreshURL(tb testing.TB) string {
	tb.Helper()
	return fresh(tb, "")
}

// FreshURLFrom is FreshURL with the new database a copy of template, a database Template
// made: the same schema and rows, made once per test binary instead of once per test.
func FreshURLFrom(tb testing.TB, template string) string {
	tb.Helper()
	return fresh(tb, template)
}

// fresh creates the database of FreshURL, a copy of template unless that is empty.
func fresh(tb testing.TB, template string) string {
	tb.Helper()
	base := ServerURL(tb)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatal(err)
	}
	name := "consentd_test_" + strings.ToLower(rand.Text()[:16])
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if _, err := admin.Exec(create); err != nil {
		admin.Close()
		tb.Fatalf("create test database: %v", err)
	}
	// A test database's commits do not wait for the WAL to reach the disk: each fsync costs
	// about 10 ms on the CI machine, and a migration alone commits some 80 times. What a commit
	// makes visible is the same (other sessions see it at once); only a crash of the server
	// itself could lose it, which no test does. Sessions opened by child processes (the crash
	// tests' children, the consentd binary) get the setting too, from the database.
	if _, err := admin.Exec("ALTER DATABASE " + name + " SET synchronous_commit = off"); err != nil {
		admin.Close()
		tb.Fatalf("set up test database: %v", err)
	}
	tb.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			tb.Errorf("drop test database %s: %v", name, err)
		}
	})
	return withDatabase(tb, base, name)
}

// withDatabase is the server URL base with the database name.
func withDatabase(tb testing.TB, base, name string) string {
	tb.Helper()
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

var (
	templatesMu sync.Mutex
	templates   []string
)

// Template creates a database on the test server, runs prepare on its URL, and returns its
// name, for FreshURLFrom. prepare must close every connection it opens: Postgres copies only
// a database nobody is connected to. The database outlives tb (tb only skips or fails the
// test without a server); DropTemplates, called from TestMain, drops it. Tests share one
// template through a sync.Once or sync.OnceValues of their own.
func Template(tb testing.TB, prepare func(url string) error) (string, error) {
	tb.Helper()
	base := ServerURL(tb)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	name := "consentd_template_" + strings.ToLower(rand.Text()[:16])
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		return "", fmt.Errorf("create template database: %w", err)
	}
	templatesMu.Lock()
	templates = append(templates, name)
	templatesMu.Unlock()
	if _, err := admin.Exec("ALTER DATABASE " + name + " SET synchronous_commit = off"); err != nil {
		return "", fmt.Errorf("set up template database: %w", err)
	}
	if err := prepare(withDatabase(tb, base, name)); err != nil {
		return "", fmt.Errorf("prepare template database: %w", err)
	}
	return name, nil
}

// DropTemplates drops the databases Template made; TestMain calls it after the tests.
func DropTemplates() {
	templatesMu.Lock()
	defer templatesMu.Unlock()
	if len(templates) == 0 {
		return
	}
	base := os.Getenv(EnvURL)
	if base == "" {
		base = probed
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: drop templates: %v\n", err)
		return
	}
	defer admin.Close()
	for _, name := range templates {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: drop template database %s: %v\n", name, err)
		}
	}
	templates = nil
}
