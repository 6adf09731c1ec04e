// Command consentd is the consent management service: `consentd serve` runs it, the other
// commands administer it. Run `consentd help` for the list.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/consentd/consentd/core"
)

// A command is one of consentd's commands: its name (one or two words), its arguments as the
// usage line shows them, and what it does; usage and --help are made from this table.
type command struct {
	name, args, about string
	run               func(ctx context.Context, args []string) error
}

// commands are consentd's commands, in the order of the usage text (set in init, since they
// refer to the help, which reads the table).
var commands []command

func init() {
	commands = []command{
		{"serve", "[flags]", "HTTP API and in-process scan workers; applies pending migrations first", serve},
		{"worker", "[flags]", "standalone scan worker (Postgres)", worker},
		{"proxy", "--upstream URL --site KEY", "reverse proxy in front of a site: holds in its pages what the banner would hold, before the browser fetches it (docs/edge.md)", proxy},
		{"migrate", "[flags]", "create the database or apply pending schema migrations, and exit", migrate},
		{"org create", "--name NAME", "create an organization (creates the database when there is none)", orgCreate},
		{"org list", "", "list organizations", orgList},
		{"apikey create", "--org ORG [--name LABEL]", "create an API key, shown once (ORG: an organization's ID or name)", apikeyCreate},
		{"apikey list", "--org ORG", "list keys (name, prefix, created, last used, expiry)", apikeyList},
		{"apikey revoke", "--org ORG ID", "revoke a key at once", apikeyRevoke},
		{"apikey rotate", "--org ORG ID [--grace 24h]", "new key; the old one works for the grace period", apikeyRotate},
		{"site create", "--org ORG --name NAME --url URL", "create a site", siteCreate},
		{"user create", "--email E --org ORG [--role R] [--name N]", "make a person a member; prints a one-time link to set their password", userCreate},
		{"user reset-password", "--email E", "print a one-time link (1 hour) to set a person's password", userResetPassword},
		{"user reset-totp", "--email E", "turn off a person's two-step sign-in and recovery codes (lost authenticator); audited", userResetTOTP},
		{"records verify", "--site ID", "recompute a site's consent log chain; exit 1 on a break", recordsVerify},
		{"scan", "[flags] URL [URL...]", "one-off scan, no database; prints JSON", scan},
		{"verify", "[flags] URL", "verify the banner is obeyed, per consent state, in a local browser; prints the compliance report; exit 1 on findings", func(ctx context.Context, args []string) error {
			return verify(ctx, args, os.Stdout)
		}},
		{"library lint", "DIR", "validate a directory of library entries", func(_ context.Context, args []string) error { return libraryLint(args) }},
		{"library import-ocd", "FILE.csv --out DIR", "convert Open Cookie Database CSV to library entries", func(_ context.Context, args []string) error { return libraryImportOCD(args) }},
		{"backup", "--to FILE", "online copy of the SQLite database (VACUUM INTO)", backup},
		{"geoip", "[--geoip-db FILE] [ADDRESS...]", "which geolocation database serve uses, its build date and licence; where each ADDRESS is", func(_ context.Context, args []string) error {
			return geoipCmd(args, os.Stdout)
		}},
		{"version", "", "version, commit and Go version", func(_ context.Context, args []string) error { return versionCmd(args) }},
	}
}

// findCommand is the command called name.
func findCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// printUsage writes the list of commands.
func printUsage(w io.Writer) {
	fmt.Fprint(w, "consentd: self-hostable consent management.\n\nUsage:\n")
	for _, c := range commands {
		line := "consentd " + c.name
		if c.args != "" && c.args != "[flags]" {
			line += " " + c.args
		}
		if len(line) > 44 {
			fmt.Fprintf(w, "  %s\n  %-44s  %s\n", line, "", c.about)
			continue
		}
		fmt.Fprintf(w, "  %-44s  %s\n", line, c.about)
	}
	fmt.Fprint(w, "\nEvery flag also reads CONSENTD_<FLAG> from the environment (dashes as underscores);\n"+
		"'consentd COMMAND --help' lists a command's flags, their variables and defaults.\n")
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:])
	closeLog()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		code := 1
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
			if ee.err == nil {
				os.Exit(code)
			}
		}
		fmt.Fprintln(os.Stderr, "consentd:", err)
		os.Exit(code)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		printUsage(os.Stderr)
		return fmt.Errorf("missing command")
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "--help":
		if len(rest) > 0 {
			// consentd help COMMAND is COMMAND --help.
			return run(ctx, append(rest, "--help"))
		}
		printUsage(os.Stdout)
		return nil
	case "--version":
		name = "version"
	}
	if len(rest) > 0 {
		if c, ok := findCommand(name + " " + rest[0]); ok {
			// The administration commands act as the operator: the audit log names the command.
			return c.run(core.WithActor(ctx, core.System("consentd "+c.name)), rest[1:])
		}
	}
	if c, ok := findCommand(name); ok {
		return c.run(ctx, rest)
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	suggestion := ""
	if c := closestCommand(strings.Join(args[:min(2, len(args))], " "), names); c != "" {
		suggestion = fmt.Sprintf(" (did you mean 'consentd %s'?)", c)
	}
	return fmt.Errorf("unknown command %q%s; 'consentd help' lists the commands", strings.Join(args[:min(2, len(args))], " "), suggestion)
}

// closestCommand is the command nearest to what was typed, in its first word or both.
func closestCommand(typed string, names []string) string {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	if c := closest(typed, known, 3); c != "" {
		return c
	}
	first, _, _ := strings.Cut(typed, " ")
	return closest(first, known, 2)
}
