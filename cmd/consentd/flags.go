package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/app"
)

// newFlags returns a flag set whose flags fall back to CONSENTD_<NAME> environment variables
// and whose --help lists each flag with its variable and default.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("consentd "+name, flag.ContinueOnError)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
		fs.VisitAll(func(f *flag.Flag) {
			def := f.DefValue
			if def == "" {
				def = "unset"
			}
			fmt.Fprintf(out, "  --%s\n      %s\n      (env %s, default %s)\n", f.Name, f.Usage, envName(f.Name), def)
		})
	}
	return fs
}

// envName is a flag's environment variable.
func envName(flag string) string {
	return "CONSENTD_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// settings are the flags of every command, so that a variable meant for another command is not
// reported as misspelled.
var settings = []string{
	"addr", "database-url", "library-dir", "workers", "public-url", "bootstrap-api-key", "scan-allow-private",
	"country-header", "public-rate-limit", "trusted-proxies", "log-level", "log-format", "console", "rescan-interval",
	"scan-timeout", "scan-max-attempts", "scan-retry-base", "scan-rescue-after", "shutdown-timeout",
	"max-pages", "allow-private", "password", "org", "name", "url", "out", "to", "grace", "site",
	"scan-mode", "scan-browsers", "scan-connect-to", "scan-ca-cert", "chromium-path", "mode", "connect-to", "ca-cert",
	"project-key", "fail-on", "json", "categories",
}

// parse parses args, flags and positional arguments in any order, then sets every flag not
// given on the command line from its environment variable, if present. It reports every
// problem at once: a value that does not parse, naming the variable and what was expected,
// and a CONSENTD_ variable that is no setting at all (a misspelling would otherwise be silently
// ignored). It returns the positional arguments.
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
	known := map[string]bool{}
	for _, s := range settings {
		known[envName(s)] = true
	}
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		env := envName(f.Name)
		known[env] = true
		if v, ok := os.LookupEnv(env); ok && !set[f.Name] {
			if e := f.Value.Set(v); e != nil {
				errs = append(errs, fmt.Errorf("%s=%q: expected %s", env, v, expected(f)))
			}
		}
	})
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CONSENTD_") && !known[k] && !strings.HasPrefix(k, "CONSENTD_TEST_") {
			errs = append(errs, fmt.Errorf("%s is not a setting%s", k, suggest(k, known)))
		}
	}
	return pos, errors.Join(errs...)
}

// expected says what a flag's value must look like.
func expected(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "a valid value"
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case time.Duration:
		return "a duration such as 30s, 5m or 720h"
	}
	return "a valid value"
}

// suggest names the closest setting to a misspelled variable.
func suggest(k string, known map[string]bool) string {
	best, bestD := "", 4
	for name := range known {
		if d := distance(k, name); d < bestD {
			best, bestD = name, d
		}
	}
	if best == "" {
		return " ('consentd COMMAND --help' lists them)"
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = slices.Min([]int{prev[j] + 1, cur[j-1] + 1, prev[j-1] + cost})
		}
		prev = cur
	}
	return prev[len(b)]
}

// listFlag is a comma-separated list flag.
type listFlag struct{ v *[]string }

func (l listFlag) String() string {
	if l.v == nil {
		return ""
	}
	return strings.Join(*l.v, ",")
}

func (l listFlag) Set(s string) error {
	*l.v = nil
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l.v = append(*l.v, p)
		}
	}
	return nil
}

// logOptions are the log flags of every command.
var logOptions app.LogOptions

// storeFlags are the flags of every command that opens the database.
func storeFlags(fs *flag.FlagSet, cfg *app.Config) {
	fs.StringVar(&cfg.DatabaseURL, "database-url", "sqlite://consentd.db", "sqlite://PATH (embedded) or postgres://...")
	fs.StringVar(&cfg.LibraryDir, "library-dir", "", "directory of extra or overriding library entries")
	fs.StringVar(&logOptions.Level, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&logOptions.Format, "log-format", "auto", "json, text, or auto: text on a terminal, JSON otherwise")
}

// repeatFlag is a repeatable flag; one value may also hold several, separated by commas (as
// environment variables give them).
type repeatFlag []string

func (l *repeatFlag) String() string { return strings.Join(*l, ",") }

func (l *repeatFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

func logger() (*slog.Logger, error) {
	o := logOptions
	if fi, err := os.Stderr.Stat(); err == nil {
		o.Terminal = fi.Mode()&os.ModeCharDevice != 0
	}
	return app.NewLogger(os.Stderr, o)
}

func open(ctx context.Context, cfg app.Config) (*app.App, error) {
	if cfg.Logger == nil {
		l, err := logger()
		if err != nil {
			return nil, errors.Join(err, cfg.Validate())
		}
		cfg.Logger = l
	}
	// Traces and metrics go where the standard OTEL_ variables say, for every command.
	cfg.Telemetry = app.TelemetryFromEnv(os.Getenv, buildVersion().Version)
	return app.New(ctx, cfg)
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
