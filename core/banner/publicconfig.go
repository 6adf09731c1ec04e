package banner

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/gpp"
	"github.com/consentd/consentd/library"
)

// PublicConfig is everything the banner runtime needs for a site, in one language.
type PublicConfig struct {
	ProjectKey   string `json:"projectKey"`
	Jurisdiction string `json:"jurisdiction"`
	// Lang is the language of Texts and of the categories' and services' names and
	// descriptions; Languages are all the languages the site's banner speaks. Texts leave out
	// declarationTextKeys.
	Lang string `json:"lang"`
	// Dir is "rtl" when Lang is written right to left (Dir), else empty and left out.
	Dir       string            `json:"dir,omitempty" doc:"rtl when lang is written right to left (Arabic, Hebrew, …): the runtime lays the banner, its preferences and the TCF layers out mirrored. Absent for left to right."`
	Languages []string          `json:"languages"`
	Texts     map[string]string `json:"texts"`
	Banner    *Banner           `json:"banner"`
	// Categories are localized in Lang; their translation maps are left out.
	Categories    []PublicCategory `json:"categories"`
	BlockingRules *BlockingRules   `json:"blockingRules"`
	// CookieRules are the first-party cookies the runtime deletes on withdrawal.
	CookieRules []CookieRule `json:"cookieRules"`
	// Policy is what the runtime does for this visitor, decided by DecidePolicy; the runtime
	// applies it and recomputes none of it.
	Policy *Policy `json:"policy" doc:"What the runtime does for this visitor (its jurisdiction): the categories' initial states, what a Global Privacy Control signal turns off, the signals each category grants to Google Consent Mode and the storefront, the hosts never held. Decided by the server; the runtime applies it as it is."`
	// Region is the visitor's subdivision (ISO 3166-2, "US-CO"), "" when unknown; Rule names the
	// banner's regional rule that applies (VisitorRule.Ref), "" on a banner without them.
	Region string `json:"region,omitempty" doc:"The visitor's subdivision (ISO 3166-2, such as US-CO), when known."`
	Rule   string `json:"rule,omitempty" doc:"The banner's regional rule that applies to the visitor: regionRules[i], or defaultBehavior when none matches; absent on a banner without regional rules."`
	// TCF is whether the IAB TCF applies to this visitor (Banner.TCFApplies): the loader then
	// inlines the __tcfapi stub and the runtime loads the TCF module.
	TCF bool `json:"tcf,omitempty" doc:"Whether the IAB TCF applies to this visitor: the site has tcf.enabled, the visitor's rule is opt_in and the visitor is in the EEA, GB or CH or of unknown location. The loader then inlines the __tcfapi stub and the runtime loads the TCF module."`
	// GPP is what the runtime's __gpp writes for this visitor (Banner.GPPFor), nil when the site
	// has GPP off or no section applies: the loader then inlines no __gpp.
	GPP *gpp.GPPConfig `json:"gpp,omitempty" doc:"The IAB GPP sections the runtime's __gpp writes for this visitor, the values of their fields before and after an opt-out of sale and sharing, and those that apply (docs/gpp.md); absent when the site has GPP off or no section applies to the visitor."`
	// Policies are the site's policies by rule, cached with the rest; location is the
	// visitor's (WithBanner decides a draft's policy for it).
	Policies Policies     `json:"-"`
	Regions  *regionIndex `json:"-"`
	// OptInTexts and optOutTexts are the texts with the notice's usual wording and with its
	// opt-out one (textsFor).
	OptInTexts  map[string]string `json:"-"`
	OptOutTexts map[string]string `json:"-"`
	Location    core.Location     `json:"-"`
	// rule is the visitor's rule, which Jurisdiction, Region and Rule say on the wire.
	rule VisitorRule
	// CmpID is the deployment's CMP ID, which GPPConfig reports.
	CmpID int `json:"-"`
}

// SetRule sets the visitor's rule and what the wire says of it: the jurisdiction, the region
// and the rule's name.
func (cfg *PublicConfig) SetRule(rule VisitorRule) {
	cfg.rule = rule
	cfg.Jurisdiction, cfg.Region, cfg.Rule = rule.Jurisdiction, rule.Location.Region, rule.Ref()
}

// VisitorRule returns the rule the configuration was decided for: the regional rule that
// applies as a value (its index and the rule), for a reader that must not parse Rule.
func (cfg *PublicConfig) VisitorRule() VisitorRule { return cfg.rule }

// TextsFor returns the texts for a visitor for whom the banner does behavior before a decision:
// under opt_out, the notice's body says that what is not needed is on until they opt out.
func (cfg *PublicConfig) TextsFor(behavior string) map[string]string {
	switch {
	case cfg.OptInTexts == nil:
		return cfg.Texts
	case behavior == BehaviorOptOut:
		return cfg.OptOutTexts
	}
	return cfg.OptInTexts
}

// PublicCategory is a category with the services in it, as the runtime shows it.
type PublicCategory struct {
	*Category
	Services []*Service `json:"services"`
}

// FirstViewConfig is the configuration the loader inlines: what a page's first view needs. Its
// categories carry their names (without their descriptions or their services: the preferences,
// the declaration and the blocked iframe's placeholder take the services' labels from the
// declaration, PublicDeclaration, which the runtime fetches when one of them is needed), as do
// the categories' and services' descriptions, the services' cookies and the texts only they
// show (FirstViewTexts). The blocking rules come in a compact form (FirstViewRules). The
// banner and the categories carry what the runtime reads of them, no identifiers, timestamps or
// other languages. The cookie rules, which only a withdrawal needs, are left out too: the
// runtime fetches the full configuration at the first withdrawal. So are the vendors' consent
// APIs where they are the runtime's own defaults (VendorConsents). GET /public/{projectKey}/config
// keeps carrying everything. This keeps the first view at most 12,288 bytes gzipped whatever
// the number of services a site has (#28, #43).
type FirstViewConfig struct {
	*PublicConfig
	// CookieRules are left out (nil).
	CookieRules []CookieRule `json:"cookieRules,omitempty"`
	// Texts leave out the preferences' own too (FirstViewTexts).
	Texts map[string]string `json:"texts"`
	// Languages are left out (nil): the runtime asks the server for the page's language when
	// it differs from Lang (boot.js), which spares every first view the list of the 40 and more
	// languages a site speaks.
	Languages  []string            `json:"languages,omitempty"`
	Banner     FirstViewBanner     `json:"banner"`
	Categories []FirstViewCategory `json:"categories"`
	// BlockingRules are the configuration's in their compact form.
	BlockingRules *FirstViewRules `json:"blockingRules"`
	// Policy leaves out a refusal's lifetime where it is the banner's cookieExpirationDays,
	// which the runtime then takes (the first view's bytes: #28), and the vendors' consent
	// APIs where they are VendorConsents, which the runtime carries.
	Policy *FirstViewPolicy `json:"policy"`
}

// FirstViewPolicy is the Policy of a FirstViewConfig: Vendors is nil (left out) where the
// policy's are the runtime's defaults, VendorConsents (an empty list is sent as one).
type FirstViewPolicy struct {
	*Policy
	Vendors *[]VendorConsent `json:"vendors,omitempty"`
}

// FirstViewRules are BlockingRules in the first view's compact form: each rule is
// [serviceSlug, categorySlug, patterns], its patterns joined by a space (the pattern language
// has no white space), in the rules' order (the first pattern matching a URL holds it). A
// pattern another pattern of the same rule covers (every URL it matches, the other matches
// too: js.hs-analytics.net/ beside *.hs-analytics.net) is left out: the runtime tries a rule's
// patterns one after the other, so the rule holding a URL stays the same. So are patterns that
// do not parse (the runtime skips them too).
type FirstViewRules struct {
	SiteWide bool        `json:"siteWide"`
	Rules    [][3]string `json:"rules"`
}

// CompactRules returns br in the first view's compact form (nil for nil). unheld are the
// policy's hosts never held (Policy.UnheldHosts): a rule with a pattern on one of them keeps
// all its patterns, as which of them matches first then matters.
func CompactRules(br *BlockingRules, unheld []string) *FirstViewRules {
	if br == nil {
		return nil
	}
	out := &FirstViewRules{SiteWide: br.SiteWide, Rules: make([][3]string, 0, len(br.Rules))}
	for _, r := range br.Rules {
		ps := make([]library.Pattern, 0, len(r.Patterns))
		prune := true
		for _, raw := range r.Patterns {
			if p, err := library.ParsePattern(raw); err == nil {
				ps = append(ps, p)
				prune = prune && !unheldHost(p.Host, unheld)
			}
		}
		kept := make([]string, 0, len(ps))
		for i, q := range ps {
			covered := false
			for j, p := range ps {
				if j != i && prune && covers(p, q) && (j < i || !covers(q, p)) {
					covered = true
					break
				}
			}
			if !covered {
				kept = append(kept, q.Raw)
			}
		}
		out.Rules = append(out.Rules, [3]string{r.ServiceSlug, r.CategorySlug, strings.Join(kept, " ")})
	}
	return out
}

// covers reports whether every URL q matches, p matches too (of two equal patterns, each
// covers the other).
func covers(p, q library.Pattern) bool {
	if p.Subdomains {
		if q.Host != p.Host && !strings.HasSuffix(q.Host, "."+p.Host) {
			return false
		}
	} else if q.Subdomains || q.Host != p.Host {
		return false
	}
	if p.Path != "" && (p.Glob || q.Glob || q.Path == "" || !strings.HasPrefix(q.Path, p.Path)) {
		return false
	}
	return p.Param == "" || q.Param == p.Param && strings.HasPrefix(q.ParamPrefix, p.ParamPrefix)
}

// unheldHost reports whether host is one of unheld or a subdomain of one, as the runtime
// decides that a pattern never holds anything.
func unheldHost(host string, unheld []string) bool {
	for _, g := range unheld {
		if host == g || strings.HasSuffix(host, "."+g) {
			return true
		}
	}
	return false
}

// FirstViewBanner is what the runtime reads of the banner; its URLs and cookie domain are left
// out when not set.
type FirstViewBanner struct {
	Template             string            `json:"template"`
	Position             string            `json:"position"`
	Colors               map[string]string `json:"colors"`
	LogoURL              *string           `json:"logoUrl,omitempty"`
	PrivacyPolicyURL     *string           `json:"privacyPolicyUrl,omitempty"`
	CookiePolicyURL      *string           `json:"cookiePolicyUrl,omitempty"`
	CloseButtonBehavior  string            `json:"closeButtonBehavior"`
	CookieExpirationDays int               `json:"cookieExpirationDays"`
	ConsentVersion       int               `json:"consentVersion"`
	ReopenButton         bool              `json:"reopenButton"`
	ReopenPosition       string            `json:"reopenPosition"`
	CookieDomain         *string           `json:"cookieDomain,omitempty"`
}

// FirstViewCategory is a category of a FirstViewConfig, without its services.
type FirstViewCategory struct {
	Slug      string `json:"slug"`
	Name      string `json:"name"`
	SortOrder int    `json:"sortOrder"`
}

// FirstView returns the first-view configuration of cfg (shared parts read only).
func (cfg *PublicConfig) FirstView() *FirstViewConfig {
	b := cfg.Banner
	out := &FirstViewConfig{PublicConfig: cfg, Texts: FirstViewTexts(cfg.Texts), Categories: make([]FirstViewCategory, len(cfg.Categories)),
		Banner: FirstViewBanner{Template: b.Template, Position: b.Position, Colors: b.Colors, LogoURL: b.LogoURL,
			PrivacyPolicyURL: b.PrivacyPolicyURL, CookiePolicyURL: b.CookiePolicyURL, CloseButtonBehavior: b.CloseButtonBehavior,
			CookieExpirationDays: b.CookieExpirationDays, ConsentVersion: b.ConsentVersion, ReopenButton: b.ReopenButton,
			ReopenPosition: b.ReopenPosition, CookieDomain: b.CookieDomain}}
	var unheld []string
	if cfg.Policy != nil {
		unheld = cfg.Policy.UnheldHosts
	}
	out.BlockingRules = CompactRules(cfg.BlockingRules, unheld)
	if p := cfg.Policy; p != nil {
		if p.ReaskAfterRejectDays == b.CookieExpirationDays {
			short := *p
			short.ReaskAfterRejectDays = 0
			p = &short
		}
		out.Policy = &FirstViewPolicy{Policy: p}
		if vs := p.Vendors; !reflect.DeepEqual(vs, VendorConsents()) {
			if vs == nil {
				vs = []VendorConsent{}
			}
			out.Policy.Vendors = &vs
		}
	}
	// The Do Not Sell or Share control's label only for a visitor whose rule offers it.
	if cfg.Policy == nil || !cfg.Policy.DoNotSellLink {
		delete(out.Texts, doNotSellTextKey)
	}
	// The honoured signal's label only for a visitor to whom the runtime shows it, and the
	// notice that a GPC signal is honoured only for one whose signal changes something.
	if cfg.Policy == nil || !cfg.Policy.GPC.Display {
		delete(out.Texts, GPCHonoredTextKey)
	}
	if cfg.Policy == nil || !cfg.Policy.GPC.Honored {
		delete(out.Texts, gpcNoticeTextKey)
	}
	for i, pc := range cfg.Categories {
		out.Categories[i] = FirstViewCategory{Slug: pc.Slug, Name: pc.Name, SortOrder: pc.SortOrder}
	}
	return out
}

// ConsentSnapshot is what a visitor was shown, content-addressed: Hash is the hex SHA-256 of
// Content, the exact bytes stored and served.
type ConsentSnapshot struct {
	SiteID    string          `json:"siteId"`
	Hash      string          `json:"hash"`
	Content   json.RawMessage `json:"content"`
	CreatedAt time.Time       `json:"createdAt"`
}

// WithBanner returns a copy of the configuration with b as its banner and the policy b
// decides for the same visitor: what the runtime does with a draft (the console's preview).
func (cfg *PublicConfig) WithBanner(b *Banner) *PublicConfig {
	out := *cfg // shallow: the shared parts are read only
	out.Banner = b
	cats := make([]*Category, 0, len(cfg.Categories))
	for _, pc := range cfg.Categories {
		cats = append(cats, pc.Category)
	}
	rule := b.VisitorRule(cfg.Location)
	if cfg.Jurisdiction != "" {
		rule.Jurisdiction = cfg.Jurisdiction // the place's, as decided: no banner changes it
	}
	out.SetRule(rule)
	out.Policy = DecidePolicy(b, cats, rule)
	out.Texts = cfg.TextsFor(b.BehaviorFor(rule))
	out.TCF = b.TCFApplies(rule)
	out.GPP = b.GPPFor(rule, cfg.CmpID)
	return &out
}
