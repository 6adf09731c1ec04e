package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/consentd/consentd/app"
)

// newFlags returns a flag set whose flags fall back to CONSENTD_<NAME> environment variables.
func newFlags(name string) *flag.FlagSet {
	return flag.NewFlagSet("consentd "+name, flag.ContinueOnError)
}

// parse parses args, flags and positional arguments in any order, then sets every flag not
// given on the command line from its environment variable, if present. It returns the
// positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		env := "CONSENTD_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(env); ok && !set[f.Name] && err == nil {
			if e := f.Value.Set(v); e != nil {
				err = fmt.Errorf("%s=%q: %v", env, v, e)
			}
		}
	})
	return pos, err
}

// storeFlags are the flags of every command that opens the database.
func storeFlags(fs *flag.FlagSet, cfg *app.Config) {
	fs.StringVar(&cfg.DatabaseURL, "database-url", "sqlite://consentd.db", "sqlite://PATH (embedded) or postgres://... (env CONSENTD_DATABASE_URL)")
	fs.StringVar(&cfg.LibraryDir, "library-dir", "", "directory of extra or overriding library entries (env CONSENTD_LIBRARY_DIR)")
}

// listFlag is a repeatable flag; one value may also hold several, separated by commas (as
// environment variables give them).
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

func logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func open(ctx context.Context, cfg app.Config) (*app.App, error) {
	if cfg.Logger == nil {
		cfg.Logger = logger()
	}
	return app.New(ctx, cfg)
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
