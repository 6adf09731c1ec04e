package core

import (
	"context"
	"slices"
	"time"
)

// Jurisdictions of consent records.
const (
	JurisdictionGDPR = "gdpr"
	JurisdictionCCPA = "ccpa"
	JurisdictionNone = "none"
)

// Consent actions, stored on every record.
var ConsentActions = []string{"accept_all", "reject_all", "custom", "gpc"}

// ConsentRecord is one stored visitor decision, kept as proof of consent.
type ConsentRecord struct {
	ID                  string          `json:"id"`
	SiteID              string          `json:"siteId"`
	VisitorID           string          `json:"visitorId"`
	IPCountry           string          `json:"ipCountry"`
	Jurisdiction        string          `json:"jurisdiction"`
	CategoriesConsented map[string]bool `json:"categoriesConsented"`
	GPCSignal           bool            `json:"gpcSignal"`
	DoNotSell           bool            `json:"doNotSell"`
	ConsentVersion      int             `json:"consentVersion"`
	Action              string          `json:"action"`
	CreatedAt           time.Time       `json:"createdAt"`
	// PageURL is the page the decision was made on: origin and path, never the query.
	PageURL string `json:"pageUrl"`
	// UserAgent is a coarse family derived from the User-Agent header ("Chrome desktop").
	UserAgent string `json:"userAgent"`
	// SnapshotHash names what the visitor was shown (GET /sites/{id}/consent-snapshots/{hash}).
	SnapshotHash string `json:"snapshotHash"`
	// VisitorSalt and VisitorHash represent the visitor in the chain: erasure removes
	// VisitorID and VisitorSalt and keeps the hash, so the chain still verifies.
	VisitorSalt string `json:"visitorSalt"`
	VisitorHash string `json:"visitorHash"`
	// RecordHash is the SHA-256 of the record's canonical form (see proof.go).
	RecordHash string `json:"recordHash"`
	// BatchSeq and BatchIndex place the record in its site's chain; BatchHash and
	// PrevBatchHash are its batch's link (filled in exports and the consent POST's answer).
	BatchSeq      int64  `json:"batchSeq"`
	BatchIndex    int    `json:"batchIndex"`
	BatchHash     string `json:"batchHash,omitempty"`
	PrevBatchHash string `json:"prevBatchHash,omitempty"`
}

// ConsentQuery selects a page of a site's consent records, newest first. From and To are
// exclusive bounds on createdAt.
type ConsentQuery struct {
	SiteID   string
	From, To *time.Time
	Page     int
	Limit    int
	// VisitorID keeps only the visitor's records ("" for all).
	VisitorID string
	// After, when set, starts the page after this record in listing order (a decoded
	// cursor); Page is then 1.
	After *ConsentKey
}

// ConsentKey is a record's place in listing order.
type ConsentKey struct {
	CreatedAt time.Time
	ID        string
}

// validateDates checks that the date filters name instants every store holds.
func (q ConsentQuery) validateDates() error {
	if q.From != nil {
		if err := CheckTime("from", *q.From); err != nil {
			return err
		}
	}
	if q.To != nil {
		if err := CheckTime("to", *q.To); err != nil {
			return err
		}
	}
	return nil
}

// validateVisitor checks the visitor filter as a visitor ID is checked when recorded.
func (q ConsentQuery) validateVisitor() error {
	if q.VisitorID == "" {
		return nil
	}
	return checkVisitorID(q.VisitorID)
}

func checkVisitorID(v string) error {
	if n := len([]rune(v)); n < 1 || n > MaxVisitorID {
		return Errorf(CodeInvalid, "visitorId: must be 1 to %d characters", MaxVisitorID)
	}
	return CheckText("visitorId", v)
}

// ConsentStore persists consent records. Records are append-only.
type ConsentStore interface {
	// CreateConsentRecord stores a record durably before returning: once it returns nil the
	// record is committed. A site that does not exist is not_found.
	CreateConsentRecord(ctx context.Context, r *ConsentRecord) error
	// ConsentRecords returns one page of records, newest first (ties by id, descending), and
	// the exact number of records matching q.
	ConsentRecords(ctx context.Context, q ConsentQuery) ([]*ConsentRecord, int, error)
	// EachConsentRecord calls fn with every record matching q's site and dates (Page and Limit
	// are ignored), newest first, in the order of ConsentRecords, holding only a bounded number
	// of records in memory. It stops at fn's first error and returns it.
	EachConsentRecord(ctx context.Context, q ConsentQuery, fn func(*ConsentRecord) error) error
	// SaveConsentSnapshot stores a snapshot unless the site has one with its hash. A site
	// that does not exist is not_found.
	SaveConsentSnapshot(ctx context.Context, s *ConsentSnapshot) error
	// ConsentSnapshot finds a snapshot of the site by hash; not_found when there is none.
	ConsentSnapshot(ctx context.Context, siteID, hash string) (*ConsentSnapshot, error)
	// EraseConsentVisitor removes the visitor ID and its salt from every record of the site
	// naming visitorID, and returns how many it changed.
	EraseConsentVisitor(ctx context.Context, siteID, visitorID string) (int, error)
	// ConsentStatBuckets returns the site's aggregates per bucket of interval (StatsHour,
	// StatsDay or StatsWeek, see StatsBucketStart) for the buckets with from <= start < to,
	// from the hour aggregates kept with the inserts, in bucket order; buckets without
	// records are left out. The aggregates count every record ever committed, including those
	// retention removed since.
	ConsentStatBuckets(ctx context.Context, siteID string, from, to time.Time, interval string) ([]ConsentBucketStat, error)
	// RemoveConsentBatches removes, oldest first, the site's whole batches whose newest record
	// is older than before, at most limit batches, records included, and makes the last
	// removed batch the chain's anchor. It returns the number of records removed.
	RemoveConsentBatches(ctx context.Context, siteID string, before time.Time, limit int) (int, error)
	ConsentChainStore
}

// Limits of consent listing and recording.
const (
	DefaultConsentLimit = 50
	MaxConsentLimit     = 100
	MaxVisitorID        = 100
)

// ConsentInput is a decision posted by the banner runtime.
type ConsentInput struct {
	VisitorID      *string
	Categories     map[string]bool
	ConsentVersion int
	DoNotSell      bool
	Action         *string
	// GPC is true when the request carried a Global Privacy Control signal.
	GPC bool
	// Country is the visitor's ISO 3166-1 alpha-2 country, "" when unknown.
	Country string
	// Language is the language of the texts the runtime showed ("" for the defaults).
	Language string
	// RuntimeVersion is the banner runtime's version ("" when it did not say).
	RuntimeVersion string
	// PageURL is the page the decision was made on; only its origin and path are kept.
	PageURL string
	// UserAgent is the request's User-Agent header; only a coarse family is kept.
	UserAgent string
}

// gdprCountries are the EU and EEA member states plus the United Kingdom and Switzerland.
var gdprCountries = []string{
	"AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV",
	"LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "IS", "LI", "NO", "GB", "CH",
}

// JurisdictionOf maps an ISO country code to the privacy regime the banner applies.
func JurisdictionOf(country string) string {
	switch {
	case slices.Contains(gdprCountries, country):
		return JurisdictionGDPR
	case country == "US":
		return JurisdictionCCPA
	default:
		return JurisdictionNone
	}
}

// gpcCategory is the category a Global Privacy Control signal turns off under CCPA: the one
// holding the services that sell or share personal data.
const gpcCategory = "marketing"

// RecordConsent stores a visitor's decision for the site named by projectKey. Every category
// of the site is stored with an explicit boolean: required ones always true, unmentioned ones
// false. A GPC signal under CCPA also stores doNotSell.
func (m *Consents) RecordConsent(ctx context.Context, projectKey string, in ConsentInput) (*ConsentRecord, error) {
	site, cats, err := m.consentSite(ctx, projectKey)
	if err != nil {
		return nil, err
	}
	if in.ConsentVersion < 1 || in.ConsentVersion > MaxConsentVersion {
		return nil, Errorf(CodeInvalid, "consentVersion: must be 1 to %d", MaxConsentVersion)
	}
	if in.Action != nil && !slices.Contains(ConsentActions, *in.Action) {
		return nil, Errorf(CodeInvalid, "action: must be one of %v", ConsentActions)
	}
	visitor := m.newID()
	if in.VisitorID != nil {
		if err := checkVisitorID(*in.VisitorID); err != nil {
			return nil, err
		}
		visitor = *in.VisitorID
	}
	in.Country = countryCode(in.Country)
	jur := JurisdictionOf(in.Country)
	// Under CCPA a Global Privacy Control signal is an opt-out of sale and sharing: marketing
	// is off and doNotSell on, whatever the client sent, as the runtime does in the browser.
	gpcOptOut := in.GPC && jur == JurisdictionCCPA
	known := make(map[string]bool, len(cats))
	decided := make(map[string]bool, len(cats))
	allOn, allOff := true, true
	for _, c := range cats {
		known[c.Slug] = true
		v := in.Categories[c.Slug] || c.IsRequired
		if gpcOptOut && c.Slug == gpcCategory && !c.IsRequired {
			v = false
		}
		decided[c.Slug] = v
		if !c.IsRequired {
			allOn, allOff = allOn && v, allOff && !v
		}
	}
	for slug := range in.Categories {
		if !known[slug] {
			return nil, Errorf(CodeInvalid, "categories.%s: unknown category", slug)
		}
	}
	page, err := PageURL(in.PageURL)
	if err != nil {
		return nil, err
	}
	snap, err := m.snapshotFor(ctx, projectKey, in.Language, in.RuntimeVersion)
	if err != nil {
		return nil, err
	}
	r := &ConsentRecord{
		ID: m.newID(), SiteID: site.ID, VisitorID: visitor, IPCountry: in.Country, Jurisdiction: jur,
		CategoriesConsented: decided, GPCSignal: in.GPC, DoNotSell: in.DoNotSell || gpcOptOut,
		ConsentVersion: in.ConsentVersion, CreatedAt: m.now(),
		PageURL: page, UserAgent: UserAgentFamily(in.UserAgent), SnapshotHash: snap.Hash,
	}
	switch {
	case in.Action != nil:
		r.Action = *in.Action
	case allOn:
		r.Action = "accept_all"
	case allOff:
		r.Action = "reject_all"
	default:
		r.Action = "custom"
	}
	SealConsentRecord(r)
	if err := m.store.CreateConsentRecord(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

// ConsentRecords lists a page of a site's consent records, newest first, with the total.
func (m *Consents) ConsentRecords(ctx context.Context, orgID string, q ConsentQuery) ([]*ConsentRecord, int, error) {
	if q.Page < 1 || q.Page > MaxConsentPage {
		return nil, 0, Errorf(CodeInvalid, "page: must be 1 to %d", MaxConsentPage)
	}
	if q.Limit < 1 || q.Limit > MaxConsentLimit {
		return nil, 0, Errorf(CodeInvalid, "limit: must be 1 to %d", MaxConsentLimit)
	}
	if err := q.validateDates(); err != nil {
		return nil, 0, err
	}
	if err := q.validateVisitor(); err != nil {
		return nil, 0, err
	}
	if q.After != nil && q.Page != 1 {
		return nil, 0, Errorf(CodeInvalid, "page: must be 1 (or absent) with a cursor")
	}
	if _, err := m.store.Site(ctx, orgID, q.SiteID); err != nil {
		return nil, 0, err
	}
	return m.store.ConsentRecords(ctx, q)
}

// ExportConsentRecords streams every record of the site matching q's dates to fn, newest
// first; Page and Limit are ignored. Another organization's site is not_found. fn's first error
// stops the export and is returned.
func (m *Consents) ExportConsentRecords(ctx context.Context, orgID string, q ConsentQuery, fn func(*ConsentRecord) error) error {
	if err := q.validateDates(); err != nil {
		return err
	}
	if err := q.validateVisitor(); err != nil {
		return err
	}
	q.After = nil
	if _, err := m.store.Site(ctx, orgID, q.SiteID); err != nil {
		return err
	}
	return m.store.EachConsentRecord(ctx, q, fn)
}

// PublicConfig is everything the banner runtime needs for a site.
type PublicConfig struct {
	ProjectKey    string           `json:"projectKey"`
	Jurisdiction  string           `json:"jurisdiction"`
	Banner        *Banner          `json:"banner"`
	Categories    []PublicCategory `json:"categories"`
	BlockingRules *BlockingRules   `json:"blockingRules"`
}

// PublicCategory is a category with the services in it, as the runtime shows it.
type PublicCategory struct {
	*Category
	Services []*Service `json:"services"`
}

// PublicConfig returns the runtime configuration of the site named by projectKey, for a
// visitor from country. It is cached for a second per project key (see ttlCache).
func (m *Consents) PublicConfig(ctx context.Context, projectKey, country string) (*PublicConfig, error) {
	now := m.clock()
	base, ok := m.configCache.get(projectKey, now)
	if !ok {
		var err error
		if base, err = m.loadPublicConfig(ctx, projectKey); err != nil {
			return nil, err
		}
		m.configCache.put(projectKey, base.Banner.SiteID, base, now)
	}
	cfg := *base // shallow: the shared parts are read only
	cfg.Jurisdiction = JurisdictionOf(country)
	return &cfg, nil
}

func (m *base) loadPublicConfig(ctx context.Context, projectKey string) (*PublicConfig, error) {
	site, err := m.store.SiteByProjectKey(ctx, projectKey)
	if err != nil {
		return nil, err
	}
	b, err := m.store.Banner(ctx, site.ID)
	if err != nil {
		return nil, err
	}
	cats, err := m.store.Categories(ctx, site.ID)
	if err != nil {
		return nil, err
	}
	svcs, err := m.store.Services(ctx, site.ID)
	if err != nil {
		return nil, err
	}
	cfg := &PublicConfig{
		ProjectKey: site.ProjectKey, Banner: b,
		BlockingRules: m.blockingRules(b, cats, svcs), Categories: make([]PublicCategory, 0, len(cats)),
	}
	for _, c := range cats {
		pc := PublicCategory{Category: c, Services: []*Service{}}
		for _, s := range svcs {
			if s.CategoryID == c.ID {
				pc.Services = append(pc.Services, s)
			}
		}
		cfg.Categories = append(cfg.Categories, pc)
	}
	return cfg, nil
}
