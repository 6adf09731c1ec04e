package usecases

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/analytics"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/edge"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/experiment"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/site"
	tcfpkg "github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/verifier"
	"github.com/consentd/consentd/core/watch"
)

// Deps are what the use cases are built from: the ports they call, the clock and the ID
// source. Store, Catalog, Now and NewID are required; Queue and Crawler only for the scan use
// cases that schedule or run scans (an absent one answers an internal error).
type Deps struct {
	Store   Store
	Queue   scan.ScanQueue
	Crawler scan.SiteCrawler
	Catalog core.Catalog
	// AllSites walks every site of the deployment, for periodic rescans (optional).
	AllSites core.SiteLister
	// Logger receives what a site owner must not see: the causes behind a failed scan's
	// user-facing message, with the scan's ID. Nil discards.
	Logger *slog.Logger
	// WebhookQueue and WebhookSender deliver webhook events (optional: without a queue no
	// event is recorded; without a sender Deliver answers an internal error).
	WebhookQueue  event.WebhookQueue
	WebhookSender watch.WebhookSender
	// WebhookAllowPrivate lets endpoints name loopback and private addresses.
	WebhookAllowPrivate bool
	// SSOAllowPrivate lets organizations' single sign-on issuers be http URLs (the adapter
	// that calls them then also reaches loopback and private addresses).
	SSOAllowPrivate bool
	// Mailer sends email digests and invitations (optional: none without it); PublicURL is the base of the
	// links they carry; DigestEvery how often they go out (DefaultDigestEvery when 0).
	Mailer      core.Mailer
	PublicURL   string
	DigestEvery time.Duration
	// DefaultScanPeriod is how often sites on the default schedule are scanned (the
	// deployment's rescan interval); 0 for never.
	DefaultScanPeriod time.Duration
	// ScanMode is the mode of scans triggered without one: ScanStatic, ScanDeep or ScanAuto
	// (the default when empty).
	ScanMode string
	// GVLSource is where TCF.RefreshGVL fetches the IAB's Global Vendor List (optional:
	// without it the list is only what the store holds). VendorLists, when set, is read
	// instead of the store's versions (tests). TCF is the deployment's CMP ID and version (a
	// zero CMP ID: TCF cannot be turned on).
	GVLSource   tcfpkg.GVLSource
	VendorLists tcfpkg.VendorLists
	TCF         tcfpkg.TCFDeployment
	// TCStrings decodes the TC strings consent POSTs carry (without it, one is refused).
	TCStrings tcfpkg.TCStringDecoder
	// ExperimentCounter reads experiments' counts from the analytics (optional: without it an
	// experiment's results answer an internal error).
	ExperimentCounter experiment.Counter
	// Analytics keeps the analytics' counters (core/analytics); when nil, Store keeps them if
	// it implements analytics.Store (every store of consentd does).
	Analytics analytics.Store
	// Now is the clock; NewID returns a new unique identifier (a UUID).
	Now   func() time.Time
	NewID func() string
}

// UseCases are consentd's use cases, one small service per concept. Every site-scoped method
// takes the organization of the caller and answers not_found for another organization's
// site. Adapters depend on small interfaces of their own that these services satisfy.
type UseCases struct {
	Orgs       *identity.Orgs
	Sites      *site.Sites
	Banners    *banner.Banners
	Categories *banner.Categories
	Services   *banner.Services
	Library    *banner.Library
	Scans      *scan.Scans
	ScanWorker *scan.ScanWorker
	// PublicBanner serves the public endpoints a site's banner calls; ConsentLog keeps
	// the consent records they make.
	PublicBanner *consent.PublicBanner
	ConsentLog   *consent.ConsentLog
	Compliance   *scan.Compliance
	Webhooks     *watch.Webhooks
	Digests      *watch.Digests
	Health       *Health
	AuditLog     *identity.AuditLog
	// TCF keeps the IAB's Global Vendor List (docs/tcf.md).
	TCF      *tcfpkg.TCF
	Sessions *identity.Sessions
	Users    *identity.Users
	// Verifiers issue and check the verifier's credentials (core/verifier).
	Verifiers *verifier.Verifiers
	// Edge serves the rule sets edges apply to a site's HTML (core/edge, #43).
	Edge *edge.RuleSets
	// Experiments are the A/B tests of the banner (core/experiment).
	Experiments *experiment.Experiments
	// Analytics counts the banner's interaction events and the decisions stored, and reports
	// them (core/analytics); nil without an analytics store. Its Agg must Run (app does) for
	// the counts to reach the store.
	Analytics *analytics.Analytics
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
		deps.ScanMode = core.ScanAuto
	}
	if !core.ValidScanMode(deps.ScanMode) || deps.ScanMode == core.ScanVerify {
		return nil, fmt.Errorf("core: scan mode %q is not one of static, deep, auto", deps.ScanMode)
	}
	clk, newID := core.Clock(deps.Now), deps.NewID
	audit := core.Auditor{Clock: clk, NewID: newID}
	events := &event.Publisher{Store: eventStore{deps.Store}, Queue: deps.WebhookQueue, Clock: clk, NewID: newID, Log: deps.Logger}
	if err := deps.TCF.Check(); err != nil {
		return nil, fmt.Errorf("core: %w", err)
	}
	views := &banner.PublicViews{Store: bannerStore{deps.Store}}
	tcf := tcfpkg.Ports{Lists: deps.VendorLists, Deployment: deps.TCF, Decoder: deps.TCStrings}
	if tcf.Lists == nil {
		tcf.Lists = &tcfpkg.StoredLists{Store: tcfStore{deps.Store}, Clock: clk}
	}
	scans := &scan.Scans{Store: scanStore{deps.Store}, Queue: deps.Queue, Clock: clk, NewID: newID, ScanMode: deps.ScanMode,
		Audit: audit, Events: events, Views: views, Importer: banner.Importer{Catalog: deps.Catalog, Clock: clk, NewID: newID}}
	verifiers := &verifier.Verifiers{Store: verifierStore{deps.Store}, Clock: clk, Audit: audit}
	banners := &banner.Banners{Store: bannerStore{deps.Store}, Catalog: deps.Catalog, Clock: clk, Audit: audit, Events: events, Views: views, TCF: tcf}
	if deps.Analytics == nil {
		deps.Analytics, _ = deps.Store.(analytics.Store)
	}
	var stats *analytics.Analytics
	var decisions consent.DecisionCounter
	if deps.Analytics != nil {
		stats = &analytics.Analytics{Agg: &analytics.Aggregator{Store: deps.Analytics, Log: deps.Logger},
			Sites: siteStore{deps.Store}, Views: views, Verifiers: verifiers, Clock: clk}
		decisions = stats
	}
	counter := deps.ExperimentCounter
	if counter == nil && deps.Analytics != nil {
		counter = experimentCounter{stats.Agg}
	}
	return &UseCases{
		Experiments: &experiment.Experiments{Store: experimentStore{deps.Store}, Banners: banners, Counter: counter,
			Views: views, Clock: clk, NewID: newID, Audit: audit},
		Analytics:  stats,
		Verifiers:  verifiers,
		Edge:       &edge.RuleSets{Views: views, Catalog: deps.Catalog, Clock: clk},
		Orgs:       &identity.Orgs{Store: identityStore{deps.Store}, Clock: clk, NewID: newID, Log: deps.Logger, Audit: audit},
		Sites:      &site.Sites{Store: siteStore{deps.Store}, Clock: clk, NewID: newID, Audit: audit, Events: events, Views: views},
		Banners:    banners,
		Categories: &banner.Categories{Store: bannerStore{deps.Store}, Clock: clk, NewID: newID, Audit: audit, Events: events, Views: views},
		Services: &banner.Services{Store: bannerStore{deps.Store}, Catalog: deps.Catalog, Clock: clk, NewID: newID, Audit: audit, Events: events, Views: views,
			Importer: banner.Importer{Catalog: deps.Catalog, Clock: clk, NewID: newID}},
		Library: &banner.Library{Catalog: deps.Catalog},
		Scans:   scans,
		ScanWorker: &scan.ScanWorker{Store: scanStore{deps.Store}, Crawler: deps.Crawler, Catalog: deps.Catalog, AllSites: deps.AllSites,
			Clock: clk, Log: deps.Logger, ScanMode: deps.ScanMode, DefaultScanPeriod: deps.DefaultScanPeriod, Events: events, Scans: scans,
			Verifiers: verifiers},
		PublicBanner: &consent.PublicBanner{Store: consentStore{deps.Store}, Catalog: deps.Catalog, Clock: clk, NewID: newID, Views: views, TCF: tcf,
			Verifiers: verifiers, Decisions: decisions},
		ConsentLog: &consent.ConsentLog{Store: consentStore{deps.Store}, AllSites: deps.AllSites, Clock: clk, Audit: audit, Events: events, Stats: statsOf(stats)},
		Compliance: &scan.Compliance{Store: scanStore{deps.Store}, Catalog: deps.Catalog, Clock: clk, Views: views, TCF: tcf},
		Webhooks: &watch.Webhooks{Store: watchStore{deps.Store}, Sender: deps.WebhookSender, AllowPrivate: deps.WebhookAllowPrivate,
			Clock: clk, NewID: newID, Log: deps.Logger, Audit: audit, Events: events, Mailer: deps.Mailer, PublicURL: strings.TrimRight(deps.PublicURL, "/")},
		Digests: &watch.Digests{Store: watchStore{deps.Store}, AllSites: deps.AllSites, Mailer: deps.Mailer, PublicURL: strings.TrimRight(deps.PublicURL, "/"),
			Every: cmp.Or(deps.DigestEvery, watch.DefaultDigestEvery), Clock: clk, Log: deps.Logger, Audit: audit},
		Health:   &Health{store: deps.Store},
		AuditLog: &identity.AuditLog{Store: identityStore{deps.Store}, AllSites: deps.AllSites, Clock: clk},
		Sessions: &identity.Sessions{Store: identityStore{deps.Store}, Clock: clk, Log: deps.Logger, Audit: audit},
		Users:    &identity.Users{Store: identityStore{deps.Store}, Clock: clk, NewID: newID, Audit: audit, Mailer: deps.Mailer, SSOAllowPrivate: deps.SSOAllowPrivate},
		TCF:      &tcfpkg.TCF{Store: tcfStore{deps.Store}, Source: deps.GVLSource, Clock: clk, Log: deps.Logger, TCF: tcf},
	}, nil
}

// Health reports on the dependencies, for readiness probes.
type Health struct {
	store Store
}

// Ready reports whether the store answers.
func (health *Health) Ready(ctx context.Context) error { return health.store.Ping(ctx) }

// statsOf is the statistics' source: the analytics, or none (nil, not a nil pointer).
func statsOf(a *analytics.Analytics) consent.StatsSource {
	if a == nil {
		return nil
	}
	return a
}
