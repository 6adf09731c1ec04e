package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	out, _, _ := runCLI(t, nil, "serve", "--help")
	for _, w := range []string{"--workers", "(env CONSENTD_WORKERS, default 4)", "(env CONSENTD_ADDR, default 127.0.0.1:8080)", "CONSENTD_TRUSTED_PROXIES", "CONSENTD_LOG_LEVEL"} {
		if !strings.Contains(out, w) {
			t.Errorf("help lacks %q:\n%s", w, out)
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
	t.Parallel()
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
	t.Parallel()
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

// TestHelpAgreesWithSettings reads every command's --help (on stdout, like 'consentd help')
// and checks each flag against the settings table: its one variable, its one default, its alias
// (at most one), and that every flag of every command is in the table, so that a variable set
// for one command (say in a shared environment file) is not refused as a misspelling by another.
func TestHelpAgreesWithSettings(t *testing.T) {
	t.Parallel()
	byName := map[string]setting{}
	for _, s := range settings {
		if _, dup := byName[s.name]; dup {
			t.Errorf("setting %s appears twice", s.name)
		}
		byName[s.name] = s
	}
	for _, s := range settings {
		if _, clash := byName[s.alias]; clash {
			t.Errorf("alias --%s of %s is also a setting", s.alias, s.name)
		}
	}
	top, stderr, err := runCLI(t, nil, "help")
	if err != nil || stderr != "" || !strings.Contains(top, "Usage:") {
		t.Fatalf("consentd help: %v %q %s", err, stderr, top)
	}
	for _, c := range commands {
		if !strings.Contains(top, "consentd "+c.name) || !strings.Contains(top, c.about) {
			t.Errorf("consentd help lacks %s or its description", c.name)
		}
		out, stderr, err := runCLI(t, nil, append(strings.Fields(c.name), "--help")...)
		if err != nil || stderr != "" {
			t.Errorf("%s --help: %v, stderr %q", c.name, err, stderr)
			continue
		}
		wantUsage := "Usage: consentd " + c.name
		if c.args != "" {
			wantUsage += " " + c.args
		}
		if !strings.HasPrefix(out, wantUsage+"\n") {
			t.Errorf("%s --help starts %q, want %q", c.name, strings.SplitN(out, "\n", 2)[0], wantUsage)
		}
		lines := strings.Split(out, "\n")
		for i, line := range lines {
			if !strings.HasPrefix(line, "  --") {
				continue
			}
			names := strings.Split(strings.TrimSpace(line), ", ")
			s, ok := byName[strings.TrimPrefix(names[0], "--")]
			if !ok {
				t.Errorf("%s: flag %s is missing from settings", c.name, names[0])
				continue
			}
			if len(names) > 2 || (len(names) == 2 && names[1] != "--"+s.alias) {
				t.Errorf("%s: %s shows aliases %v, the table has %q", c.name, s.name, names[1:], s.alias)
			}
			if i+2 >= len(lines) {
				t.Fatalf("%s: %s has no variable line", c.name, s.name)
			}
			if want := fmt.Sprintf("      (env %s, default %s)", envName(s.name), s.defaultText()); lines[i+2] != want {
				t.Errorf("%s: %s shows %q, want %q", c.name, s.name, lines[i+2], want)
			}
			if n := strings.Count(out, "(env "+envName(s.name)+","); n != 1 {
				t.Errorf("%s: %s is shown %d times", c.name, envName(s.name), n)
			}
		}
	}
}

// TestSettingDefaultsParse: the table's defaults are what the flags start with.
func TestSettingDefaultsParse(t *testing.T) {
	for _, s := range settings {
		if s.def == "" {
			continue
		}
		fs := newFlags("test")
		var (
			str string
			b   bool
			n   int
			d   time.Duration
		)
		var p any = &str
		switch {
		case s.def == "true" || s.def == "false":
			p = &b
		case strings.HasSuffix(s.def, "s") && strings.ContainsAny(s.def, "0123456789") && !strings.Contains(s.def, ":"):
			p = &d
		case strings.Trim(s.def, "0123456789") == "":
			p = &n
		}
		bind(fs, s.name, p)
		if got := fs.Lookup(s.name).Value.String(); got != s.def {
			t.Errorf("%s: default %q reads back as %q", s.name, s.def, got)
		}
	}
}

// TestAllSettingErrorsAtOnce: three bad settings, from the environment and the command line,
// give three lines at once, and nothing is created.
func TestAllSettingErrorsAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"CONSENTD_DATABASE_URL=sqlite://" + filepath.Join(dir, "c.db"), "CONSENTD_WORKERS=many", "CONSENTD_ADDR=nowhere"}
	_, stderr, err := runCLI(t, env, "serve", "--log-level", "loud", "--scan-timeot", "1m")
	if err == nil {
		t.Fatal("serve started")
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for _, w := range []string{"CONSENTD_WORKERS", "CONSENTD_ADDR", "CONSENTD_LOG_LEVEL", "--scan-timeot (did you mean --scan-timeout?)"} {
		n := 0
		for _, l := range lines {
			if strings.Contains(l, w) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%q on %d lines, want 1:\n%s", w, n, stderr)
		}
	}
	if len(lines) != 4 {
		t.Errorf("%d lines for four problems:\n%s", len(lines), stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files created: %v", entries)
	}
}
