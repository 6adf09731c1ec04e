package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/consentd/consentd/adapters/edgerewrite"
)

// ProxyConfig is consentd proxy's configuration (docs/edge.md): a reverse proxy in front of a
// site's origin that holds, in its pages, what the site's rule set holds for each visitor.
type ProxyConfig struct {
	// Addr is where it listens; Upstream the origin's base URL.
	Addr, Upstream string
	// API is the consentd server the rule set comes from; Site the site's project key.
	API, Site string
	// Revalidate is how often the rule set is revalidated (its ETag).
	Revalidate time.Duration
	// CountryHeader and RegionHeader are the trusted headers carrying the visitor's place, as
	// serve's.
	CountryHeader, RegionHeader string
	// MetricsAddr, when set, serves /metrics and /healthz there (not on Addr, whose every path
	// is the site's).
	MetricsAddr     string
	ShutdownTimeout time.Duration
	Logger          *slog.Logger
}

// Validate reports every problem of the configuration at once.
func (c ProxyConfig) Validate() error {
	var errs []error
	for _, u := range []struct{ name, v string }{{"--upstream (CONSENTD_UPSTREAM)", c.Upstream}, {"--consentd-url (CONSENTD_CONSENTD_URL)", c.API}} {
		p, err := url.Parse(u.v)
		if u.v == "" || err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			errs = append(errs, fmt.Errorf("%s: expected an http or https URL, got %q", u.name, u.v))
		}
	}
	if strings.TrimSpace(c.Site) == "" {
		errs = append(errs, errors.New("--site (CONSENTD_SITE): the site's project key is required"))
	}
	return errors.Join(errs...)
}

// RunProxy serves consentd proxy until ctx ends, then shuts down within ShutdownTimeout.
func RunProxy(ctx context.Context, cfg ProxyConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 10 * time.Second
	}
	up, _ := url.Parse(cfg.Upstream)
	rules := &edgerewrite.Remote{API: cfg.API, ProjectKey: cfg.Site, Revalidate: cfg.Revalidate, Log: cfg.Logger}
	// The rule set is fetched before the first page, so that a wrong key or URL shows at once.
	if _, err := rules.Matcher(ctx); err != nil {
		cfg.Logger.Warn("edge rule set not available yet: pages pass unchanged until it is", slog.Any("err", err))
	}
	h := edgerewrite.Proxy(up, edgerewrite.Config{Rules: rules, CountryHeader: cfg.CountryHeader, RegionHeader: cfg.RegionHeader, Log: cfg.Logger})
	servers := []*http.Server{{Addr: cfg.Addr, Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn)}}
	if cfg.MetricsAddr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", promhttp.Handler())
		mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) }) //nolint:errcheck // the client went away
		servers = append(servers, &http.Server{Addr: cfg.MetricsAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second})
	}
	var lns []net.Listener
	for _, s := range servers {
		ln, err := listen(s.Addr)
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return err
		}
		lns = append(lns, ln)
	}
	cfg.Logger.Info("consentd proxy listening", slog.String("addr", lns[0].Addr().String()), slog.String("upstream", cfg.Upstream),
		slog.String("rules", rules.URL()), slog.String("metrics", cfg.MetricsAddr))
	errc := make(chan error, len(servers))
	for i, s := range servers {
		go func() { errc <- s.Serve(lns[i]) }()
	}
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	cfg.Logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	for _, s := range servers {
		if serr := s.Shutdown(sctx); serr != nil && !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
