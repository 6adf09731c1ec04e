package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMisconfiguration: every bad setting stops the command before anything is created, with
// a message naming the setting.
func TestMisconfiguration(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		want []string
	}{
		{"bad database url", []string{"CONSENTD_DATABASE_URL=mysql://x"}, []string{"CONSENTD_DATABASE_URL"}},
		{"bad address", []string{"CONSENTD_ADDR=localhost"}, []string{"CONSENTD_ADDR", "HOST:PORT"}},
		{"bad port", []string{"CONSENTD_ADDR=127.0.0.1:99999"}, []string{"CONSENTD_ADDR"}},
		{"unknown log level", []string{"CONSENTD_LOG_LEVEL=loud"}, []string{"CONSENTD_LOG_LEVEL", "debug, info, warn or error"}},
		{"non-numeric workers", []string{"CONSENTD_WORKERS=abc"}, []string{"CONSENTD_WORKERS", "integer"}},
		{"misspelled variable", []string{"CONSENTD_WORKER=2"}, []string{"CONSENTD_WORKER is not a setting", "CONSENTD_WORKERS"}},
		{"bad proxies", []string{"CONSENTD_TRUSTED_PROXIES=10.0.0.0/99"}, []string{"CONSENTD_TRUSTED_PROXIES"}},
		{"bad OTLP protocol", []string{"OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_PROTOCOL=carrier-pigeon"}, []string{"OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_"}},
		{"several at once", []string{"CONSENTD_WORKERS=x", "CONSENTD_SCAN_TIMEOUT=soon"}, []string{"CONSENTD_WORKERS", "CONSENTD_SCAN_TIMEOUT", "duration"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "never.db")
			env := append([]string{"CONSENTD_DATABASE_URL=sqlite://" + db, "CONSENTD_ADDR=127.0.0.1:0"}, tc.env...)
			_, stderr, err := runCLI(t, env, "serve")
			if err == nil {
				t.Fatal("serve started")
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("files created before the configuration was refused: %v", entries)
			}
		})
	}
}

func TestHelpShowsVariablesAndDefaults(t *testing.T) {
	_, stderr, _ := runCLI(t, nil, "serve", "--help")
	for _, w := range []string{"--workers", "(env CONSENTD_WORKERS, default 4)", "(env CONSENTD_ADDR, default 127.0.0.1:8080)", "CONSENTD_TRUSTED_PROXIES", "CONSENTD_LOG_LEVEL"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("help lacks %q:\n%s", w, stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	out, stderr, err := runCLI(t, nil, "version")
	if err != nil || !strings.HasPrefix(out, "consentd ") || !strings.Contains(out, "commit ") || !strings.Contains(out, "go1.") {
		t.Fatalf("version: %q %s %v", out, stderr, err)
	}
}

// TestAPIKeyCommands: create, list, rotate and revoke from the CLI, --org by name.
func TestAPIKeyCommands(t *testing.T) {
	env := []string{"CONSENTD_DATABASE_URL=sqlite://" + filepath.Join(t.TempDir(), "keys.db")}
	run := func(args ...string) string {
		t.Helper()
		out, stderr, err := runCLI(t, env, args...)
		if err != nil {
			t.Fatalf("%v: %v %s", args, err, stderr)
		}
		return out
	}
	run("org", "create", "--name", "Acme")
	var created struct{ ID, Key string }
	json.Unmarshal([]byte(run("apikey", "create", "--org", "Acme", "--name", "ci")), &created) //nolint:errcheck // checked below
	var list []map[string]any
	json.Unmarshal([]byte(run("apikey", "list", "--org", "Acme")), &list) //nolint:errcheck // checked below
	if len(list) != 1 || list[0]["id"] != created.ID || list[0]["name"] != "ci" || !strings.HasPrefix(created.Key, list[0]["prefix"].(string)) {
		t.Fatalf("list: %v (created %+v)", list, created)
	}
	if strings.Contains(run("apikey", "list", "--org", "Acme"), created.Key) {
		t.Fatal("list shows the key itself")
	}
	var rotated struct {
		ID, Key  string
		Previous struct {
			ID        string
			ExpiresAt string
		}
	}
	json.Unmarshal([]byte(run("apikey", "rotate", "--org", "Acme", "--grace", "1h", created.ID)), &rotated) //nolint:errcheck // checked below
	if rotated.Key == "" || rotated.Previous.ID != created.ID || rotated.Previous.ExpiresAt == "" {
		t.Fatalf("rotate: %+v", rotated)
	}
	run("apikey", "revoke", "--org", "Acme", created.ID)
	json.Unmarshal([]byte(run("apikey", "list", "--org", "Acme")), &list) //nolint:errcheck // checked below
	if len(list) != 1 || list[0]["id"] != rotated.ID {
		t.Fatalf("after revoke: %v", list)
	}
	if _, _, err := runCLI(t, env, "apikey", "revoke", "--org", "Acme", created.ID); err == nil {
		t.Fatal("revoking twice succeeded")
	}
}

// TestBackupRestore: a backup taken from a live database opens as a database with the same
// organizations.
func TestBackupRestore(t *testing.T) {
	dir := t.TempDir()
	env := []string{"CONSENTD_DATABASE_URL=sqlite://" + filepath.Join(dir, "live.db")}
	if _, stderr, err := runCLI(t, env, "org", "create", "--name", "Backed up"); err != nil {
		t.Fatal(err, stderr)
	}
	copyPath := filepath.Join(dir, "copy.db")
	if _, stderr, err := runCLI(t, env, "backup", "--to", copyPath); err != nil {
		t.Fatal(err, stderr)
	}
	if _, _, err := runCLI(t, env, "backup", "--to", copyPath); err == nil {
		t.Fatal("backup overwrote an existing file")
	}
	restored := filepath.Join(dir, "restored.db")
	if err := os.Rename(copyPath, restored); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCLI(t, []string{"CONSENTD_DATABASE_URL=sqlite://" + restored}, "org", "list")
	if err != nil || !strings.Contains(out, `"Backed up"`) {
		t.Fatalf("restored database: %s %s %v", out, stderr, err)
	}
}

// TestEverySettingIsKnown: every flag of every command is in settings, so that a variable set
// for one command (say in a shared environment file) is not refused as a misspelling by another.
func TestEverySettingIsKnown(t *testing.T) {
	known := map[string]bool{}
	for _, s := range settings {
		known[envName(s)] = true
	}
	for _, cmd := range [][]string{
		{"serve"}, {"worker"}, {"migrate"}, {"org", "create"}, {"org", "list"}, {"apikey", "create"}, {"apikey", "list"},
		{"apikey", "revoke"}, {"apikey", "rotate"}, {"site", "create"}, {"scan"}, {"library", "lint"},
		{"library", "import-ocd"}, {"backup"}, {"version"},
	} {
		_, stderr, _ := runCLI(t, nil, append(cmd, "--help")...)
		if !strings.Contains(stderr, "Usage of consentd") {
			t.Errorf("%v --help: %s", cmd, stderr)
		}
		for _, line := range strings.Split(stderr, "\n") {
			_, rest, ok := strings.Cut(line, "(env ")
			if !ok {
				continue
			}
			name := strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ')' || r == ' ' })[0]
			if !known[name] {
				t.Errorf("%v: %s is missing from settings", cmd, name)
			}
		}
	}
}
