// Command consentd is the consent management service: `consentd serve` runs it, the other
// commands administer it. Run `consentd help` for the list.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `consentd: self-hostable consent management.

Usage:
  consentd serve                        HTTP API and in-process scan workers
  consentd worker                       standalone scan worker (Postgres)
  consentd migrate                      apply schema migrations and exit
  consentd org create --name NAME       create an organization
  consentd org list                     list organizations
  consentd apikey create --org ORG [--name LABEL]
  consentd apikey list --org ORG         list keys (name, prefix, created, last used, expiry)
  consentd apikey revoke --org ORG ID    revoke a key at once
  consentd apikey rotate --org ORG ID [--grace 24h]
                                        new key; the old one works for the grace period
  consentd site create --org ORG --name NAME --url URL
                                        (ORG: an organization's ID or name)
  consentd records verify --site ID     recompute a site's consent log chain; exit 1 on a break
  consentd scan URL [URL...]            one-off scan, no database; prints JSON
  consentd verify URL [--fail-on error]  verify the banner is obeyed, per consent state, in a local
                                        browser; prints the compliance report; exit 1 on findings
  consentd library lint DIR             validate a directory of library entries
  consentd library import-ocd FILE.csv --out DIR
                                        convert Open Cookie Database CSV to library entries
  consentd backup --to FILE             online copy of the SQLite database (VACUUM INTO)
  consentd version                      version, commit and Go version

Every flag also reads CONSENTD_<FLAG> from the environment (dashes as underscores);
'consentd COMMAND --help' lists a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil && !errors.Is(err, flag.ErrHelp) {
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
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("missing command")
	}
	cmd, rest := args[0], args[1:]
	if (cmd == "org" || cmd == "apikey" || cmd == "site" || cmd == "library" || cmd == "records") && len(rest) > 0 {
		cmd, rest = cmd+" "+rest[0], rest[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, rest)
	case "worker":
		return worker(ctx, rest)
	case "migrate":
		return migrate(ctx, rest)
	case "org create":
		return orgCreate(ctx, rest)
	case "org list":
		return orgList(ctx, rest)
	case "apikey create":
		return apikeyCreate(ctx, rest)
	case "site create":
		return siteCreate(ctx, rest)
	case "records verify":
		return recordsVerify(ctx, rest)
	case "scan":
		return scan(ctx, rest)
	case "verify":
		return verify(ctx, rest, os.Stdout)
	case "library lint":
		return libraryLint(rest)
	case "library import-ocd":
		return libraryImportOCD(rest)
	case "version", "--version":
		return versionCmd(rest)
	case "apikey list":
		return apikeyList(ctx, rest)
	case "apikey revoke":
		return apikeyRevoke(ctx, rest)
	case "apikey rotate":
		return apikeyRotate(ctx, rest)
	case "backup":
		return backup(ctx, rest)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	}
	fmt.Fprint(os.Stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}
