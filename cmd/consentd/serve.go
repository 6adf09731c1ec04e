package main

import (
	"context"
	"fmt"
	"os"

	"github.com/consentd/consentd/app"
)

func serve(ctx context.Context, args []string) error {
	var cfg app.Config
	fs := newFlags("serve")
	storeFlags(fs, &cfg)
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "listen address")
	fs.IntVar(&cfg.Workers, "workers", 4, "scan jobs worked in-process (0: none, leave them to 'consentd worker')")
	fs.StringVar(&cfg.PublicURL, "public-url", "", "external base URL used in setup snippets (default: taken from the request)")
	fs.StringVar(&cfg.BootstrapAPIKey, "bootstrap-api-key", "", "when the database has no organization, create organization 'default' owning this key")
	fs.BoolVar(&cfg.ScanAllowPrivate, "scan-allow-private", false, "let the scanner reach loopback, private and link-local addresses")
	fs.StringVar(&cfg.CountryHeader, "country-header", "", "trusted request header carrying the visitor's ISO country code (e.g. CF-IPCountry)")
	fs.Float64Var(&cfg.PublicRateLimit, "public-rate-limit", 20, "public-endpoint requests per second per client address (0: off)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.Close()
	key, err := a.Bootstrap(ctx)
	if err != nil {
		return err
	}
	return a.RunServer(ctx, func(addr string) {
		if key != "" {
			fmt.Fprintf(os.Stderr, "\nFirst start: created organization \"default\" and this API key (shown only once):\n\n  %s\n\n"+
				"Use it as a bearer token, e.g.\n  curl -H 'Authorization: Bearer %s' %s/api/v1/sites\n\n", key, key, app.BaseURL(addr))
		}
	})
}

func worker(ctx context.Context, args []string) error {
	return fmt.Errorf("the standalone worker needs the Postgres store, which is not wired yet; with SQLite, scans run inside 'consentd serve'")
}
