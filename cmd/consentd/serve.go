package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
)

func serve(ctx context.Context, args []string) error {
	var console *bool
	return withApp(ctx, "serve", args, func(fs *flag.FlagSet, cfg *app.Config) {
		bind(fs, "addr", &cfg.Addr)
		bind(fs, "workers", &cfg.Workers)
		bind(fs, "public-url", &cfg.PublicURL)
		bind(fs, "bootstrap-api-key", &cfg.BootstrapAPIKey)
		bind(fs, "country-header", &cfg.CountryHeader)
		bind(fs, "region-header", &cfg.RegionHeader)
		bind(fs, "geoip-db", &cfg.GeoIPDB)
		tcfFlags(fs, cfg)
		bind(fs, "public-rate-limit", &cfg.PublicRateLimit)
		bind(fs, "trusted-proxies", &cfg.TrustedProxies)
		bind(fs, "console", &cfg.Console)
		bind(fs, "oidc-org", &cfg.SSO.Org)
		bind(fs, "oidc-issuer", &cfg.SSO.Issuer)
		bind(fs, "oidc-client-id", &cfg.SSO.ClientID)
		bind(fs, "oidc-client-secret", &cfg.SSO.ClientSecret)
		bind(fs, "oidc-domains", &cfg.SSO.Domains)
		bind(fs, "oidc-role", &cfg.SSO.Role)
		bind(fs, "oidc-allow-private", &cfg.SSOAllowPrivate)
		bind(fs, "instance-id", &cfg.InstanceID)
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
				"Use it as a bearer token, e.g.\n  curl -H 'Authorization: Bearer %s' %s%s/sites\n", key, key, base, core.APIPrefix)
			if *console {
				fmt.Fprintf(os.Stderr, "or sign in to the console with it at %s/\n", base)
			}
			fmt.Fprintln(os.Stderr)
		}
		if *console {
			link, err := a.OwnerLink(ctx, app.BaseURL(ln.Addr().String()))
			if err != nil {
				ln.Close()
				return err
			}
			if link != "" {
				fmt.Fprintf(os.Stderr, "No member yet: create the first owner in the console with this one-time link (7 days):\n\n  %s\n\n", link)
			}
		}
		return a.RunServer(ctx, ln)
	})
}

func worker(ctx context.Context, args []string) error {
	var cfg app.Config
	fs := newFlags("worker")
	storeFlags(fs, &cfg)
	bind(fs, "workers", &cfg.Workers, "scan jobs worked at once by this process")
	bind(fs, "instance-id", &cfg.InstanceID)
	scanFlags(fs, &cfg)
	tcfFlags(fs, &cfg)
	if _, err := configure(fs, args, &cfg); err != nil {
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

// tcfFlags are the deployment's TCF identity and where its Global Vendor List comes from, in
// serve and worker alike: either may run the refresh job (docs/tcf.md).
func tcfFlags(fs *flag.FlagSet, cfg *app.Config) {
	bind(fs, "tcf-gvl-file", &cfg.TCFGVLFile)
	bind(fs, "tcf-cmp-id", &cfg.TCFCMPID)
	bind(fs, "tcf-cmp-version", &cfg.TCFCMPVersion)
}

// scanFlags tune scan jobs, in serve and worker alike (docs/scan-jobs.md).
func scanFlags(fs *flag.FlagSet, cfg *app.Config) {
	bind(fs, "scan-allow-private", &cfg.ScanAllowPrivate)
	bind(fs, "rescan-interval", &cfg.RescanInterval)
	bind(fs, "scan-timeout", &cfg.ScanTimeout)
	bind(fs, "scan-max-attempts", &cfg.ScanMaxAttempts)
	bind(fs, "scan-retry-base", &cfg.ScanRetryBase)
	bind(fs, "scan-rescue-after", &cfg.ScanRescueAfter)
	bind(fs, "shutdown-timeout", &cfg.ShutdownTimeout)
	bind(fs, "scan-mode", &cfg.ScanMode)
	bind(fs, "scan-browsers", &cfg.ScanBrowsers)
	bind(fs, "chromium-path", &cfg.ChromiumPath)
	bind(fs, "scan-connect-to", &cfg.ScanConnectTo)
	bind(fs, "scan-ca-cert", &cfg.ScanCACert)
	bind(fs, "webhook-allow-private", &cfg.WebhookAllowPrivate)
	bind(fs, "smtp-url", &cfg.SMTPURL)
}
