package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeSection is the text of the README's section that starts with heading, up to the next
// heading of its level.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no section %q", heading)
	}
	s = s[i+len(heading)+2:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

var readmeCommand = regexp.MustCompile("(?m)^\\| `consentd ([^`]*)` \\|")

// TestREADMECommandTable: the README's table of commands has a row for every command of the
// program (the table in main.go that usage and --help are made from) and none for a command
// the program lacks, each with the program's arguments.
func TestREADMECommandTable(t *testing.T) {
	sec := readmeSection(t, "## Commands")
	documented := map[string]bool{}
	for _, m := range readmeCommand.FindAllStringSubmatch(sec, -1) {
		line := m[1]
		var found *command
		for i, c := range commands {
			if (line == c.name || strings.HasPrefix(line, c.name+" ")) && (found == nil || len(c.name) > len(found.name)) {
				found = &commands[i]
			}
		}
		if found == nil {
			t.Errorf("README.md documents `consentd %s`, which is no command of the program", line)
			continue
		}
		documented[found.name] = true
		args := strings.TrimSpace(strings.TrimPrefix(found.args, "[flags]"))
		if got := strings.TrimSpace(strings.TrimPrefix(line, found.name)); got != args {
			t.Errorf("README.md shows `consentd %s`; the program's arguments are %q", line, args)
		}
	}
	for _, c := range commands {
		if !documented[c.name] {
			t.Errorf("README.md's command table lacks `consentd %s %s` (%s)", c.name, c.args, c.about)
		}
	}
}

var helpEnv = regexp.MustCompile(`\(env (CONSENTD_[A-Z0-9_]+), default`)

// TestREADMESettingsTable: the README's table of settings names every variable `serve` and
// `worker` read (as their --help lists them, from the settings table) and no other.
func TestREADMESettingsTable(t *testing.T) {
	var program []string
	for _, name := range []string{"serve", "worker"} {
		c, ok := findCommand(name)
		if !ok {
			t.Fatalf("no command %s", name)
		}
		help := stdoutOf(t, func() error { return c.run(context.Background(), []string{"--help"}) })
		for _, m := range helpEnv.FindAllStringSubmatch(help, -1) {
			if !slices.Contains(program, m[1]) {
				program = append(program, m[1])
			}
		}
	}
	if len(program) < 20 {
		t.Fatalf("only %d variables in the help of serve and worker", len(program))
	}
	sec := readmeSection(t, "## Commands")
	start := strings.Index(sec, "| variable | default | meaning |")
	if start < 0 {
		t.Fatal("README.md's Commands section has no settings table")
	}
	var readme []string
	for _, row := range strings.Split(sec[start:], "\n")[2:] {
		if !strings.HasPrefix(row, "|") {
			break
		}
		first := strings.SplitN(row[1:], "|", 2)[0]
		readme = append(readme, regexp.MustCompile(`CONSENTD_[A-Z0-9_]+`).FindAllString(first, -1)...)
	}
	for _, v := range program {
		if !slices.Contains(readme, v) {
			t.Errorf("README.md's settings table lacks %s, which serve or worker reads", v)
		}
	}
	for _, v := range readme {
		if !slices.Contains(program, v) {
			t.Errorf("README.md's settings table names %s, which neither serve nor worker reads", v)
		}
	}
}

// stdoutOf runs fn with the process's standard output captured (not in parallel tests).
func stdoutOf(t *testing.T, fn func() error) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() { b, _ := io.ReadAll(r); done <- string(b) }()
	err = fn()
	os.Stdout = old
	w.Close()
	out := <-done
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("%v\n%s", err, out)
	}
	return out
}
