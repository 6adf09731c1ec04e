package banner

import (
	"encoding/json"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/gpp"
)

// PublicConfig is everything the banner runtime needs for a site, in one language.
type PublicConfig struct {
	ProjectKey   string `json:"projectKey"`
	Jurisdiction string `json:"jurisdiction"`
	// Lang is the language of Texts and of the categories' and services' names and
	// descriptions; Languages are all the languages the site's banner speaks. Texts leave out
	// declarationTextKeys.
	Lang      string            `json:"lang"`
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
// categories carry their names (without their descriptions) and name their services by slug
// and label only (the blocked-content placeholders show the label); the categories' and
// services' descriptions and the services' cookies, which only the preferences and the
// declaration show, come with the declaration (PublicDeclaration), which the runtime fetches
// when the visitor opens them, as do the texts only they show (FirstViewTexts). The banner and the categories
// carry what the runtime reads of them, no identifiers, timestamps or other languages. The
// cookie rules, which only a withdrawal needs, are left out too: the runtime fetches the full
// configuration at the first withdrawal. GET /public/{projectKey}/config keeps carrying everything.
type FirstViewConfig struct {
	*PublicConfig
	// CookieRules are left out (nil).
	CookieRules []CookieRule `json:"cookieRules,omitempty"`
	// Texts leave out the preferences' own too (FirstViewTexts).
	Texts      map[string]string   `json:"texts"`
	Banner     FirstViewBanner     `json:"banner"`
	Categories []FirstViewCategory `json:"categories"`
	// Policy leaves out a refusal's lifetime where it is the banner's cookieExpirationDays,
	// which the runtime then takes (the first view's bytes: #28).
	Policy *Policy `json:"policy"`
}

// FirstViewBanner is what the runtime reads of the banner. The URLs and the cookie domain are
// left out when unset (the runtime reads them by truthiness): the first view's bytes (#28),
// which pay for the A/B test variant the runtime keeps with a decision (#46).
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

// FirstViewCategory is a category of a FirstViewConfig.
type FirstViewCategory struct {
	Slug      string        `json:"slug"`
	Name      string        `json:"name"`
	SortOrder int           `json:"sortOrder"`
	Services  []ServiceName `json:"services"`
}

// ServiceName names a service of a FirstViewCategory.
type ServiceName struct {
	Slug  string `json:"slug"`
	Label string `json:"label"`
}

// FirstView returns the first-view configuration of cfg (shared parts read only).
func (cfg *PublicConfig) FirstView() *FirstViewConfig {
	b := cfg.Banner
	out := &FirstViewConfig{PublicConfig: cfg, Texts: FirstViewTexts(cfg.Texts), Categories: make([]FirstViewCategory, len(cfg.Categories)),
		Banner: FirstViewBanner{Template: b.Template, Position: b.Position, Colors: b.Colors, LogoURL: b.LogoURL,
			PrivacyPolicyURL: b.PrivacyPolicyURL, CookiePolicyURL: b.CookiePolicyURL, CloseButtonBehavior: b.CloseButtonBehavior,
			CookieExpirationDays: b.CookieExpirationDays, ConsentVersion: b.ConsentVersion, ReopenButton: b.ReopenButton,
			ReopenPosition: b.ReopenPosition, CookieDomain: b.CookieDomain}}
	if p := cfg.Policy; p != nil && p.ReaskAfterRejectDays == b.CookieExpirationDays {
		short := *p
		short.ReaskAfterRejectDays = 0
		out.Policy = &short
	} else {
		out.Policy = p
	}
	// The Do Not Sell or Share control's label only for a visitor whose rule offers it.
	if cfg.Policy == nil || !cfg.Policy.DoNotSellLink {
		delete(out.Texts, doNotSellTextKey)
	}
	// The honoured signal's label only for a visitor to whom the runtime shows it.
	if cfg.Policy == nil || !cfg.Policy.GPC.Display {
		delete(out.Texts, GPCHonoredTextKey)
	}
	for i, pc := range cfg.Categories {
		names := make([]ServiceName, len(pc.Services))
		for j, s := range pc.Services {
			names[j] = ServiceName{Slug: s.Slug, Label: s.Label}
		}
		out.Categories[i] = FirstViewCategory{Slug: pc.Slug, Name: pc.Name, SortOrder: pc.SortOrder, Services: names}
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
