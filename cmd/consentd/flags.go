package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/consentd/consentd/app"
)

// newFlags returns the flag set of the command name; bind adds its settings.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("consentd "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() { printHelp(os.Stdout, fs) }
	return fs
}

// bind adds the setting name (a row of settings) to fs, storing into p (*string, *bool, *int,
// *float64, *time.Duration or *[]string, the last comma-separated or repeated), with the
// table's default and usage, or usage[0] when the command gives a more precise one.
func bind(fs *flag.FlagSet, name string, p any, usage ...string) {
	s := lookupSetting(name)
	u := s.usage
	if len(usage) > 0 {
		u = usage[0]
	}
	var v flag.Value
	switch p := p.(type) {
	case *string:
		v = (*stringValue)(p)
	case *bool:
		v = (*boolValue)(p)
	case *int:
		v = (*intValue)(p)
	case *float64:
		v = (*floatValue)(p)
	case *time.Duration:
		v = (*durationValue)(p)
	case *[]string:
		v = (*repeatFlag)(p)
	default:
		panic(fmt.Sprintf("bind %s: unsupported type %T", name, p))
	}
	if s.def != "" {
		if err := v.Set(s.def); err != nil {
			panic(fmt.Sprintf("setting %s: default %q: %v", name, s.def, err))
		}
	}
	fs.Var(v, s.name, u)
	if s.alias != "" {
		fs.Var(v, s.alias, u)
	}
}

type (
	stringValue   string
	boolValue     bool
	intValue      int
	floatValue    float64
	durationValue time.Duration
)

func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }
func (v *stringValue) String() string     { return string(*v) }
func (v *stringValue) Get() any           { return string(*v) }

func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	*v = boolValue(b)
	return err
}
func (v *boolValue) String() string   { return strconv.FormatBool(bool(*v)) }
func (v *boolValue) Get() any         { return bool(*v) }
func (v *boolValue) IsBoolFlag() bool { return true }

func (v *intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err == nil {
		*v = intValue(n)
	}
	return err
}
func (v *intValue) String() string { return strconv.Itoa(int(*v)) }
func (v *intValue) Get() any       { return int(*v) }

func (v *floatValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err == nil {
		*v = floatValue(f)
	}
	return err
}
func (v *floatValue) String() string { return strconv.FormatFloat(float64(*v), 'g', -1, 64) }
func (v *floatValue) Get() any       { return float64(*v) }

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err == nil {
		*v = durationValue(d)
	}
	return err
}
func (v *durationValue) String() string { return time.Duration(*v).String() }
func (v *durationValue) Get() any       { return time.Duration(*v) }

// envName is a flag's environment variable.
func envName(flag string) string {
	return "CONSENTD_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// printHelp writes a command's usage line and its flags, each with its one variable and
// default, one alias at most.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	name := strings.TrimPrefix(fs.Name(), "consentd ")
	c, ok := findCommand(name)
	fmt.Fprintf(w, "Usage: consentd %s", name)
	if ok && c.args != "" {
		fmt.Fprintf(w, " %s", c.args)
	}
	fmt.Fprintln(w)
	if ok && c.about != "" {
		fmt.Fprintf(w, "\n%s\n", c.about)
	}
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		s := lookupSetting(f.Name)
		if f.Name != s.name {
			return // the alias is shown with its setting
		}
		if first {
			fmt.Fprintln(w, "\nFlags:")
			first = false
		}
		names := "--" + s.name
		if s.alias != "" && fs.Lookup(s.alias) != nil {
			names += ", --" + s.alias
		}
		fmt.Fprintf(w, "  %s\n      %s\n      (env %s, default %s)\n", names, f.Usage, envName(s.name), s.defaultText())
	})
}

// parse parses args, flags and positional arguments in any order ("--" ends the flags), then
// sets every setting not given on the command line from its environment variable, if present.
// It reports every problem at once, one line each: an unknown flag (with the closest one), a
// value that does not parse (naming the flag or variable and what was expected), and a
// CONSENTD_ variable that is no setting at all (a misspelling would otherwise be silently
// ignored). --help prints the command's help to stdout and returns flag.ErrHelp. It returns
// the positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	var errs []error
	set := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		if name == "h" || name == "help" {
			fs.Usage()
			return nil, flag.ErrHelp
		}
		f := fs.Lookup(name)
		if f == nil {
			errs = append(errs, fmt.Errorf("unknown flag --%s%s", name, suggestFlag(fs, name)))
			continue
		}
		if !hasVal {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				val = "true"
			} else if i+1 < len(args) {
				i++
				val = args[i]
			} else {
				errs = append(errs, fmt.Errorf("--%s needs a value", name))
				continue
			}
		}
		if err := f.Value.Set(val); err != nil {
			errs = append(errs, fmt.Errorf("--%s %q: expected %s", name, val, expected(f)))
		}
		set[lookupSetting(name).name] = true
	}
	known := map[string]bool{}
	for _, s := range settings {
		known[envName(s.name)] = true
	}
	fs.VisitAll(func(f *flag.Flag) {
		s := lookupSetting(f.Name)
		if f.Name != s.name || set[s.name] {
			return
		}
		env := envName(s.name)
		if v, ok := os.LookupEnv(env); ok {
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

// suggestFlag names the closest flag of fs to a mistyped one.
func suggestFlag(fs *flag.FlagSet, name string) string {
	names := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	if s := closest(name, names, 3); s != "" {
		return fmt.Sprintf(" (did you mean --%s?)", s)
	}
	return fmt.Sprintf(" ('%s --help' lists the flags)", fs.Name())
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
	if best := closest(k, known, 3); best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return " ('consentd COMMAND --help' lists them)"
}

// closest is the name nearest to k, at most max edits away ("" when none is).
func closest(k string, names map[string]bool, maxD int) string {
	best, bestD := "", maxD+1
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if d := distance(k, name); d < bestD {
			best, bestD = name, d
		}
	}
	return best
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

// logOptions are the log flags of every command.
var logOptions app.LogOptions

// storeFlags are the flags of every command that opens the database.
func storeFlags(fs *flag.FlagSet, cfg *app.Config) {
	bind(fs, "database-url", &cfg.DatabaseURL)
	bind(fs, "library-dir", &cfg.LibraryDir)
	bind(fs, "log-level", &logOptions.Level)
	bind(fs, "log-format", &logOptions.Format)
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

// logOut is the process's log output: standard error, written every logInterval (and at once
// after a warning or an error) rather than one write per line, and written out before the
// process exits (closeLog).
var (
	logOut  = sync.OnceValue(func() *app.LogBuffer { return app.NewLogBuffer(os.Stderr, logInterval) })
	logUsed atomic.Bool
)

const logInterval = 100 * time.Millisecond

func logger() (*slog.Logger, error) {
	o := logOptions
	if fi, err := os.Stderr.Stat(); err == nil {
		o.Terminal = fi.Mode()&os.ModeCharDevice != 0
	}
	if o.Terminal {
		// Someone reads it as it comes: each line is written at once.
		return app.NewLogger(os.Stderr, o)
	}
	logUsed.Store(true)
	out := logOut()
	o.Flush = out.Flush
	return app.NewLogger(out, o)
}

// closeLog writes what the log still holds.
func closeLog() {
	if logUsed.Load() {
		_ = logOut().Close()
	}
}

// configure parses a database command's settings into cfg and checks them, reporting every
// problem at once (values that do not parse, unknown flags and variables, and settings that
// cannot work). It returns the positional arguments.
func configure(fs *flag.FlagSet, args []string, cfg *app.Config) ([]string, error) {
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, err
	}
	l, lerr := logger()
	cfg.Logger = l
	return pos, errors.Join(err, lerr, cfg.Validate())
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
