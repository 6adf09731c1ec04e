// Command consentd-load drives a consentd server on loopback with concurrent consent posts and
// consent-record listings, prints throughput and latency percentiles, and checks that the
// site's total afterwards equals the number of posts answered 201.
//
//	consentd-load -database-url sqlite:///tmp/load.db -duration 10s
//	consentd-load -database-url 'postgres://postgres@127.0.0.1:5432/consentd_load?sslmode=disable'
//	consentd-load -processes 2 -consentd ./consentd -database-url 'postgres://…'
//
// The server is the real one (app.New and RunServer, public rate limit off) on 127.0.0.1; with
// no -database-url it uses a SQLite file in a temporary directory.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
	sitepkg "github.com/consentd/consentd/core/site"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "consentd-load:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("consentd-load", flag.ContinueOnError)
	dbURL := fs.String("database-url", "", "store to load: sqlite://PATH or postgres://... (default: SQLite in a temporary directory)")
	var l load
	fs.IntVar(&l.Posters, "posters", 64, "concurrent consent posters")
	fs.IntVar(&l.Listers, "listers", 2, "concurrent listers of page 1 with its total")
	fs.DurationVar(&l.Duration, "duration", 10*time.Second, "how long to run (at most 10m)")
	fs.IntVar(&l.Max, "max", 1_000_000, "stop after this many consent posts")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole process (server and load) to this file")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the whole process to this file at the end")
	webhook := fs.Bool("webhook", false, "subscribe a loopback receiver to consent.recorded and check that it gets every acknowledged record")
	workers := fs.Int("workers", 2, "job workers in the server (webhook deliveries; keep equal when comparing runs)")
	processes := fs.Int("processes", 0, "load this many `consentd serve` processes (the binary -consentd) on the same database instead of a server inside this process; reports records per chain batch")
	bin := fs.String("consentd", "", "the consentd binary -processes starts")
	sites := fs.Int("sites", 1, "with -processes: sites of one organization; poster i posts to site i mod sites through process i mod processes (sites = processes: each process writes a site of its own, no chain shared)")
	fs.BoolVar(&l.Config, "config", false, "with -processes: the posters GET the site's configuration instead of posting decisions (the servers' cost without the store)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if l.Posters < 1 || l.Listers < 0 || l.Duration <= 0 || l.Duration > 10*time.Minute || l.Max < 1 {
		return errors.New("posters must be at least 1, listers at least 0, duration in (0, 10m], max at least 1")
	}
	if *processes < 0 || *processes > 8 {
		return errors.New("processes must be between 0 and 8")
	}
	if *processes > 0 && (*webhook || *memProfile != "" || *bin == "" || *dbURL == "") {
		return errors.New("-processes needs -consentd and -database-url, and -webhook and -memprofile need the in-process server")
	}
	if *sites < 1 || *sites > 64 || (*processes == 0 && (*sites != 1 || l.Config)) {
		return errors.New("sites must be between 1 and 64; -sites and -config need -processes")
	}
	if *dbURL == "" {
		dir, err := os.MkdirTemp("", "consentd-load-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*dbURL = "sqlite://" + filepath.Join(dir, "load.db")
	}
	if *processes > 0 {
		return runProcesses(ctx, *bin, *processes, *sites, *dbURL, *workers, l)
	}
	a, err := app.New(ctx, app.Config{DatabaseURL: *dbURL, Addr: "127.0.0.1:0", PublicRateLimit: 0, Workers: *workers, WebhookAllowPrivate: true,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer a.Close()
	t, err := newTarget(ctx, a)
	if err != nil {
		return err
	}
	var rv *receiver
	if *webhook {
		if rv, err = startReceiver(); err != nil {
			return err
		}
		defer rv.srv.Close()
		if err := rv.subscribe(ctx, a, t.OrgID); err != nil {
			return err
		}
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ln, err := a.Listen()
	if err != nil {
		return err
	}
	t.BaseURL = app.BaseURL(ln.Addr().String())
	served := make(chan error, 1)
	go func() { served <- a.RunServer(sctx, ln) }()
	res := drive(ctx, context.Background(), t, l)
	end := time.Now()
	res.report(os.Stdout, a.Dialect(), l)
	if rv != nil {
		if err := rv.await(res.Created, time.Minute, end); err != nil {
			return err
		}
	}
	if *memProfile != "" {
		if err := writeHeapProfile(*memProfile); err != nil {
			return err
		}
	}
	n, err := total(context.Background(), newClient(1), t, "limit=1")
	if err != nil {
		return err
	}
	st, err := statsTotal(context.Background(), newClient(1), t)
	if err != nil {
		return err
	}
	fmt.Printf("  total afterwards: %d, posts answered 201: %d, decisions in the statistics: %d\n", n, len(res.Created), st)
	cancel()
	if err := <-served; err != nil {
		return err
	}
	if n != len(res.Created) {
		return fmt.Errorf("the site holds %d records but %d posts were answered 201", n, len(res.Created))
	}
	if st != n {
		return fmt.Errorf("the statistics count %d decisions but the site holds %d records", st, n)
	}
	return nil
}

// newTarget creates an organization, an API key and a site for the run.
func newTarget(ctx context.Context, a *app.App) (target, error) {
	ctx = core.WithActor(ctx, core.System("consentd-load"))
	org, err := a.UseCases().Orgs.CreateOrganization(ctx, "load")
	if err != nil {
		return target{}, err
	}
	_, key, err := a.UseCases().Orgs.CreateAPIKey(ctx, org.ID, "load", "")
	if err != nil {
		return target{}, err
	}
	name, url := "load", "https://load.example"
	site, err := a.UseCases().Sites.CreateSite(ctx, org.ID, sitepkg.SiteInput{Name: &name, URL: &url})
	if err != nil {
		return target{}, err
	}
	return target{APIKey: key, SiteID: site.ID, ProjectKey: site.ProjectKey, OrgID: org.ID}, nil
}

// writeHeapProfile writes the allocations made so far (go tool pprof -sample_index=alloc_space).
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("allocs").WriteTo(f, 0)
}
