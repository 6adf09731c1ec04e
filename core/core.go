package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Deps are what the use cases are built from: the ports they call, the clock and the ID
// source. Store, Catalog, Now and NewID are required; Queue and Crawler only for the scan use
// cases that schedule or run scans (an absent one answers an internal error).
type Deps struct {
	Store   Store
	Queue   ScanQueue
	Crawler SiteCrawler
	Catalog Catalog
	// AllSites walks every site of the deployment, for periodic rescans (optional).
	AllSites SiteLister
	// Logger receives what a site owner must not see: the causes behind a failed scan's
	// user-facing message, with the scan's ID. Nil discards.
	Logger *slog.Logger
	// WebhookQueue and WebhookSender deliver webhook events (optional: without a queue no
	// event is recorded; without a sender Deliver answers an internal error).
	WebhookQueue  WebhookQueue
	WebhookSender WebhookSender
	// WebhookAllowPrivate lets endpoints name loopback and private addresses.
	WebhookAllowPrivate bool
	// Mailer sends email digests (optional: none without it); PublicURL is the base of the
	// links they carry; DigestEvery how often they go out (DefaultDigestEvery when 0).
	Mailer      Mailer
	PublicURL   string
	DigestEvery time.Duration
	// DefaultScanPeriod is how often sites on the default schedule are scanned (the
	// deployment's rescan interval); 0 for never.
	DefaultScanPeriod time.Duration
	// ScanMode is the mode of scans triggered without one: ScanStatic, ScanDeep or ScanAuto
	// (the default when empty).
	ScanMode string
	// Now is the clock; NewID returns a new unique identifier (a UUID).
	Now   func() time.Time
	NewID func() string
}

// UseCases are consentd's use cases, one small service per concept. Every site-scoped method
// takes the organization of the caller and answers not_found for another organization's
// site. Adapters depend on small interfaces of their own that these services satisfy.
type UseCases struct {
	Orgs       *Orgs
	Sites      *Sites
	Banners    *Banners
	Categories *Categories
	Services   *Services
	Library    *Library
	Scans      *Scans
	Consents   *Consents
	Compliance *Compliance
	Webhooks   *Webhooks
	Digests    *Digests
	Health     *Health
	AuditLog   *AuditLog
	Sessions   *Sessions
	Users      *Users
}

// New builds the use cases on deps.
func New(deps Deps) (*UseCases, error) {
	if deps.Store == nil || deps.Catalog == nil {
		return nil, errors.New("core: a store and a catalog are required")
	}
	if deps.Now == nil || deps.NewID == nil {
		return nil, errors.New("core: a clock and an ID source are required")
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.ScanMode == "" {
		deps.ScanMode = ScanAuto
	}
	if !ValidScanMode(deps.ScanMode) || deps.ScanMode == ScanVerify {
		return nil, fmt.Errorf("core: scan mode %q is not one of static, deep, auto", deps.ScanMode)
	}
	b := &base{store: deps.Store, queue: deps.Queue, crawler: deps.Crawler, catalog: deps.Catalog, allSites: deps.AllSites,
		log: deps.Logger, clock: deps.Now, newID: deps.NewID, scanMode: deps.ScanMode,
		defaultScanPeriod: deps.DefaultScanPeriod, mailer: deps.Mailer, publicURL: strings.TrimRight(deps.PublicURL, "/"),
		digestEvery: cmp.Or(deps.DigestEvery, DefaultDigestEvery), webhookQueue: deps.WebhookQueue, webhookSender: deps.WebhookSender, webhookAllowPrivate: deps.WebhookAllowPrivate}
	return &UseCases{
		Orgs: &Orgs{b}, Sites: &Sites{b}, Banners: &Banners{b}, Categories: &Categories{b},
		Services: &Services{b}, Library: &Library{b}, Scans: &Scans{b}, Consents: &Consents{b},
		Compliance: &Compliance{b}, Webhooks: &Webhooks{b}, Digests: &Digests{b}, Health: &Health{b}, AuditLog: &AuditLog{b}, Sessions: &Sessions{b}, Users: &Users{b},
	}, nil
}

// base is what every service shares: the dependencies and the public endpoints' caches, so
// that a change made through any service drops the cached view of its site.
type base struct {
	store   Store
	queue   ScanQueue
	crawler SiteCrawler
	catalog Catalog
	// allSites is only for deployment-wide work: request-scoped use cases never see across
	// organizations.
	allSites SiteLister
	log      *slog.Logger
	clock    func() time.Time
	newID    func() string
	scanMode string

	defaultScanPeriod   time.Duration
	mailer              Mailer
	publicURL           string
	digestEvery         time.Duration
	webhookQueue        WebhookQueue
	webhookSender       WebhookSender
	webhookAllowPrivate bool

	consentCache ttlCache[consentView]
	viewCache    ttlCache[*siteView]
	configCache  ttlCache[*PublicConfig]
	declCache    ttlCache[*Declaration]
	// snapshotCache keeps the snapshot of each project key, language and runtime version,
	// so that a consent POST stores and hashes what was shown once per second, not per post.
	snapshotCache ttlCache[*ConsentSnapshot]
	// savedSnapshots are the snapshots (site ID and hash) this process stored.
	savedSnapshots keySet
}

// Orgs are the use cases of organizations and their API keys.
type Orgs struct{ *base }

// Sites are the use cases of sites.
type Sites struct{ *base }

// Banners are the use cases of a site's banner and its script blocking.
type Banners struct{ *base }

// Categories are the use cases of a site's consent categories.
type Categories struct{ *base }

// Services are the use cases of the services (vendors) configured on a site.
type Services struct{ *base }

// Library gives read access to the catalog of known services.
type Library struct{ *base }

// Scans are the use cases of scans: triggering, running (for workers), results, configure.
type Scans struct{ *base }

// Consents are the use cases of the public banner endpoints and of consent records.
type Consents struct{ *base }

// Health reports on the dependencies, for readiness probes.
type Health struct{ *base }

// Ready reports whether the store answers.
func (health *Health) Ready(ctx context.Context) error { return health.store.Ping(ctx) }

func (b *base) now() time.Time { return b.clock().UTC().Truncate(time.Microsecond) }
