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
// Without either the test is skipped, with one loud line on standard error per test binary,
// except under CI=true, where it fails: CI must run the Postgres tests.
func ServerURL(tb testing.TB) string {
	tb.Helper()
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	probeOnce.Do(func() {
		if answers(DefaultURL) {
			probed = DefaultURL
			return
		}
		if os.Getenv("CI") != "true" {
			fmt.Fprintf(os.Stderr, "\n!!! SKIPPING the Postgres tests: %s is not set and no server answers at %s\n\n", EnvURL, DefaultURL)
		}
	})
	if probed != "" {
		return probed
	}
	if os.Getenv("CI") == "true" {
		tb.Fatal(EnvURL + " is not set, no server answers at " + DefaultURL + ", and CI=true requires the Postgres tests to run")
	}
	tb.Skip("SKIPPED: this Postgres test needs " + EnvURL + " or a server at " + DefaultURL)
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
	base := ServerURL(tb)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatal(err)
	}
	name := "consentd_test_" + strings.ToLower(rand.Text()[:16])
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
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
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
