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
}

// ConsentQuery selects a page of a site's consent records, newest first. From and To are
// exclusive bounds on createdAt.
type ConsentQuery struct {
	SiteID   string
	From, To *time.Time
	Page     int
	Limit    int
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
		if n := len([]rune(*in.VisitorID)); n < 1 || n > MaxVisitorID {
			return nil, Errorf(CodeInvalid, "visitorId: must be 1 to %d characters", MaxVisitorID)
		}
		if err := CheckText("visitorId", *in.VisitorID); err != nil {
			return nil, err
		}
		visitor = *in.VisitorID
	}
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
	r := &ConsentRecord{
		ID: m.newID(), SiteID: site.ID, VisitorID: visitor, IPCountry: in.Country, Jurisdiction: jur,
		CategoriesConsented: decided, GPCSignal: in.GPC, DoNotSell: in.DoNotSell || gpcOptOut,
		ConsentVersion: in.ConsentVersion, CreatedAt: m.now(),
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
	if _, err := m.store.Site(ctx, orgID, q.SiteID); err != nil {
		return err
	}
	return m.store.EachConsentRecord(ctx, q, fn)
}

// PublicConfig is everything the banner runtime needs for a site, in one language.
type PublicConfig struct {
	ProjectKey   string `json:"projectKey"`
	Jurisdiction string `json:"jurisdiction"`
	// Lang is the language of Texts and of the categories' and services' names and
	// descriptions; Languages are all the languages the site's banner speaks. Texts leave out
	// DeclarationTextKeys.
	Lang      string            `json:"lang"`
	Languages []string          `json:"languages"`
	Texts     map[string]string `json:"texts"`
	Banner    *Banner           `json:"banner"`
	// Categories are localized in Lang; their translation maps are left out.
	Categories    []PublicCategory `json:"categories"`
	BlockingRules *BlockingRules   `json:"blockingRules"`
	// CookieRules are the first-party cookies the runtime deletes on withdrawal.
	CookieRules []CookieRule `json:"cookieRules"`
}

// PublicCategory is a category with the services in it, as the runtime shows it.
type PublicCategory struct {
	*Category
	Services []*Service `json:"services"`
}

// PublicConfig returns the runtime configuration of the site named by projectKey, for a
// visitor from country who prefers the languages prefs (BCP 47 tags, best first). It is cached
// for a second per project key and language (see ttlCache).
func (m *Consents) PublicConfig(ctx context.Context, projectKey, country string, prefs ...string) (*PublicConfig, error) {
	now := m.clock()
	v, err := m.publicSite(ctx, projectKey, now)
	if err != nil {
		return nil, err
	}
	lang := v.language(prefs)
	key := projectKey + "\x00" + lang
	base, ok := m.configCache.get(key, now)
	if !ok {
		base = m.publicConfig(v, lang)
		m.configCache.put(key, v.site.ID, base, v.at)
	}
	cfg := *base // shallow: the shared parts are read only
	cfg.Jurisdiction = JurisdictionOf(country)
	return &cfg, nil
}

func (m *base) publicConfig(v *siteView, lang string) *PublicConfig {
	texts := v.texts(lang)
	for _, k := range DeclarationTextKeys {
		delete(texts, k)
	}
	// The texts travel in one language, merged into Texts. The banner carries the site's own
	// texts for that language as its textOverrides (for runtimes from before Texts, still cached
	// by browsers) and no other language.
	b := *v.banner
	b.TextOverrides, b.TextTranslations = v.siteTexts(lang), map[string]map[string]string{}
	cfg := &PublicConfig{
		ProjectKey: v.site.ProjectKey, Banner: &b, Lang: lang, Languages: v.languages(), Texts: texts,
		BlockingRules: m.blockingRules(v.banner, v.cats, v.svcs), Categories: make([]PublicCategory, 0, len(v.cats)),
		CookieRules: m.cookieRules(v.cats, v.svcs),
	}
	for _, c := range v.cats {
		lc := *c
		lc.Name, lc.Description = categoryText(c, lang)
		lc.NameTranslations, lc.DescriptionTranslations = map[string]string{}, map[string]string{}
		pc := PublicCategory{Category: &lc, Services: []*Service{}}
		for _, s := range v.svcs {
			if s.CategoryID != c.ID {
				continue
			}
			ls := *s
			ls.Label, ls.Description = translated(s.LabelTranslations, lang, s.Label), translated(s.DescriptionTranslations, lang, s.Description)
			ls.LabelTranslations, ls.DescriptionTranslations = map[string]string{}, map[string]string{}
			ls.Cookies = make([]*Cookie, len(s.Cookies))
			for i, k := range s.Cookies {
				lk := *k
				lk.Description = translated(k.DescriptionTranslations, lang, k.Description)
				lk.DescriptionTranslations = map[string]string{}
				ls.Cookies[i] = &lk
			}
			pc.Services = append(pc.Services, &ls)
		}
		cfg.Categories = append(cfg.Categories, pc)
	}
	return cfg
}
