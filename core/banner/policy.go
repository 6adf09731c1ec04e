package banner

import (
	"slices"
	"strconv"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// The server decides, the runtime applies: DecidePolicy is the one place that says what the
// banner runtime does for a site and a visitor. The public configuration carries its result
// (PublicConfig.Policy) and the runtime (bannerjs/policy.js) applies it as it is; RecordConsent,
// the configuration's compliance rules and the verification rules read the same result.

// SaleCategory is the category holding the services that sell or share personal data: the one
// a Global Privacy Control signal turns off where the law makes it an opt-out of sale (CCPA),
// and the one whose refusal is a request not to sell. Category slugs are the library's.
const SaleCategory = library.CategoryMarketing

// Signals maps each signal a vendor reads to the categories that must all be allowed for it to
// be granted; a signal with no category is always granted.
type Signals map[string][]string

// Grants reports, for each signal, whether allowed (category slug → allowed) grants it.
func (s Signals) Grants(allowed map[string]bool) map[string]bool {
	out := make(map[string]bool, len(s))
	for sig, cats := range s {
		out[sig] = allAllowed(cats, allowed)
	}
	return out
}

func allAllowed(cats []string, allowed map[string]bool) bool {
	for _, c := range cats {
		if !allowed[c] {
			return false
		}
	}
	return true
}

// VisitorRule is what the server knows of a visitor when it decides: the visitor's location,
// the jurisdiction of the record (gdpr, ccpa or none: JurisdictionOf the location) and, on a
// banner with regional rules, the rule that applies (Banner.VisitorRule resolves all three).
type VisitorRule struct {
	Location     core.Location
	Jurisdiction string
	// Regional is whether the banner has regional rules: then Rule is the one that applies, or
	// nil when none matches and banner.defaultBehavior applies.
	Regional bool
	// Index is Rule's place in banner.regionRules (meaningless when Rule is nil); Rule is the
	// regional rule that applies, nil when none does (no rules, or none matches).
	Index int
	Rule  *RegionRule
}

// RuleDefault is the name (VisitorRule.Ref) of the rule of a visitor whom none of the banner's
// regional rules matches: banner.defaultBehavior applies.
const RuleDefault = "defaultBehavior"

// Ref names the rule that applies as the configuration's rule and the record's regionRule do
// (in the contract and in stored proofs): "regionRules[2]" (its place in banner.regionRules),
// RuleDefault when the banner has regional rules and none matches, "" when it has none. It is
// the one place that name is written; nothing reads it back.
func (vr VisitorRule) Ref() string {
	switch {
	case vr.Rule != nil:
		return "regionRules[" + strconv.Itoa(vr.Index) + "]"
	case vr.Regional:
		return RuleDefault
	}
	return ""
}

// VisitorRuleAt returns the rule of a visitor at loc on a banner without regional rules.
func VisitorRuleAt(loc core.Location) VisitorRule {
	return VisitorRule{Location: loc, Jurisdiction: core.JurisdictionOf(loc.Country)}
}

// VisitorRule resolves the rule of a visitor at loc: the regional rule that applies
// (regionIndex.ruleFor) and the record's jurisdiction (JurisdictionOf, as without rules).
func (b *Banner) VisitorRule(loc core.Location) VisitorRule {
	if len(b.RegionRules) == 0 {
		return VisitorRuleAt(loc)
	}
	return b.VisitorRuleIndexed(NewRegionIndex(b.RegionRules), loc)
}

// visitorRule is VisitorRule with x, the index of b's rules, built once per cached view.
func (b *Banner) VisitorRuleIndexed(x *regionIndex, loc core.Location) VisitorRule {
	vr := VisitorRuleAt(loc)
	if len(b.RegionRules) == 0 {
		return vr
	}
	vr.Regional = true
	if i := x.ruleFor(loc); i >= 0 {
		vr.Index, vr.Rule = i, &b.RegionRules[i]
	}
	return vr
}

// BehaviorFor is what the banner does before a decision for a visitor under vr: the regional
// rule's defaultBehavior, else the banner's.
func (b *Banner) BehaviorFor(vr VisitorRule) string {
	if vr.Rule != nil {
		return vr.Rule.DefaultBehavior
	}
	return b.DefaultBehavior
}

// Policy is what the banner runtime does for a site and a visitor.
type Policy struct {
	Categories map[string]CategoryPolicy `json:"categories" doc:"Each category of the site by slug: its state before the visitor decides, and whether it is always on."`
	Ask        bool                      `json:"ask" doc:"Whether the runtime shows the banner while the visitor has no current decision (false: the initial states apply silently)."`
	GPC        GPCPolicy                 `json:"gpc" doc:"What a Global Privacy Control signal does for this visitor."`
	// DoNotSellLink is whether the visitor may opt out of sale and sharing (a "Do Not Sell or
	// Share" control): the regional rule's doNotSellLink, or the jurisdiction ccpa.
	DoNotSellLink bool `json:"doNotSellLink,omitempty" doc:"Whether the visitor's rule offers an opt-out of sale and sharing: the runtime then shows a Do Not Sell or Share control on the banner and in the preferences (refusing doNotSellWithout, a request not to sell) and labels its reopen button so."`
	// RejectOnFirstLayer is whether the banner's first layer offers reject beside accept: the
	// regional rule's rejectOnFirstLayer, true without one.
	RejectOnFirstLayer bool `json:"rejectOnFirstLayer" doc:"Whether the banner's first layer shows reject beside accept (the preferences always do): the visitor's regional rule's rejectOnFirstLayer, true without one."`
	// DoNotSellWithout lists the categories whose refusal is a request not to sell; empty where
	// the visitor's rule knows no opt-out of sale.
	DoNotSellWithout []string        `json:"doNotSellWithout" doc:"doNotSell is true while any of these categories is not allowed; empty where the visitor's rule has no opt-out of sale."`
	Vendors          []VendorConsent `json:"vendors" doc:"The vendors' consent APIs the runtime tells (Google Consent Mode, Microsoft UET, Microsoft Clarity): how it calls each and which categories each signal needs."`
	Storefront       Signals         `json:"storefront" doc:"The storefront customer-privacy API's signals and the categories each needs; empty when banner.storefrontIntegration is off."`
	UnheldHosts      []string        `json:"unheldHosts" doc:"Hosts (and their subdomains) whose tags blocking rules never hold: Google's tags, left to Consent Mode when banner.consentMode is advanced (gcmExcludeVendor true); empty otherwise."`
	// ReaskAfterRejectDays is how long a refusal keeps the banner away (Banner.ReaskFor).
	ReaskAfterRejectDays int `json:"reask,omitempty" doc:"The banner's reaskAfterRejectDays for this visitor: after a refusal (reject all), the runtime shows no banner for this many days (its rule's reaskAfterRejectDays, else the banner's, else the default of its behaviour: opt_in 180, opt_out 365); then it asks again. The loader's inlined configuration leaves it out where it equals banner.cookieExpirationDays."`
}

// CategoryPolicy is what the runtime does with one category.
type CategoryPolicy struct {
	Initial  bool `json:"initial" doc:"The category's state before the visitor decides."`
	Required bool `json:"required" doc:"Always on: no decision switches it off."`
}

// GPCPolicy is what a Global Privacy Control signal does.
type GPCPolicy struct {
	Honored   bool     `json:"honored" doc:"Whether the signal changes anything for this visitor (the runtime then tells the visitor it is honored)."`
	Off       []string `json:"off" doc:"Categories the signal turns off and keeps off, over any decision."`
	DoNotSell bool     `json:"doNotSell" doc:"Whether the signal is a request not to sell (the record's doNotSell)."`
	// Display is whether the runtime shows that the signal was honoured (gpcHonored, "Opt-Out
	// Request Honored") in its reopen control and preferences: where honoured under a state law
	// that requires it (core.DisplaysGPCHonored).
	Display bool `json:"display,omitempty" doc:"Whether the runtime shows, in its reopen control and its preferences, that the signal was honoured (the text gpcHonored, Opt-Out Request Honored): where it is honoured under a state law requiring that display (the law table's gpcDisplayRequiredFrom: California)."`
}

// DecidePolicy computes what the runtime does on the site (its banner and categories) for a
// visitor under rule.
func DecidePolicy(b *Banner, cats []*Category, rule VisitorRule) *Policy {
	// What differs by place: the behaviour before a decision, whether a GPC signal is honoured
	// (an opt-out of sale and sharing) and whether refusing the sale category is a request not
	// to sell. A regional rule says all three; otherwise the banner's defaultBehavior applies
	// and the jurisdiction ccpa decides the other two.
	behavior, honorGPC, doNotSell, reject := b.BehaviorFor(rule), rule.Jurisdiction == core.JurisdictionCCPA, rule.Jurisdiction == core.JurisdictionCCPA, true
	if r := rule.Rule; r != nil {
		honorGPC, doNotSell, reject = r.HonorGPC, r.DoNotSellLink, r.RejectOnFirstLayer
	}
	p := &Policy{
		Categories:           make(map[string]CategoryPolicy, len(cats)),
		Ask:                  behavior != BehaviorNoBanner,
		DoNotSellLink:        doNotSell,
		RejectOnFirstLayer:   reject,
		Vendors:              VendorConsents(),
		GPC:                  GPCPolicy{Off: []string{}},
		DoNotSellWithout:     []string{},
		UnheldHosts:          []string{},
		Storefront:           Signals{},
		ReaskAfterRejectDays: b.ReaskFor(rule),
	}
	// Before a decision, a category is on when it is required or the banner does not ask for
	// consent first (opt_out, no_banner), whatever the jurisdiction.
	for _, c := range cats {
		p.Categories[c.Slug] = CategoryPolicy{Initial: c.IsRequired || behavior != BehaviorOptIn, Required: c.IsRequired}
	}
	// Where honoured (CCPA and the US state laws requiring it), a GPC signal is an opt-out of
	// sale and sharing: the sale category is off and doNotSell on, over any decision.
	if honorGPC {
		p.GPC = GPCPolicy{Honored: true, Off: []string{}, DoNotSell: true}
		if c, ok := p.Categories[SaleCategory]; ok && !c.Required {
			p.GPC.Off = append(p.GPC.Off, SaleCategory)
		}
	}
	// Where the visitor may opt out of sale, refusing the sale category is a request not to sell.
	if doNotSell {
		p.DoNotSellWithout = []string{SaleCategory}
	}
	if b.GCMExcludeVendor {
		p.UnheldHosts = library.GoogleTagHosts()
	}
	if b.StorefrontIntegration {
		// The storefront's preferences follow the site's "preferences" category, else its
		// "functional" one, else are granted.
		pref := []string{}
		for _, slug := range []string{"preferences", "functional"} {
			if _, ok := p.Categories[slug]; ok {
				pref = []string{slug}
				break
			}
		}
		p.Storefront = Signals{
			"analytics": {library.CategoryStatistics}, "marketing": {library.CategoryMarketing},
			"preferences": pref, "sale_of_data": {SaleCategory},
		}
	}
	return p
}

// Fixed returns the categories whose state no decision changes for a visitor who sent a GPC
// signal (gpc) or not: required ones on, those the signal turns off off.
func (p *Policy) Fixed(gpc bool) map[string]bool {
	out := map[string]bool{}
	for slug, c := range p.Categories {
		if c.Required {
			out[slug] = true
		}
	}
	if gpc && p.GPC.Honored {
		for _, slug := range p.GPC.Off {
			out[slug] = false
		}
	}
	return out
}

// Apply returns the state of every category of the site after a decision that chose chosen
// (slugs left out are refused), for a visitor who sent a GPC signal or not.
func (p *Policy) Apply(chosen map[string]bool, gpc bool) map[string]bool {
	out := make(map[string]bool, len(p.Categories))
	for slug, c := range p.Categories {
		out[slug] = c.Required || chosen[slug]
	}
	if gpc && p.GPC.Honored {
		for _, slug := range p.GPC.Off {
			if _, ok := out[slug]; ok {
				out[slug] = false
			}
		}
	}
	return out
}

// DoNotSell reports whether a visitor with the categories allowed (after Apply) and a GPC
// signal or not asks not to sell.
func (p *Policy) DoNotSell(allowed map[string]bool, gpc bool) bool {
	if gpc && p.GPC.Honored && p.GPC.DoNotSell {
		return true
	}
	return len(p.DoNotSellWithout) > 0 && !allAllowed(p.DoNotSellWithout, allowed)
}

// Policies are a site's policies by rule (policyKey): by jurisdiction, and on a banner with
// regional rules by regional rule; computed once per cached view of the site.
type Policies map[string]*Policy

// policyKey names the policy of a visitor under rule: a regional rule decides alone, the
// jurisdiction decides otherwise.
func policyKey(rule VisitorRule) string {
	if rule.Rule == nil {
		return rule.Jurisdiction
	}
	return rule.Ref()
}

// DecidePolicies computes the site's policy for each jurisdiction and each regional rule.
func DecidePolicies(b *Banner, cats []*Category) Policies {
	out := make(Policies, len(core.Jurisdictions())+len(b.RegionRules))
	for _, j := range core.Jurisdictions() {
		out[j] = DecidePolicy(b, cats, VisitorRule{Jurisdiction: j})
	}
	for i := range b.RegionRules {
		rule := VisitorRule{Regional: true, Index: i, Rule: &b.RegionRules[i]}
		out[policyKey(rule)] = DecidePolicy(b, cats, rule)
	}
	return out
}

// For returns the policy of a visitor under rule.
func (ps Policies) For(rule VisitorRule) *Policy {
	if p, ok := ps[policyKey(rule)]; ok {
		return p
	}
	return ps[core.JurisdictionNone]
}

// GPCMayTurnOff reports whether a GPC signal turns the category off under some jurisdiction: a
// decision posted with the signal may refuse it even with accept_all, since the jurisdiction
// the runtime's configuration was decided for may not be the one of the POST.
func (ps Policies) GPCMayTurnOff(slug string) bool {
	for _, p := range ps {
		if slices.Contains(p.GPC.Off, slug) {
			return true
		}
	}
	return false
}

// regionIndex is a banner's regional rules indexed by the codes they name, so that finding a
// visitor's rule costs a few map lookups however many rules and codes there are. The public
// banner's cached views keep one per banner (publicConfig, consentSite).
type regionIndex struct {
	// first maps each code to the first rule naming it.
	first map[string]int
	// groups are the named groups the rules name.
	groups []string
}

func NewRegionIndex(rules []RegionRule) *regionIndex {
	x := &regionIndex{first: map[string]int{}}
	for i, r := range rules {
		for _, code := range r.Regions {
			if _, ok := x.first[code]; ok {
				continue
			}
			x.first[code] = i
			if core.Laws.Members[code] != nil {
				x.groups = append(x.groups, code)
			}
		}
	}
	return x
}

// ruleFor returns the index of the rule that applies to a visitor at loc, -1 when none does.
// A visitor whose location is unknown gets the first rule naming RegionUnknown. Any other gets
// the most specific match: the first rule naming the visitor's subdivision, else the first
// naming its country, else the first naming a group holding either, else the first naming
// RegionAny.
func (x *regionIndex) ruleFor(loc core.Location) int {
	if !core.KnownLocation(loc) {
		return x.lookup(core.RegionUnknown)
	}
	if loc.Region != "" {
		if i := x.lookup(loc.Region); i >= 0 {
			return i
		}
	}
	if i := x.lookup(loc.Country); i >= 0 {
		return i
	}
	best := -1
	for _, g := range x.groups {
		if m := core.Laws.Members[g]; m[loc.Country] || (loc.Region != "" && m[loc.Region]) {
			if i := x.first[g]; best < 0 || i < best {
				best = i
			}
		}
	}
	if best >= 0 {
		return best
	}
	return x.lookup(core.RegionAny)
}

func (x *regionIndex) lookup(code string) int {
	if i, ok := x.first[code]; ok {
		return i
	}
	return -1
}
