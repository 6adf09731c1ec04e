// Package app is consentd's composition root: it reads a Config, builds the adapters, wires
// them into core, and starts and stops them. It reads no environment; cmd/consentd does.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/adapters/riverqueue"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// Config is everything consentd can be told (product.md section 1).
type Config struct {
	Addr             string
	DatabaseURL      string
	Workers          int
	PublicURL        string
	BootstrapAPIKey  string
	ScanAllowPrivate bool
	CountryHeader    string
	PublicRateLimit  float64
	LibraryDir       string
	// Scan job tuning; zero values take riverqueue's defaults (docs/scan-jobs.md).
	ScanMaxAttempts int
	ScanTimeout     time.Duration
	ScanRetryBase   time.Duration
	ScanRescueAfter time.Duration
	ScanPoll        time.Duration
	// ScanSweepInterval is how often scans whose job was given up are marked failed.
	ScanSweepInterval time.Duration
	// RescanInterval, when positive, rescans every site's homepage that often.
	RescanInterval time.Duration
	// ShutdownTimeout bounds a graceful stop (default 30 s).
	ShutdownTimeout time.Duration
	Logger          *slog.Logger
	Now             func() time.Time
}

// App is a built consentd: store, catalog, queue, use cases and HTTP handler.
type App struct {
	cfg     Config
	log     *slog.Logger
	Store   *bunstore.Store
	Catalog *library.Catalog
	Manager *core.Manager
	queue   *riverqueue.Queue
	handler http.Handler
}

// New builds the application and migrates the database. With a BootstrapAPIKey it also
// bootstraps an empty database (organization "default" owning that key).
func New(ctx context.Context, cfg Config) (*App, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	catalog, err := library.Load(cfg.LibraryDir)
	if err != nil {
		return nil, fmt.Errorf("service library: %w", err)
	}
	store, err := bunstore.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, log: cfg.Logger, Store: store, Catalog: catalog}
	if err := store.Migrate(ctx); err != nil {
		store.Close()
		return nil, err
	}
	a.Manager = &core.Manager{
		Store: store, Catalog: catalog, Now: cfg.Now,
		NewID: func() string { return uuid.Must(uuid.NewV7()).String() },
	}
	a.Manager.Crawler, err = newCrawler(catalog, cfg)
	if err != nil {
		store.Close()
		return nil, err
	}
	a.queue, err = newQueue(ctx, cfg, store, a.Manager)
	if err != nil {
		store.Close()
		return nil, err
	}
	if err := a.queue.Migrate(ctx); err != nil {
		a.Close()
		return nil, err
	}
	a.Manager.Queue = a.queue
	a.handler = httpapi.New(httpapi.Config{
		Manager: a.Manager, Logger: cfg.Logger, PublicURL: cfg.PublicURL, CountryHeader: cfg.CountryHeader,
		PublicRateLimit: cfg.PublicRateLimit, Runtime: bannerjs.Handler(), RuntimeVersion: bannerjs.Version(),
	})
	if cfg.BootstrapAPIKey != "" {
		if _, err := a.Manager.Bootstrap(ctx, cfg.BootstrapAPIKey); err != nil {
			a.Close()
			return nil, fmt.Errorf("bootstrap: %w", err)
		}
	}
	return a, nil
}

// newQueue builds the scan queue on the store's database: River on SQLite shares the store's
// connections, River on Postgres has a pool of its own.
func newQueue(ctx context.Context, cfg Config, store *bunstore.Store, m *core.Manager) (*riverqueue.Queue, error) {
	qc := riverqueue.Config{
		Workers: cfg.Workers, MaxAttempts: cfg.ScanMaxAttempts, JobTimeout: cfg.ScanTimeout,
		RetryBase: cfg.ScanRetryBase, RescueAfter: cfg.ScanRescueAfter, PollInterval: cfg.ScanPoll,
		SweepInterval: cfg.ScanSweepInterval, RescanInterval: cfg.RescanInterval,
		Sites:  store,
		Logger: cfg.Logger, RiverLogger: slog.New(minLevel{cfg.Logger.Handler(), slog.LevelWarn}),
	}
	if store.Dialect() == "postgres" {
		return riverqueue.NewPostgres(ctx, cfg.DatabaseURL, m, qc)
	}
	return riverqueue.NewSQLite(store.DB().DB, m, qc)
}

// Handler is the HTTP handler of the whole service.
func (a *App) Handler() http.Handler { return a.handler }

// Close releases the database.
func (a *App) Close() error {
	if a.queue != nil {
		a.queue.Close()
	}
	return a.Store.Close()
}

// Bootstrap makes sure an empty database gets organization "default" and an API key; it
// returns the key when it made a random one (to be shown once), "" otherwise.
func (a *App) Bootstrap(ctx context.Context) (string, error) {
	key, err := a.Manager.Bootstrap(ctx, a.cfg.BootstrapAPIKey)
	if err != nil || a.cfg.BootstrapAPIKey != "" {
		return "", err
	}
	return key, nil
}

// RunServer serves HTTP on cfg.Addr and works scan jobs in-process (cfg.Workers of them) until
// ctx ends, then shuts down gracefully: it stops accepting requests and jobs and lets running
// ones finish within ShutdownTimeout. ready, when not nil, receives the listening address.
func (a *App) RunServer(ctx context.Context, ready func(addr string)) error {
	if err := a.queue.Start(ctx); err != nil {
		return fmt.Errorf("scan workers: %w", err)
	}
	srv := &http.Server{
		Addr: a.cfg.Addr, Handler: a.handler,
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 2 * time.Minute, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	ln, err := listen(a.cfg.Addr)
	if err != nil {
		return err
	}
	a.log.Info("consentd listening", slog.String("addr", ln.Addr().String()), slog.Int("workers", a.cfg.Workers),
		slog.String("store", a.Store.Dialect()), slog.Int("library", len(a.Catalog.Services())))
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.ShutdownTimeout)
	defer cancel()
	herr := srv.Shutdown(sctx)
	qerr := a.queue.Stop(sctx)
	if errors.Is(herr, http.ErrServerClosed) {
		herr = nil
	}
	return errors.Join(herr, qerr)
}

// BaseURL turns a listen address into the URL clients use ("127.0.0.1:8080" →
// "http://127.0.0.1:8080").
func BaseURL(addr string) string {
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	return "http://" + addr
}

// SiteJSON is a site as the API shows it (with accountId), for the CLI's output.
func SiteJSON(s *core.Site) any { return httpapi.SiteOut{Site: s, AccountID: s.OrganizationID} }
