package main

import (
	"context"
	"errors"
	"flag"

	"github.com/consentd/consentd/app"
)

// proxy runs consentd proxy: a reverse proxy in front of a site that holds, in its pages, what
// the site's edge rule set holds for each visitor (docs/edge.md).
func proxy(ctx context.Context, args []string) error {
	var cfg app.ProxyConfig
	fs := newFlags("proxy")
	bind(fs, "addr", &cfg.Addr)
	bind(fs, "upstream", &cfg.Upstream)
	bind(fs, "site", &cfg.Site, "the project key of the site whose edge rule set proxy applies (as in its setup snippet, pk_...)")
	bind(fs, "consentd-url", &cfg.API)
	bind(fs, "rule-set-revalidate", &cfg.Revalidate)
	bind(fs, "country-header", &cfg.CountryHeader)
	bind(fs, "region-header", &cfg.RegionHeader)
	bind(fs, "metrics-addr", &cfg.MetricsAddr)
	_, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	l, lerr := logger()
	cfg.Logger = l
	if err := errors.Join(err, lerr, cfg.Validate()); err != nil {
		return err
	}
	return app.RunProxy(ctx, cfg)
}
