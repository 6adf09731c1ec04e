package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/crawler/browser/browsertest"
)

// asCLIEnv, set to 1, makes the test binary run consentd's main instead of the tests: the
// tests run the binary that holds them as consentd, instead of linking a second one with go
// build (seconds of a two-core machine, more on a busy one). It is the same package compiled
// the same way, main and all; only the version's VCS stamp differs, which go test leaves out.
const asCLIEnv = "CONSENTD_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLIEnv) == "1" {
		main()
		os.Exit(0)
	}
	// Every command the tests start inherits it, whatever environment they add.
	os.Setenv(asCLIEnv, "1") //nolint:errcheck // a fixed valid name and value
	// Most tests wait on the processes they start (a slow page, a rescue, a shutdown): two
	// parallel slots more than go test's default. Alone on two cores the package took 58 s
	// with two slots, 35 s with four.
	browsertest.Parallel(2)
	os.Exit(m.Run())
}

// cli is the consentd command the tests run: this test binary, as TestMain explains.
func cli(t *testing.T) string {
	t.Helper()
	path, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func runCLI(t *testing.T, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(cli(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// TestAdminCommands runs org create, apikey create and site create as README.md describes
// them, with the database named by the environment, and checks their JSON.
func TestAdminCommands(t *testing.T) {
	t.Parallel()
	env := []string{"CONSENTD_DATABASE_URL=sqlite://" + filepath.Join(t.TempDir(), "cli.db")}
	if _, stderr, err := runCLI(t, env, "migrate"); err != nil {
		t.Fatalf("migrate: %v %s", err, stderr)
	}
	out, stderr, err := runCLI(t, env, "org", "create", "--name", "Acme")
	if err != nil {
		t.Fatalf("org create: %v %s", err, stderr)
	}
	var org map[string]any
	if err := json.Unmarshal([]byte(out), &org); err != nil || org["name"] != "Acme" || org["id"] == nil || org["createdAt"] == nil || len(org) != 3 {
		t.Fatalf("org create printed %s", out)
	}
	orgID := org["id"].(string)
	out, _, err = runCLI(t, env, "apikey", "create", "--org", orgID, "--name", "ci")
	var key map[string]string
	if err != nil || json.Unmarshal([]byte(out), &key) != nil || key["organizationId"] != orgID || !strings.HasPrefix(key["key"], "cd_") || key["id"] == "" || len(key) != 3 {
		t.Fatalf("apikey create: %v %s", err, out)
	}
	out, _, err = runCLI(t, env, "site", "create", "--org", orgID, "--name", "Shop", "--url", "https://shop.example")
	var site map[string]any
	if err != nil || json.Unmarshal([]byte(out), &site) != nil || site["organizationId"] != orgID || site["projectKey"] == nil || site["url"] != "https://shop.example" {
		t.Fatalf("site create: %v %s", err, out)
	}
	// errors are reported, with a non-zero exit
	if _, stderr, err := runCLI(t, env, "site", "create", "--org", orgID, "--name", "Bad", "--url", "nope"); err == nil || !strings.Contains(stderr, "url") {
		t.Fatalf("bad url accepted: %v %s", err, stderr)
	}
	if _, _, err := runCLI(t, env, "apikey", "create", "--org", "00000000-0000-7000-8000-000000000000"); err == nil {
		t.Fatal("key for a missing organization")
	}
	if _, _, err := runCLI(t, env, "frobnicate"); err == nil {
		t.Fatal("unknown command succeeded")
	}
	// The audit log names the command as the system actor that created the site and key.
	a, err := app.New(context.Background(), app.Config{DatabaseURL: strings.TrimPrefix(env[0], "CONSENTD_DATABASE_URL="), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	log, err := a.UseCases().AuditLog.AuditEntries(core.WithActor(context.Background(), core.System("consentd tests")), orgID, identity.AuditQuery{}, "")
	if err != nil {
		t.Fatal(err)
	}
	actors := map[string]string{}
	for _, e := range log.Entries {
		actors[e.Action] = e.ActorKind + " " + e.ActorName
	}
	if actors[core.AuditSiteCreate] != "system consentd site create" || actors[core.AuditKeyCreate] != "system consentd apikey create" {
		t.Fatalf("audit log actors: %v, want the commands as system actors", actors)
	}
}

// TestLibraryCommands lints a directory and imports a small Open Cookie Database CSV.
func TestLibraryCommands(t *testing.T) {
	out := t.TempDir()
	if _, stderr, err := runCLI(t, nil, "library", "import-ocd", "../../library/testdata/ocd-sample.csv", "--out", out); err != nil {
		t.Fatalf("import-ocd: %v %s", err, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) == 0 {
		t.Fatal("import-ocd wrote nothing")
	}
	if _, stderr, err := runCLI(t, nil, "library", "lint", out); err != nil {
		t.Fatalf("lint of the import: %v %s", err, stderr)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "x.json"), []byte(`{"slug":"x"}`), 0o644)
	if _, stderr, err := runCLI(t, nil, "library", "lint", bad); err == nil || !strings.Contains(stderr, "x.json") {
		t.Fatalf("lint passed a bad entry: %v %s", err, stderr)
	}
}

// TestConcurrentMigrateSQLite: three 'consentd migrate' started together on one new SQLite
// file all succeed, ten times over: River's tables are made under the same lock as the
// store's, and the switch to WAL waits for the others.
func TestConcurrentMigrateSQLite(t *testing.T) {
	t.Parallel()
	bin := cli(t)
	for round := range 10 {
		env := append(os.Environ(), "CONSENTD_DATABASE_URL=sqlite://"+filepath.Join(t.TempDir(), "new.db"))
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(bin, "migrate")
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("round %d, process %d: %v %s", round, i, err, out)
				}
			}()
		}
		wg.Wait()
	}
}

// TestReadCommandsCreateNoDatabase: commands that only read or add to a deployment, run where
// there is none, create no database and name the one they looked for; where there is one, a
// missing organization is reported with the database's name.
func TestReadCommandsCreateNoDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "consentd.db")
	env := []string{"CONSENTD_DATABASE_URL=sqlite://" + db}
	for _, args := range [][]string{
		{"apikey", "create", "--org", "default"}, {"apikey", "list", "--org", "default"}, {"org", "list"},
		{"site", "create", "--org", "default", "--name", "S", "--url", "https://s.example"},
		{"records", "verify", "--site", "x"}, {"backup", "--to", filepath.Join(dir, "copy.db")},
	} {
		_, stderr, err := runCLI(t, env, args...)
		if err == nil || !strings.Contains(stderr, "sqlite://"+db+" does not exist") {
			t.Errorf("%v: %v %s", args, err, stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("%v left %v", args, entries)
		}
	}
	if _, stderr, err := runCLI(t, env, "migrate"); err != nil {
		t.Fatal(err, stderr)
	}
	_, stderr, err := runCLI(t, env, "apikey", "create", "--org", "default")
	if err == nil || !strings.Contains(stderr, `organization "default" not found (in database sqlite://`+db+")") {
		t.Fatalf("apikey create on a database without it: %v %s", err, stderr)
	}
}
