package edge

import (
	"slices"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// Format is the version of the rule set's JSON shape (RuleSet.Format): a reader that knows
// an older one must not apply a newer one. Bump it when a field changes meaning.
const Format = 1

// CookieName is the first-party cookie the banner runtime keeps the visitor's decision in
// (bannerjs/site.js COOKIE; a test pins both).
const CookieName = "consentd"

// CookieEncoding names how the cookie's value is written: encodeURIComponent of a JSON object.
const CookieEncoding = "uri-component-json"

// RuleSet is what an edge needs to hold, for any visitor of one site, what the runtime holds:
// served as JSON (docs/edge.md states its shape and how to read it) and read in Go by Visitor.
type RuleSet struct {
	Format     int    `json:"format" doc:"The version of this shape (1). An edge that knows an older one must not apply it."`
	ProjectKey string `json:"projectKey" doc:"The site's project key."`
	// ConsentVersion is the banner's consentVersion: a stored decision of an older version is
	// not current (the runtime asks again, and the policy's initial states apply).
	ConsentVersion int `json:"consentVersion" doc:"The banner's consentVersion: a stored decision with a lower v is not current."`
	// Categories are the slugs of every category of the site: a stored decision is current only
	// when it names each with a boolean.
	Categories []string       `json:"categories" doc:"Every category slug of the site: a stored decision is current only when its c names each with a boolean."`
	Cookie     DecisionCookie `json:"cookie" doc:"Where the visitor's decision is stored."`
	// SiteWide is banner.siteWideBlocking: without it the runtime holds no unmarked tag, and
	// neither does an edge.
	SiteWide bool `json:"siteWide" doc:"Site-wide blocking (the banner's siteWideBlocking): when false nothing unmarked is held, by the runtime or an edge."`
	// Rules are the blocking rules in the runtime's order: the first rule with a pattern
	// matching a URL decides for it.
	Rules []HoldRule `json:"rules" doc:"The blocking rules, built-in and the site's, in order: the first rule with a pattern matching a URL is that URL's rule."`
	// UnheldHosts are hosts (and their subdomains) whose URL's rule never holds.
	UnheldHosts []string `json:"unheldHosts" doc:"Hosts (and their subdomains): a URL whose first matching pattern is on one of them is never held (Google's tags under Consent Mode advanced)."`
	// Policies are the site's policies; Places and Unknown say which applies where.
	Policies []HoldPolicy `json:"policies" doc:"What applies to a visitor before and after a decision, one per regional rule or jurisdiction; places and unknown index it."`
	// Places maps every known country (ISO 3166-1 alpha-2) and the subdivisions (ISO 3166-2)
	// whose policy differs from their country's to an index of Policies.
	Places map[string]int `json:"places" doc:"Known places to an index of policies: every known country (FR), and the subdivisions (US-CA) whose policy differs from their country's. Look up the subdivision, then the country; a country not listed is an unknown location."`
	// Unknown is the index of the policy of a visitor whose location is unknown.
	Unknown int `json:"unknown" doc:"The index of the policy of a visitor whose location is unknown."`
	// Forms are the attributes of the held forms the runtime restores.
	Forms Forms `json:"forms" doc:"The forms held elements take, which the runtime restores once their category is allowed."`
}

// DecisionCookie says where the visitor's decision is stored.
type DecisionCookie struct {
	Name     string `json:"name" doc:"The cookie's name (consentd)."`
	Encoding string `json:"encoding" doc:"uri-component-json: the value is encodeURIComponent of a JSON object whose v is the consent version and c maps category slugs to booleans."`
}

// HoldRule is a blocking rule: URLs matching one of Patterns (library/README.md's pattern
// language) are held until Category is allowed.
type HoldRule struct {
	Service  string   `json:"service" doc:"The service's slug."`
	Category string   `json:"category" doc:"The category that must be allowed."`
	Patterns []string `json:"patterns" doc:"URL patterns: host[/path][?param=prefix], host *.example.com for its subdomains too, path a prefix or a glob with *."`
	// Resources are the library's patterns of the service's other resources (pixels,
	// stylesheets, embeds): they hold images, stylesheets and resource hints, which the
	// runtime never sees, but not scripts or iframes, which it holds by Patterns alone.
	Resources []string `json:"resources" doc:"The library's patterns of the service's other resources (pixels, stylesheets): they hold images, stylesheets and resource hints only; scripts and iframes are held by patterns alone, as the runtime holds them."`
}

// HoldPolicy is what decides a visitor's allowed categories: before a decision the initial
// states, after one the decision; required categories always on, those a GPC signal turns off
// off when the visitor sends one.
type HoldPolicy struct {
	// Rule names the regional rule (banner.VisitorRule.Ref) or, without one, the jurisdiction.
	Rule string `json:"rule" doc:"The regional rule this policy is (regionRules[i]); where none applies, the jurisdiction, after defaultBehavior/ on a banner with regional rules (gdpr, defaultBehavior/ccpa)."`
	// Behavior is what the banner does before a decision (opt_in, opt_out, no_banner).
	Behavior   string                           `json:"behavior" doc:"What the banner does before a decision: opt_in, opt_out or no_banner."`
	Categories map[string]banner.CategoryPolicy `json:"categories" doc:"Each category by slug: its state before a decision (initial) and whether it is always on (required)."`
	// GPCOff are the categories a Global Privacy Control signal (Sec-GPC: 1) turns off, over
	// any decision; empty where the signal is not honoured.
	GPCOff []string `json:"gpcOff" doc:"Categories a Global Privacy Control signal (Sec-GPC: 1) turns off over any decision; empty where the visitor's rule does not honour it."`
}

// Forms are the attributes of the held forms (docs/edge.md): those bannerjs/guard.js writes
// when it holds an element, and restores.
type Forms struct {
	Category     string `json:"category" doc:"The attribute naming a held element's category (data-category)."`
	Service      string `json:"service" doc:"The attribute naming a held element's service (data-consentd-service)."`
	ScriptType   string `json:"scriptType" doc:"A held script's type (text/plain)."`
	OriginalType string `json:"originalType" doc:"The attribute keeping a held script's own type, empty when it had none (data-consentd-type)."`
	IframeSrc    string `json:"iframeSrc" doc:"The attribute a held iframe's src moves to (data-src); the runtime shows its placeholder."`
	LinkHref     string `json:"linkHref" doc:"The attribute a held stylesheet's href moves to (data-href)."`
	ImgSrc       string `json:"imgSrc" doc:"The attribute a held image's src moves to (data-src)."`
	ImgSrcset    string `json:"imgSrcset" doc:"The attribute a held image's srcset moves to (data-srcset)."`
}

// HeldForms are the forms of a held element, as bannerjs/guard.js writes them.
func HeldForms() Forms {
	return Forms{Category: "data-category", Service: "data-consentd-service", ScriptType: "text/plain",
		OriginalType: "data-consentd-type", IframeSrc: "data-src", LinkHref: "data-href", ImgSrc: "data-src",
		ImgSrcset: "data-srcset"}
}

// RuleSetOf decides the rule set of a site from its banner, categories and services and the
// catalog's built-in rules: the blocking rules and policies its runtime configuration carries.
func RuleSetOf(catalog core.Catalog, site *core.Site, b *banner.Banner, cats []*banner.Category, svcs []*banner.Service) *RuleSet {
	br := banner.BlockingRulesOf(catalog, b, cats, svcs)
	rs := &RuleSet{Format: Format, ProjectKey: site.ProjectKey, ConsentVersion: b.ConsentVersion, Categories: make([]string, 0, len(cats)),
		Cookie: DecisionCookie{Name: CookieName, Encoding: CookieEncoding}, SiteWide: br.SiteWide, Rules: make([]HoldRule, 0, len(br.Rules)),
		UnheldHosts: []string{}, Places: map[string]int{}, Forms: HeldForms()}
	for _, c := range cats {
		rs.Categories = append(rs.Categories, c.Slug)
	}
	for _, r := range br.Rules {
		res := []string{}
		if lib, ok := catalog.Service(r.ServiceSlug); ok {
			res = slices.Clone(lib.Resources)
		}
		rs.Rules = append(rs.Rules, HoldRule{Service: r.ServiceSlug, Category: r.CategorySlug, Patterns: slices.Clone(r.Patterns), Resources: res})
	}
	// One policy per rule a visitor can be under: DecidePolicy for each (the runtime's
	// configuration carries the same), indexed by the rule's name.
	regions := banner.NewRegionIndex(b.RegionRules)
	index := map[string]int{}
	policyOf := func(loc core.Location) int {
		vr := b.VisitorRuleIndexed(regions, loc)
		// A regional rule decides alone; without one, the jurisdiction decides (banner's policyKey).
		key := vr.Ref()
		if vr.Rule == nil {
			key = strings.TrimPrefix(key+"/"+vr.Jurisdiction, "/")
		}
		if i, ok := index[key]; ok {
			return i
		}
		p := banner.DecidePolicy(b, cats, vr)
		if len(rs.UnheldHosts) == 0 {
			rs.UnheldHosts = append(rs.UnheldHosts, p.UnheldHosts...)
		}
		rs.Policies = append(rs.Policies, HoldPolicy{Rule: key, Behavior: b.BehaviorFor(vr), Categories: p.Categories, GPCOff: slices.Clone(p.GPC.Off)})
		index[key] = len(rs.Policies) - 1
		return index[key]
	}
	rs.Unknown = policyOf(core.Location{})
	for _, c := range core.Countries() {
		rs.Places[c] = policyOf(core.Location{Country: c})
	}
	for _, s := range core.Subdivisions() {
		country, _, _ := strings.Cut(s, "-")
		if i := policyOf(core.Location{Country: country, Region: s}); i != rs.Places[country] {
			rs.Places[s] = i
		}
	}
	return rs
}
