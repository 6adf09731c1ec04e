// Package app is consentd's composition root: it reads a Config, builds the adapters, wires
// them into core, and starts and stops them. It reads no environment; cmd/consentd does.
package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/core/watch"
	"github.com/consentd/consentd/crawler/browser"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/geoip"
	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/adapters/iabgvl"
	"github.com/consentd/consentd/adapters/riverqueue"
	"github.com/consentd/consentd/adapters/sitecrawler"
	"github.com/consentd/consentd/adapters/smtpmail"
	"github.com/consentd/consentd/adapters/tcstring"
	"github.com/consentd/consentd/adapters/webhookhttp"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/analytics"
	"github.com/consentd/consentd/library"
)

// Config is everything consentd can be told; cmd/consentd fills it from flags and the
// environment (README.md lists the variables).
type Config struct {
	Addr             string
	DatabaseURL      string
	Workers          int
	PublicURL        string
	BootstrapAPIKey  string
	ScanAllowPrivate bool
	// ScanMode is the mode of scans triggered without one: static, deep or auto (default).
	ScanMode string
	// ScanConnectTo are connect-to rules and ScanCACert an extra root CA file for every scan
	// (tests, intranets); ChromiumPath the deep scans' browser and ScanBrowsers the size of
	// the process's browser pool (docs/crawler.md).
	ScanConnectTo []string
	ScanCACert    string
	ChromiumPath  string
	ScanBrowsers  int
	// CountryHeader and RegionHeader name trusted request headers carrying the visitor's
	// country and subdivision (a CDN's); requests without them are geolocated by their client
	// address in GeoIPDB, an MMDB file ("" for the embedded country database).
	CountryHeader   string
	RegionHeader    string
	GeoIPDB         string
	PublicRateLimit float64
	// TCFGVLFile, when set, is the IAB's Global Vendor List read from a file (offline installs,
	// tests); TCFCMPID and TCFCMPVersion the CMP ID IAB Europe assigned the operator and their
	// CMP's version (docs/tcf.md). Without a CMP ID, TCF cannot be turned on.
	TCFGVLFile    string
	TCFCMPID      int
	TCFCMPVersion int
	// TrustedProxies are CIDRs (or addresses) of reverse proxies whose X-Forwarded-For and
	// Forwarded headers name the client, for the public rate limit and geolocation.
	TrustedProxies []string
	LibraryDir     string
	// InstanceID is the process's stable scan-worker ID on Postgres (riverqueue.Config,
	// docs/scan-jobs.md); a process that listens (Addr) and is given none takes
	// DefaultInstanceID.
	InstanceID string
	// ExistingDatabase makes New refuse to create a database: commands that only read or add
	// to a deployment (apikey, site, records, backup) fail, naming the database, when there is
	// none at DatabaseURL rather than leave a new empty one behind.
	ExistingDatabase bool
	// OneShot is a command that does its work in the database and exits (org, apikey, site,
	// user, records, backup, migrate): it serves no HTTP and runs no scan, so New builds
	// neither the HTTP handler (the banner runtime's bundles, the API's schema, the console)
	// nor the crawler's index of the service library, more than half of such a command's CPU
	// (`perf stat -r 20 consentd org list`: 255-362 ms with them, 108-114 ms without).
	// Handler is then nil, and RunServer and RunWorker refuse to run.
	OneShot bool
	// Console serves the web console at "/" (docs/console.md).
	Console bool
	// SSO is an organization's OpenID provider for the console's single sign-on (none when
	// its Issuer is empty; docs/teams.md).
	SSO SSOConfig
	// SSOAllowPrivate lets organizations' own single sign-on providers be http URLs on
	// loopback and private addresses (an internal Keycloak).
	SSOAllowPrivate bool
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
	// WebhookAllowPrivate lets webhook endpoints name loopback and private addresses.
	WebhookAllowPrivate bool
	// SMTPURL, when set, sends email digests and console invitations through that server
	// (adapters/smtpmail); DigestInterval is how often digests go out (default 24 h).
	SMTPURL        string
	DigestInterval time.Duration
	// WebhookRetrySchedule replaces core.WebhookRetrySchedule (tests).
	WebhookRetrySchedule []time.Duration
	// ShutdownTimeout bounds a graceful stop (default 30 s).
	ShutdownTimeout time.Duration
	// Telemetry says which signals to export over OTLP (TelemetryFromEnv); zero exports none.
	Telemetry Telemetry
	Logger    *slog.Logger
	Now       func() time.Time
}

// App is a built consentd: store, catalog, queue, use cases, scan workers and HTTP handler.
type App struct {
	cfg      Config
	log      *slog.Logger
	store    *bunstore.Store
	catalog  *library.Catalog
	useCases *usecases.UseCases
	queue    *riverqueue.Queue
	workers  *riverqueue.Workers
	handler  http.Handler
	browsers *browser.Pool
	geo      *geoip.Reader
	// collectors are the scrape-time gauges registered for /metrics.
	collectors []prometheus.Collector
	// stopTelemetry flushes and stops the exporters.
	stopTelemetry func(context.Context) error
	// stopAnalytics stops the analytics' flusher after its last flush (core/analytics).
	stopAnalytics func()
}

// The store's transactions are what the queue joins when it inserts a scan job.
var _ riverqueue.TxStore = (*bunstore.Store)(nil)

// New builds the application and migrates the database. With a BootstrapAPIKey it also
// bootstraps an empty database (organization "default" owning that key). The configuration
// is validated before anything is opened or created.
func New(ctx context.Context, cfg Config) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	if cfg.InstanceID == "" && cfg.Addr != "" {
		cfg.InstanceID = DefaultInstanceID(cfg.Addr)
	}
	catalog, err := library.Load(cfg.LibraryDir)
	if err != nil {
		return nil, fmt.Errorf("service library: %w", err)
	}
	geo, err := OpenGeolocator(cfg.GeoIPDB)
	if err != nil {
		return nil, err
	}
	var scanner *sitecrawler.Crawler
	var browsers *browser.Pool
	if !cfg.OneShot {
		if scanner, browsers, err = newCrawler(catalog, cfg); err != nil {
			geo.Close() //nolint:errcheck // read only: nothing to lose
			return nil, err
		}
	}
	// Exporters are built before the store is opened, so that a bad OTEL_ setting stops the
	// process before anything is created; they connect lazily.
	stopTelemetry, err := StartTelemetry(ctx, cfg.Telemetry)
	closeOpened := func() {
		geo.Close() //nolint:errcheck // read only: nothing to lose
		if browsers != nil {
			browsers.Close()
		}
	}
	if err != nil {
		closeOpened()
		return nil, err
	}
	if cfg.ExistingDatabase {
		if err := noNewSQLite(cfg.DatabaseURL); err != nil {
			closeOpened()
			stopTelemetry(ctx) //nolint:errcheck // nothing was exported yet
			return nil, err
		}
	}
	store, err := bunstore.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		closeOpened()
		stopTelemetry(ctx) //nolint:errcheck // nothing was exported yet
		return nil, err
	}
	a := &App{cfg: cfg, log: cfg.Logger, store: store, catalog: catalog, browsers: browsers, geo: geo, stopTelemetry: stopTelemetry}
	if cfg.ExistingDatabase {
		if ok, err := store.Migrated(ctx); err != nil || !ok {
			a.Close()
			return nil, errors.Join(err, noDatabase(cfg.DatabaseURL, "has no consentd schema"))
		}
	}
	if err := store.Migrate(ctx); err != nil {
		a.Close()
		return nil, err
	}
	if a.queue, err = newQueue(ctx, cfg, store); err != nil {
		a.Close()
		return nil, err
	}
	if err := a.queue.Migrate(ctx); err != nil {
		a.Close()
		return nil, err
	}
	gvl, err := gvlSource(cfg)
	if err != nil {
		a.Close()
		return nil, err
	}
	var mailer core.Mailer
	if cfg.SMTPURL != "" {
		if mailer, err = smtpmail.New(cfg.SMTPURL); err != nil {
			a.Close()
			return nil, err
		}
	}
	a.useCases, err = usecases.New(usecases.Deps{
		Store: store, Queue: a.queue, Crawler: scanner, Catalog: catalog, AllSites: store, DefaultScanPeriod: cfg.RescanInterval,
		WebhookQueue: a.queue, WebhookSender: webhookhttp.New(cfg.WebhookAllowPrivate, "consentd-webhooks/1"),
		WebhookAllowPrivate: cfg.WebhookAllowPrivate, SSOAllowPrivate: cfg.SSOAllowPrivate, Mailer: mailer, PublicURL: publicURL(cfg), DigestEvery: cfg.DigestInterval,
		Logger: cfg.Logger, Now: cfg.Now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() }, ScanMode: cfg.ScanMode,
		GVLSource: gvl, TCStrings: tcstring.Decoder{}, TCF: tcf.TCFDeployment{CMPID: cfg.TCFCMPID, CMPVersion: cfg.TCFCMPVersion},
	})
	if err != nil {
		a.Close()
		return nil, err
	}
	a.stopAnalytics = runAnalytics(a.useCases.Analytics)
	a.queue.SetConsentRetention(retention{a.useCases.ConsentLog, a.useCases.AuditLog}, 0)
	if gvl != nil {
		// A file is read now, so that the list is there before the first request; the job
		// reads it again (a replaced file brings its version in) or fetches the IAB's.
		if cfg.TCFGVLFile != "" {
			if _, err := a.useCases.TCF.RefreshGVL(core.WithActor(ctx, core.System("consentd start"))); err != nil {
				a.Close()
				return nil, fmt.Errorf("CONSENTD_TCF_GVL_FILE: %w", err)
			}
		}
		a.queue.SetGVLRefresh(a.useCases.TCF, 0)
	}
	a.queue.SetWebhooks(a.useCases.Webhooks, cfg.WebhookRetrySchedule)
	if mailer != nil {
		a.queue.SetDigests(a.useCases.Digests, cmp.Or(cfg.DigestInterval, watch.DefaultDigestEvery))
	}
	if a.workers, err = a.queue.Workers(a.useCases.ScanWorker); err != nil {
		a.Close()
		return nil, err
	}
	a.registerCollectors()
	if !cfg.OneShot {
		if err := a.buildHandler(); err != nil {
			a.Close()
			return nil, err
		}
	}
	if cfg.BootstrapAPIKey != "" {
		if _, err := a.useCases.Orgs.Bootstrap(core.WithActor(ctx, core.System("consentd bootstrap")), cfg.BootstrapAPIKey); err != nil {
			a.Close()
			return nil, fmt.Errorf("bootstrap: %w", err)
		}
	}
	return a, nil
}

// buildHandler builds the HTTP handler of the whole service: the API, the banner runtime and,
// when configured, the console.
func (a *App) buildHandler() error {
	cfg := a.cfg
	apiCfg := httpapi.Config{
		UseCases: httpapi.FromCore(a.useCases), Logger: cfg.Logger, PublicURL: cfg.PublicURL, CountryHeader: cfg.CountryHeader,
		RegionHeader: cfg.RegionHeader, Geolocator: a.geo, PublicRateLimit: cfg.PublicRateLimit, Runtime: bannerjs.Handler(), RuntimeVersion: bannerjs.Version(),
		RuntimeScript: bannerjs.Script(), TCFModule: bannerjs.TCFHandler(), TCFStub: bannerjs.TCFStub, GPPAPI: bannerjs.GPPAPI, ExperimentScript: bannerjs.ExperimentScript, TrustedProxies: trustedProxies(cfg.TrustedProxies),
	}
	h, err := withConsole(cfg, a.useCases, apiCfg, httpapi.New(apiCfg))
	if err != nil {
		return err
	}
	a.handler = h
	return nil
}

// gvlSource is where the Global Vendor List comes from: the file CONSENTD_TCF_GVL_FILE, else
// the IAB's server when the deployment has a CMP ID (without one TCF cannot be turned on, and
// nothing is fetched), else nowhere.
func gvlSource(cfg Config) (tcf.GVLSource, error) {
	switch {
	case cfg.TCFGVLFile != "":
		return iabgvl.OpenFile(cfg.TCFGVLFile)
	case cfg.TCFCMPID != 0:
		return iabgvl.NewClient("", &http.Client{Timeout: time.Minute}, "consentd-gvl/1"), nil
	}
	return nil, nil
}

// OpenGeolocator opens the geolocation database at path, an MMDB file, or the embedded country
// database when path is "" (adapters/geoip).
func OpenGeolocator(path string) (*geoip.Reader, error) {
	if path == "" {
		return geoip.OpenEmbedded()
	}
	return geoip.Open(path)
}

// DefaultInstanceID is the instance ID of a 'consentd serve' given none: this host's name and
// the port it listens on, which no other live process on the host can hold, and which a
// restarted serve gets again. A port chosen by the system (0) gives none.
func DefaultInstanceID(addr string) string {
	_, port, err := net.SplitHostPort(addr)
	if err != nil || port == "0" || port == "" {
		return ""
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		return ""
	}
	return "serve@" + host + ":" + port
}

// noNewSQLite refuses a SQLite URL whose file does not exist, before opening it creates one.
func noNewSQLite(databaseURL string) error {
	path, ok := strings.CutPrefix(databaseURL, "sqlite://")
	if !ok {
		return nil
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return noDatabase(databaseURL, "does not exist")
	}
	return nil
}

// noDatabase says that the database at databaseURL is not a deployment, and what to do.
func noDatabase(databaseURL, problem string) error {
	return fmt.Errorf("no consentd database: %s %s (run the command where the database is, set CONSENTD_DATABASE_URL, or create one with 'consentd migrate')",
		DatabaseName(databaseURL), problem)
}

// DatabaseName is a database URL as messages show it, without its password.
func DatabaseName(databaseURL string) string {
	if u, err := url.Parse(databaseURL); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			return u.Redacted()
		}
	}
	return databaseURL
}

// newQueue builds the scan queue on the store's database: River on SQLite shares the store's
// connections, River on Postgres has a pool of its own.
func newQueue(ctx context.Context, cfg Config, store *bunstore.Store) (*riverqueue.Queue, error) {
	qc := riverqueue.Config{
		Workers: cfg.Workers, MaxAttempts: cfg.ScanMaxAttempts, JobTimeout: cfg.ScanTimeout,
		RetryBase: cfg.ScanRetryBase, RescueAfter: cfg.ScanRescueAfter, PollInterval: cfg.ScanPoll,
		SweepInterval: cfg.ScanSweepInterval, RescanInterval: cfg.RescanInterval,
		Logger: cfg.Logger, RiverLogger: slog.New(minLevel{cfg.Logger.Handler(), slog.LevelWarn}),
		InstanceID: cfg.InstanceID,
	}
	if store.Dialect() == "postgres" {
		return riverqueue.NewPostgres(ctx, cfg.DatabaseURL, qc)
	}
	return riverqueue.NewSQLite(store.DB().DB, qc)
}

// UseCases are the application's use cases, for the operator's commands.
func (a *App) UseCases() *usecases.UseCases { return a.useCases }

// DatabaseName is the database's URL as messages show it, without its password.
func (a *App) DatabaseName() string { return DatabaseName(a.cfg.DatabaseURL) }

// ConsoleURL is where people reach the console, for the links the CLI prints: the public
// URL when set, otherwise the listen address.
func (a *App) ConsoleURL() string {
	if a.cfg.PublicURL != "" {
		return strings.TrimSuffix(a.cfg.PublicURL, "/")
	}
	return BaseURL(a.cfg.Addr)
}

// OwnerLink returns a one-time link to create the first owner in the console while the
// deployment has no member, "" once it has one.
func (a *App) OwnerLink(ctx context.Context, base string) (string, error) {
	secret, err := a.useCases.Users.BootstrapOwnerLink(core.WithActor(ctx, core.System("consentd bootstrap")))
	if err != nil || secret == "" {
		return "", err
	}
	return base + "/invite/" + secret, nil
}

// Dialect names the store's database: "sqlite" or "postgres".
func (a *App) Dialect() string { return a.store.Dialect() }

// Handler is the HTTP handler of the whole service.
func (a *App) Handler() http.Handler { return a.handler }

// Close stops the browsers, flushes the telemetry exporters and releases the database.
func (a *App) Close() error {
	a.unregisterCollectors()
	if a.stopAnalytics != nil {
		a.stopAnalytics() // before the store closes: its last flush writes there
		a.stopAnalytics = nil
	}
	if a.browsers != nil {
		a.browsers.Close()
	}
	if a.geo != nil {
		a.geo.Close() //nolint:errcheck // read only: nothing to lose
	}
	if a.queue != nil {
		a.queue.Close()
	}
	var terr error
	if a.stopTelemetry != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		terr = a.stopTelemetry(ctx)
		cancel()
		a.stopTelemetry = nil
	}
	return errors.Join(a.store.Close(), terr)
}

// Bootstrap makes sure an empty database gets organization "default" and an API key; it
// returns the key when it made a random one (to be shown once), "" otherwise.
func (a *App) Bootstrap(ctx context.Context) (string, error) {
	key, err := a.useCases.Orgs.Bootstrap(core.WithActor(ctx, core.System("consentd bootstrap")), a.cfg.BootstrapAPIKey)
	if err != nil || a.cfg.BootstrapAPIKey != "" {
		return "", err
	}
	return key, nil
}

// Listen makes this process the one that serves the database (on SQLite, which has one
// serving process: a second is refused) and binds cfg.Addr, so that a database in use or a
// taken port is reported before anything else happens.
func (a *App) Listen() (net.Listener, error) {
	if err := a.store.ClaimServing(); err != nil {
		return nil, err
	}
	return listen(a.cfg.Addr)
}

// RunServer serves HTTP on ln (bound by Listen) and works scan jobs in-process (cfg.Workers
// of them; on SQLite, jobs a dead process left running first) until ctx ends, then shuts down gracefully: it stops accepting requests and jobs
// and lets running ones finish within ShutdownTimeout. It closes ln.
func (a *App) RunServer(ctx context.Context, ln net.Listener) error {
	if a.cfg.OneShot {
		ln.Close()
		return ErrOneShot
	}
	tuneGC(os.Getenv)
	// The embedded store has a single node: a job still running belongs to a process that
	// died, so it is worked again now rather than after the rescue delay.
	if err := a.store.ClaimServing(); err != nil {
		ln.Close()
		return err
	}
	if a.store.Dialect() != "postgres" && a.cfg.Workers > 0 {
		if _, err := a.queue.ReclaimOrphans(ctx); err != nil {
			ln.Close()
			return err
		}
	}
	if err := a.workers.Start(ctx); err != nil {
		ln.Close()
		return fmt.Errorf("scan workers: %w", err)
	}
	srv := &http.Server{
		Addr: a.cfg.Addr, Handler: a.handler,
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 2 * time.Minute, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	a.log.Info("consentd listening", slog.String("addr", ln.Addr().String()), slog.Int("workers", a.cfg.Workers),
		slog.String("store", a.store.Dialect()), slog.Int("library", len(a.catalog.Services())))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return errors.Join(err, a.workers.Stop(context.WithoutCancel(ctx)))
	case <-ctx.Done():
	}
	a.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.ShutdownTimeout)
	defer cancel()
	herr := srv.Shutdown(sctx)
	qerr := a.workers.Stop(sctx)
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

// ServerGCPercent is the garbage collector's target while serving, unless the operator set
// GOGC: the live heap of a server is a few tens of megabytes, so letting it grow to five times
// that between collections costs little memory and takes collection work off the cores that
// ingest consent (the README's production section gives the figures).
const ServerGCPercent = 400

// tuneGC applies ServerGCPercent when GOGC is not set in the environment.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(ServerGCPercent)
	}
}

// publicURL is the base of the links in emails: --public-url, or the listen address when it
// is not set (emails have no request to take it from).
func publicURL(cfg Config) string {
	if cfg.PublicURL != "" {
		return strings.TrimRight(cfg.PublicURL, "/")
	}
	return BaseURL(cfg.Addr)
}

// retention is what the retention job runs: the consent log's and the audit log's.
type retention struct {
	*consent.ConsentLog
	*identity.AuditLog
}

// runAnalytics flushes the analytics' counts every second (analytics.FlushEvery) until the
// returned function is called, which flushes once more and waits for it.
func runAnalytics(an *analytics.Analytics) func() {
	if an == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		an.Agg.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
