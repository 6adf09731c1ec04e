package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/consentd/consentd/app"
)

func serve(ctx context.Context, args []string) error {
	var console *bool
	return withApp(ctx, "serve", args, func(fs *flag.FlagSet, cfg *app.Config) {
		fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "listen address")
		fs.IntVar(&cfg.Workers, "workers", 4, "scan jobs worked in-process (0: none, leave them to 'consentd worker')")
		fs.StringVar(&cfg.PublicURL, "public-url", "", "external base URL used in setup snippets (default: taken from the request)")
		fs.StringVar(&cfg.BootstrapAPIKey, "bootstrap-api-key", "", "when the database has no organization, create organization 'default' owning this key")
		fs.BoolVar(&cfg.ScanAllowPrivate, "scan-allow-private", false, "let the scanner reach loopback, private and link-local addresses")
		fs.StringVar(&cfg.CountryHeader, "country-header", "", "trusted request header carrying the visitor's ISO country code (e.g. CF-IPCountry)")
		fs.Float64Var(&cfg.PublicRateLimit, "public-rate-limit", 20, "public-endpoint requests per second per client address (0: off)")
		fs.Var(listFlag{&cfg.TrustedProxies}, "trusted-proxies", "CIDRs of reverse proxies whose X-Forwarded-For/Forwarded name the client, for the public rate limit only")
		fs.BoolVar(&cfg.Console, "console", true, "serve the web console at / (sign in with an API key)")
		console = &cfg.Console
		scanFlags(fs, cfg)
	}, func(a *app.App) error {
		// Bind first: a taken port must fail before a key is created. The key is then shown
		// at once, before anything else can fail, since only its hash is stored.
		ln, err := a.Listen()
		if err != nil {
			return err
		}
		key, err := a.Bootstrap(ctx)
		if err != nil {
			ln.Close()
			return err
		}
		if key != "" {
			base := app.BaseURL(ln.Addr().String())
			fmt.Fprintf(os.Stderr, "\nFirst start: created organization \"default\" and this API key (shown only once):\n\n  %s\n\n"+
				"Use it as a bearer token, e.g.\n  curl -H 'Authorization: Bearer %s' %s/api/v1/sites\n", key, key, base)
			if *console {
				fmt.Fprintf(os.Stderr, "or sign in to the console with it at %s/\n", base)
			}
			fmt.Fprintln(os.Stderr)
		}
		return a.RunServer(ctx, ln)
	})
}

func worker(ctx context.Context, args []string) error {
	var cfg app.Config
	fs := newFlags("worker")
	storeFlags(fs, &cfg)
	fs.IntVar(&cfg.Workers, "workers", 4, "scan jobs worked at once by this process")
	fs.BoolVar(&cfg.ScanAllowPrivate, "scan-allow-private", false, "let the scanner reach loopback, private and link-local addresses")
	scanFlags(fs, &cfg)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if strings.HasPrefix(cfg.DatabaseURL, "sqlite:") {
		return app.ErrWorkerNeedsPostgres
	}
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.Close()
	return a.RunWorker(ctx)
}

// scanFlags tune scan jobs, in serve and worker alike (docs/scan-jobs.md).
func scanFlags(fs *flag.FlagSet, cfg *app.Config) {
	fs.DurationVar(&cfg.RescanInterval, "rescan-interval", 0, "rescan every site's homepage this often, e.g. 720h (0: never)")
	fs.DurationVar(&cfg.ScanTimeout, "scan-timeout", 5*time.Minute, "time limit of one scan attempt")
	fs.IntVar(&cfg.ScanMaxAttempts, "scan-max-attempts", 3, "attempts of a scan that fails with a temporary error")
	fs.DurationVar(&cfg.ScanRetryBase, "scan-retry-base", 5*time.Second, "delay before the first retry, doubled on each further one")
	fs.DurationVar(&cfg.ScanRescueAfter, "scan-rescue-after", 0, "time after which a scan attempt whose worker died is worked again (at least scan-timeout; default scan-timeout plus 1m)")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGTERM, how long running scans may take to finish before they are cancelled")
	fs.StringVar(&cfg.ScanMode, "scan-mode", "auto", "mode of scans triggered without one: static, deep (headless Chromium) or auto (deep when a browser is installed)")
	fs.IntVar(&cfg.ScanBrowsers, "scan-browsers", 1, "headless browsers this process runs at most for deep scans")
	fs.StringVar(&cfg.ChromiumPath, "chromium-path", "", "Chromium executable for deep scans (default: chromium on the PATH)")
	fs.Var((*repeatFlag)(&cfg.ScanConnectTo), "scan-connect-to", "connect-to rules HOST:PORT:CONNECT_HOST:CONNECT_PORT for every scan, comma-separated or repeated (tests, intranets)")
	fs.StringVar(&cfg.ScanCACert, "scan-ca-cert", "", "PEM file of an extra root certificate every scan trusts (tests, intranets)")
}
