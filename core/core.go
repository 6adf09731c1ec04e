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
	// SSOAllowPrivate lets organizations' single sign-on issuers be http URLs (the adapter
	// that calls them then also reaches loopback and private addresses).
	SSOAllowPrivate bool
	// Mailer sends email digests and invitations (optional: none without it); PublicURL is the base of the
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
	// GVLSource is where TCF.RefreshGVL fetches the IAB's Global Vendor List (optional:
	// without it the list is only what the store holds). VendorLists, when set, is read
	// instead of the store's versions (tests). TCF is the deployment's CMP ID and version (a
	// zero CMP ID: TCF cannot be turned on).
	GVLSource   GVLSource
	VendorLists VendorLists
	TCF         TCFDeployment
	// TCStrings decodes the TC strings consent POSTs carry (without it, one is refused).
	TCStrings TCStringDecoder
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
	ScanWorker *ScanWorker
	// PublicBanner serves the public endpoints a site's banner calls; ConsentLog keeps
	// the consent records they make.
	PublicBanner *PublicBanner
	ConsentLog   *ConsentLog
	Compliance   *Compliance
	Webhooks     *Webhooks
	Digests      *Digests
	Health       *Health
	AuditLog     *AuditLog
	// TCF keeps the IAB's Global Vendor List (docs/tcf.md).
	TCF      *TCF
	Sessions *Sessions
	Users    *Users
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
	clk, newID := clock(deps.Now), deps.NewID
	audit := auditor{clock: clk, newID: newID}
	events := &publisher{store: deps.Store, queue: deps.WebhookQueue, clock: clk, newID: newID, log: deps.Logger}
	if err := deps.TCF.Check(); err != nil {
		return nil, fmt.Errorf("core: %w", err)
	}
	views := &publicViews{store: deps.Store}
	tcf := tcfDeps{lists: deps.VendorLists, deployment: deps.TCF, decoder: deps.TCStrings}
	if tcf.lists == nil {
		tcf.lists = &storedLists{store: deps.Store, clock: clk}
	}
	scans := &Scans{store: deps.Store, queue: deps.Queue, clock: clk, newID: newID, scanMode: deps.ScanMode,
		audit: audit, events: events, views: views, importer: importer{catalog: deps.Catalog, clock: clk, newID: newID}}
	return &UseCases{
		Orgs:       &Orgs{store: deps.Store, clock: clk, newID: newID, log: deps.Logger, audit: audit},
		Sites:      &Sites{store: deps.Store, clock: clk, newID: newID, audit: audit, events: events, views: views},
		Banners:    &Banners{store: deps.Store, catalog: deps.Catalog, clock: clk, audit: audit, events: events, views: views, tcf: tcf},
		Categories: &Categories{store: deps.Store, clock: clk, newID: newID, audit: audit, events: events, views: views},
		Services: &Services{store: deps.Store, catalog: deps.Catalog, clock: clk, newID: newID, audit: audit, events: events, views: views,
			importer: importer{catalog: deps.Catalog, clock: clk, newID: newID}},
		Library: &Library{catalog: deps.Catalog},
		Scans:   scans,
		ScanWorker: &ScanWorker{store: deps.Store, crawler: deps.Crawler, catalog: deps.Catalog, allSites: deps.AllSites,
			clock: clk, log: deps.Logger, scanMode: deps.ScanMode, defaultScanPeriod: deps.DefaultScanPeriod, events: events, scans: scans},
		PublicBanner: &PublicBanner{store: deps.Store, catalog: deps.Catalog, clock: clk, newID: newID, views: views, tcf: tcf},
		ConsentLog:   &ConsentLog{store: deps.Store, allSites: deps.AllSites, clock: clk, audit: audit, events: events},
		Compliance:   &Compliance{store: deps.Store, catalog: deps.Catalog, clock: clk, views: views, tcf: tcf},
		Webhooks: &Webhooks{store: deps.Store, sender: deps.WebhookSender, allowPrivate: deps.WebhookAllowPrivate,
			clock: clk, newID: newID, log: deps.Logger, audit: audit, events: events, mailer: deps.Mailer, publicURL: strings.TrimRight(deps.PublicURL, "/")},
		Digests: &Digests{store: deps.Store, allSites: deps.AllSites, mailer: deps.Mailer, publicURL: strings.TrimRight(deps.PublicURL, "/"),
			every: cmp.Or(deps.DigestEvery, DefaultDigestEvery), clock: clk, log: deps.Logger, audit: audit},
		Health:   &Health{store: deps.Store},
		AuditLog: &AuditLog{store: deps.Store, allSites: deps.AllSites, clock: clk},
		Sessions: &Sessions{store: deps.Store, clock: clk, log: deps.Logger, audit: audit},
		Users:    &Users{store: deps.Store, clock: clk, newID: newID, audit: audit, mailer: deps.Mailer, ssoAllowPrivate: deps.SSOAllowPrivate},
		TCF:      &TCF{store: deps.Store, source: deps.GVLSource, clock: clk, log: deps.Logger, tcf: tcf},
	}, nil
}

// Health reports on the dependencies, for readiness probes.
type Health struct {
	store Store
}

// Ready reports whether the store answers.
func (health *Health) Ready(ctx context.Context) error { return health.store.Ping(ctx) }
