// Package pgtest gives tests a fresh Postgres database of their own on the server named by
// CONSENTD_TEST_POSTGRES_URL.
package pgtest

import (
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
)

// EnvURL names the variable holding the test server's URL.
const EnvURL = "CONSENTD_TEST_POSTGRES_URL"

// ServerURL returns the test server's URL. Without one the test is skipped loudly, except
// under CI=true, where it fails: CI must run the Postgres tests.
func ServerURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal(EnvURL + " is not set, and CI=true requires the Postgres tests to run")
		}
		tb.Skip("SKIPPED: this Postgres test needs " + EnvURL +
			" (e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)")
	}
	return u
}

// FreshURL creates a database with a random name on the test server and returns its URL; the
// database is dropped (with its connections) when tb ends.
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
