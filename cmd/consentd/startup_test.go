package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeOnTakenPortCreatesNothing: on a fresh database, a taken port fails before the
// organization and key are made, so the key the next start prints is not lost.
func TestServeOnTakenPortCreatesNothing(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	env := []string{"CONSENTD_DATABASE_URL=sqlite://" + filepath.Join(t.TempDir(), "c.db"), "CONSENTD_ADDR=" + ln.Addr().String()}
	if _, stderr, err := runCLI(t, env, "serve"); err == nil || !strings.Contains(stderr, "listen on") {
		t.Fatalf("serve on a taken port: %v %s", err, stderr)
	}
	out, stderr, err := runCLI(t, env, "org", "list")
	if err != nil || strings.TrimSpace(out) != "[]" {
		t.Fatalf("org list after the failed start: %v %q %s; want no organization", err, out, stderr)
	}
}

// TestBadSettingsFailBeforeAnything: a bad address or a SQLite file in a missing directory is
// reported, naming the setting, before a database is created or migrated.
func TestBadSettingsFailBeforeAnything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	_, stderr, err := runCLI(t, []string{"CONSENTD_DATABASE_URL=sqlite://" + db, "CONSENTD_ADDR=127.0.0.1:http"}, "serve")
	if err == nil || !strings.Contains(stderr, "CONSENTD_ADDR") {
		t.Fatalf("bad address: %v %s", err, stderr)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("the database was created before the address was checked: %v", err)
	}
	missing := filepath.Join(dir, "no", "such", "dir", "c.db")
	_, stderr, err = runCLI(t, []string{"CONSENTD_DATABASE_URL=sqlite://" + missing}, "migrate")
	if err == nil || !strings.Contains(stderr, "does not exist") {
		t.Fatalf("missing directory: %v %s", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); !os.IsNotExist(err) {
		t.Fatal("a missing directory was created")
	}
}

// TestOrgByName: org list shows organizations; --org takes a name as well as an ID, and an
// ambiguous or unknown name is refused.
func TestOrgByName(t *testing.T) {
	t.Parallel()
	env := []string{"CONSENTD_DATABASE_URL=sqlite://" + filepath.Join(t.TempDir(), "c.db")}
	for _, name := range []string{"Acme", "Twin", "Twin"} {
		if _, stderr, err := runCLI(t, env, "org", "create", "--name", name); err != nil {
			t.Fatalf("org create: %v %s", err, stderr)
		}
	}
	out, _, err := runCLI(t, env, "org", "list")
	var orgs []map[string]any
	if err != nil || json.Unmarshal([]byte(out), &orgs) != nil || len(orgs) != 3 || orgs[0]["name"] != "Acme" {
		t.Fatalf("org list: %v %s", err, out)
	}
	out, stderr, err := runCLI(t, env, "site", "create", "--org", "Acme", "--name", "Shop", "--url", "https://shop.example")
	var site map[string]any
	if err != nil || json.Unmarshal([]byte(out), &site) != nil || site["organizationId"] != orgs[0]["id"] {
		t.Fatalf("site create --org Acme: %v %s %s", err, out, stderr)
	}
	if _, stderr, err := runCLI(t, env, "apikey", "create", "--org", "Twin"); err == nil || !strings.Contains(stderr, "several") {
		t.Fatalf("ambiguous name: %v %s", err, stderr)
	}
	if _, stderr, err := runCLI(t, env, "apikey", "create", "--org", "Nobody"); err == nil || !strings.Contains(stderr, "not found") {
		t.Fatalf("unknown name: %v %s", err, stderr)
	}
}

// TestScanReadsAllowPrivateVariable: the variable the refusal message names works for
// 'consentd scan'.
func TestScanReadsAllowPrivateVariable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body>hi</body></html>`)
	}))
	defer srv.Close()
	_, stderr, err := runCLI(t, nil, "scan", srv.URL+"/")
	if err == nil || !strings.Contains(stderr, "CONSENTD_SCAN_ALLOW_PRIVATE") {
		t.Fatalf("private target without the setting: %v %s", err, stderr)
	}
	if _, stderr, err := runCLI(t, []string{"CONSENTD_SCAN_ALLOW_PRIVATE=true"}, "scan", srv.URL+"/"); err != nil {
		t.Fatalf("with CONSENTD_SCAN_ALLOW_PRIVATE=true: %v %s", err, stderr)
	}
}
