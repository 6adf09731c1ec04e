package scan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/library"
)

// The configuration rules. Each reads the banner, categories and services as the runtime
// (adapters/httpapi/bannerjs) acts on them: what the runtime decides, from the visitor's Policy
// (DecidePolicy), the one function that decides it; how it shows it, from its UI. Each rule's
// comment says which behaviour it rests on.

// buttonDefaults are the runtime stylesheet's colours (banner.css), used when a banner's colors
// lack a key.
var buttonDefaults = map[string]string{"background": "#ffffff", "acceptButton": "#1a73e8", "rejectButton": "#1a73e8"}

func (e *evaluation) configRules(in *ComplianceInput, v *core.Verification) {
	b := in.Banner
	// What the runtime does for an EU visitor (one from France: on a banner without regional
	// rules, any EU visitor).
	eu := banner.DecidePolicy(b, in.Categories, b.VisitorRule(core.Location{Country: "FR"}))
	var preset []string // non-required categories on before a decision
	var optionalServices []string
	for _, c := range in.Categories {
		if !c.IsRequired && eu.Categories[c.Slug].Initial {
			preset = append(preset, c.Slug)
		}
	}
	for _, s := range in.Services {
		if c := e.site.catByID[s.CategoryID]; c != nil && !c.IsRequired {
			optionalServices = append(optionalServices, s.Slug)
		}
	}
	field := func(name, value string) Evidence { return Evidence{Field: strp(name), Value: strp(value)} }

	// banner.reject-first-layer: the runtime's first layer always has reject and accept as
	// <button>s of the same size side by side (buttons() in the runtime's UI), so reject is
	// missing from the first layer only when no banner is shown: the policy does not ask
	// (defaultBehavior no_banner). That matters when something waits for consent: services in
	// non-required categories.
	e.check("banner.reject-first-layer")
	if !eu.Ask && len(optionalServices) > 0 {
		e.add("banner.reject-first-layer", "", map[string]string{"value": b.DefaultBehavior,
			"count": strconv.Itoa(len(optionalServices)), "services": listed(optionalServices)},
			field("banner.defaultBehavior", b.DefaultBehavior))
	}

	// banner.close-accepts: the close (×) button calls acceptAll when closeButtonBehavior is
	// accept_all; closing a banner is no affirmative act of consent.
	e.check("banner.close-accepts")
	if b.CloseButtonBehavior == "accept_all" {
		e.add("banner.close-accepts", "", map[string]string{"value": b.CloseButtonBehavior},
			field("banner.closeButtonBehavior", b.CloseButtonBehavior))
	}

	// banner.button-contrast: the runtime paints each button in its configured colour and
	// writes its text in ButtonTextColor of it; where neither black nor white reaches WCAG's
	// 4.5:1 the visitor gets unreadable text. A colour that is not hex cannot be computed
	// (the runtime then writes white) and is not judged.
	e.check("banner.button-contrast")
	colour := func(key string) string {
		if c, ok := b.Colors[key]; ok && c != "" {
			return c
		}
		return buttonDefaults[key]
	}
	for _, btn := range []struct{ name, key string }{{"accept", "acceptButton"}, {"reject", "rejectButton"}} {
		c := colour(btn.key)
		text := banner.ButtonTextColor(c)
		if r, ok := banner.ContrastRatio(c, text); ok && r < MinButtonTextContrast {
			e.add("banner.button-contrast", "", map[string]string{"button": btn.name, "color": c, "textColor": text,
				"ratio": ratio(r)}, field("banner.colors."+btn.key, c))
		}
	}

	// banner.reject-prominence: both buttons are the same element with the same size, so
	// prominence comes from colour alone: how much each button (its background and border are
	// its colour) stands out from the banner's background. Reject that hardly stands out
	// while accept does is an error; reject clearly weaker than accept a warning.
	e.check("banner.reject-prominence")
	bg, acc, rej := colour("background"), colour("acceptButton"), colour("rejectButton")
	ra, okA := banner.ContrastRatio(acc, bg)
	rr, okR := banner.ContrastRatio(rej, bg)
	if okA && okR {
		sev := ""
		switch {
		case rr < MinButtonVisibility && ra >= MinButtonVisibility:
			sev = SeverityError
		case rr < RejectProminenceShare*ra:
			sev = SeverityWarning
		}
		if sev != "" {
			e.add("banner.reject-prominence", sev, map[string]string{"reject": rej, "accept": acc, "background": bg,
				"rejectRatio": ratio(rr), "acceptRatio": ratio(ra)}, field("banner.colors.rejectButton", rej))
		}
	}

	// banner.privacy-policy: the runtime links privacyPolicyUrl from the banner (policyLinks).
	e.check("banner.privacy-policy")
	if b.PrivacyPolicyURL == nil || strings.TrimSpace(*b.PrivacyPolicyURL) == "" {
		e.add("banner.privacy-policy", "", map[string]string{}, field("banner.privacyPolicyUrl", ""))
	}

	// banner.withdraw-lasting: after a decision the runtime shows the reopen button only when
	// reopenButton is true (and the page has no [data-consentd-open] element of its own, which
	// the configuration cannot see: hence a warning).
	e.check("banner.withdraw-lasting")
	if !b.ReopenButton {
		e.add("banner.withdraw-lasting", "", map[string]string{"value": "false"}, field("banner.reopenButton", "false"))
	}

	// consent.opt-out-eu: before a decision the runtime gives each category its policy's
	// initial state, on for every non-required category unless defaultBehavior is opt_in. So
	// opt_out and no_banner run them for EU (gdpr) visitors before they chose.
	// With regional rules, consent.region-europe-opt-in checks every European country instead.
	e.check("consent.opt-out-eu")
	if len(preset) > 0 && len(b.RegionRules) == 0 {
		e.add("consent.opt-out-eu", "", map[string]string{"value": b.DefaultBehavior, "categories": listed(preset)},
			field("banner.defaultBehavior", b.DefaultBehavior))
	}

	// consent.preticked: the preferences' switches show the state in force, which before a
	// decision is the policy's initial state. (A category's isDefault means "created with the
	// site, cannot be deleted"; the runtime does not read it, so it ticks nothing.)
	e.check("consent.preticked")
	if len(preset) > 0 {
		e.add("consent.preticked", "", map[string]string{"value": b.DefaultBehavior, "categories": listed(preset)},
			field("banner.defaultBehavior", b.DefaultBehavior))
	}

	// consent.lifetime-max and consent.lifetime-long: the consent cookie lives
	// cookieExpirationDays, after which the banner asks again.
	e.check("consent.lifetime-max", "consent.lifetime-long")
	days := strconv.Itoa(b.CookieExpirationDays)
	switch {
	case b.CookieExpirationDays > MaxConsentLifetimeDays:
		e.add("consent.lifetime-max", "", map[string]string{"value": days, "days": days}, field("banner.cookieExpirationDays", days))
	case b.CookieExpirationDays > RecommendedConsentLifetimeDays:
		e.add("consent.lifetime-long", "", map[string]string{"value": days, "days": days}, field("banner.cookieExpirationDays", days))
	}

	e.declarationRules(in)
	e.consentModeConfig(in, eu, v)
	e.gpcRule(in)
	e.regionRules(in)
	e.tcfRules(in)
}

// regionRules are the rules of a banner's regional rules, read from the law data
// (regions.json) through the rule each place gets (Banner.VisitorRule) and the policy it decides
// (DecidePolicy): consent.region-europe-opt-in, consent.region-us-gpc and
// consent.region-unknown. A banner without regional rules is judged by consent.opt-out-eu and
// consent.gpc alone (its US visitors are ccpa, GPC honoured).
func (e *evaluation) regionRules(in *ComplianceInput) {
	e.check("consent.region-europe-opt-in", "consent.region-us-gpc", "consent.region-unknown", "consent.reask-short")
	b := in.Banner
	if len(b.RegionRules) == 0 {
		// consent.reask-short without rules: an opt-in banner keeps a refusal its
		// reaskAfterRejectDays (Banner.ReaskFor).
		if d := b.ReaskFor(banner.VisitorRule{}); b.DefaultBehavior == banner.BehaviorOptIn && d < banner.ReaskOptInDays {
			days := strconv.Itoa(d)
			e.add("consent.reask-short", "", map[string]string{"rule": "the banner", "regions": "every visitor", "days": days},
				Evidence{Field: strp("banner.reaskAfterRejectDays"), Value: strp(days)})
		}
		return
	}
	type group struct {
		rule, value string
		regions     []string
		laws        []string
	}
	// collect groups the places where the rule they get fails, by that rule, in the order met.
	collect := func(places []core.Location, fails func(vr banner.VisitorRule, behavior string, p *banner.Policy) bool, law func(core.Location) string) []*group {
		var out []*group
		idx := map[string]*group{}
		for _, loc := range places {
			vr := b.VisitorRule(loc)
			behavior := b.BehaviorFor(vr)
			if !fails(vr, behavior, banner.DecidePolicy(b, in.Categories, vr)) {
				continue
			}
			g := idx[vr.Ref()]
			if g == nil {
				g = &group{rule: vr.Ref(), value: behavior}
				idx[vr.Ref()] = g
				out = append(out, g)
			}
			name := loc.Country
			if loc.Region != "" {
				name = loc.Region
			}
			g.regions = append(g.regions, name)
			if law != nil {
				g.laws = append(g.laws, law(loc))
			}
		}
		return out
	}
	ruleField := func(rule, leaf string) string {
		if rule == banner.RuleDefault {
			return "banner.defaultBehavior"
		}
		return "banner." + rule + "." + leaf
	}
	var europe []core.Location
	for _, c := range core.GDPRCountries() {
		europe = append(europe, core.Location{Country: c})
	}
	for _, g := range collect(europe, func(_ banner.VisitorRule, behavior string, p *banner.Policy) bool {
		return europeNotOptIn(behavior, p)
	}, nil) {
		e.add("consent.region-europe-opt-in", "", map[string]string{"rule": g.rule, "regions": listed(g.regions),
			"what": "it is " + g.value + ", not opt_in: non-essential categories run before they decide"},
			Evidence{Field: strp(ruleField(g.rule, "defaultBehavior")), Value: strp(g.value)})
	}
	// An opt-in rule that says its first layer need not offer reject (the runtime shows it
	// anyway; the rule is what the site asks for).
	noReject := func(_ banner.VisitorRule, behavior string, p *banner.Policy) bool { return europeNoReject(behavior, p) }
	for _, g := range collect(europe, noReject, nil) {
		e.add("consent.region-europe-opt-in", "", map[string]string{"rule": g.rule, "regions": listed(g.regions),
			"what": "its rejectOnFirstLayer is false, while refusing must be as easy as accepting"},
			Evidence{Field: strp(ruleField(g.rule, "rejectOnFirstLayer")), Value: strp("false")})
	}
	// consent.reask-short: under an opt-in rule in Europe, a refusal keeps the banner away at
	// least banner.ReaskOptInDays (the policy's reaskAfterRejectDays, Banner.ReaskFor).
	for _, g := range collect(europe, func(_ banner.VisitorRule, behavior string, p *banner.Policy) bool {
		return europeReaskShort(behavior, p)
	}, nil) {
		days := strconv.Itoa(b.ReaskFor(b.VisitorRule(core.Location{Country: g.regions[0]})))
		f := "banner.reaskAfterRejectDays"
		if vr := b.VisitorRule(core.Location{Country: g.regions[0]}); vr.Rule != nil && vr.Rule.ReaskAfterRejectDays != nil {
			f = "banner." + g.rule + ".reaskAfterRejectDays"
		}
		e.add("consent.reask-short", "", map[string]string{"rule": g.rule, "regions": listed(g.regions), "days": days},
			Evidence{Field: strp(f), Value: strp(days)})
	}
	gpcStates, laws := gpcStatesAt(e.now)
	for _, g := range collect(gpcStates, func(_ banner.VisitorRule, behavior string, p *banner.Policy) bool { return usGPCIgnored(behavior, p) },
		func(loc core.Location) string { return laws[loc.Region] }) {
		value := "false"
		if g.rule == banner.RuleDefault {
			value = g.value
		}
		e.add("consent.region-us-gpc", "", map[string]string{"rule": g.rule, "regions": listed(g.regions), "laws": listed(g.laws)},
			Evidence{Field: strp(ruleField(g.rule, "honorGpc")), Value: strp(value)})
	}
	named := false
	for _, r := range b.RegionRules {
		named = named || slices.Contains(r.Regions, core.RegionUnknown)
	}
	if !named {
		e.add("consent.region-unknown", "", map[string]string{"value": b.DefaultBehavior},
			Evidence{Field: strp("banner.regionRules"), Value: strp(b.DefaultBehavior)})
	}
}

// declarationRules check the services as the cookie declaration shows them.
func (e *evaluation) declarationRules(in *ComplianceInput) {
	// declaration.cookie-duration: the declaration shows each cookie's duration as entered;
	// an empty one tells the visitor nothing. One finding per service.
	e.check("declaration.cookie-duration", "declaration.essential-misclassified")
	for _, s := range in.Services {
		for _, k := range s.Cookies {
			if strings.TrimSpace(k.Duration) == "" {
				e.addGrouped(s.Slug, "declaration.cookie-duration", map[string]string{"cookie": k.Name, "service": s.Slug},
					Evidence{Field: strp(fmt.Sprintf("services[%s].cookies[%s].duration", s.Slug, k.Name)), Value: strp(""),
						Service: strp(s.Slug)})
			}
		}
		// declaration.essential-misclassified: a required category is on for every visitor
		// before any decision (defaults()), so a library service the library does not class
		// as essential runs without consent there.
		c := e.site.catByID[s.CategoryID]
		if c == nil || !c.IsRequired || e.lib == nil {
			continue
		}
		if ls, ok := e.lib.Service(s.Slug); ok && ls.Category != library.CategoryEssential {
			e.add("declaration.essential-misclassified", "", map[string]string{"service": s.Slug, "category": c.Slug,
				"libraryCategory": ls.Category}, Evidence{Field: strp(fmt.Sprintf("services[%s].categoryId", s.Slug)),
				Value: strp(c.Slug), Service: strp(s.Slug), Category: strp(c.Slug)})
		}
	}
}

// consentModeConfig is the configuration side of consent.gcm-default. The runtime always
// pushes Consent Mode's default (everything denied) before any tag, and with site-wide blocking
// holds Google's tags until consent; gcmExcludeVendor makes the policy leave Google's hosts
// unheld (Policy.UnheldHosts) and rely on Consent Mode alone, which works only when nothing
// loads Google's tags before the runtime. A verification scan settles it either way
// (consentModeVerified), so this notice is only given without one.
func (e *evaluation) consentModeConfig(in *ComplianceInput, pol *banner.Policy, v *core.Verification) {
	e.check("consent.gcm-default")
	if len(pol.UnheldHosts) == 0 || v != nil {
		return
	}
	var google []string
	for _, s := range in.Services {
		if isConsentModeService(s.Slug) {
			google = append(google, s.Slug)
		}
	}
	if len(google) == 0 {
		return
	}
	e.add("consent.gcm-default", SeverityNotice, map[string]string{"what": fmt.Sprintf(
		"banner.gcmExcludeVendor is true: %s load before consent and rely on Consent Mode's defaults alone, which no verification scan has confirmed.",
		listed(google))}, Evidence{Field: strp("banner.gcmExcludeVendor"), Value: strp("true")})
}

func isConsentModeService(slug string) bool {
	return slices.Contains(library.ConsentModeServices(), slug)
}

// gpcRule is consent.gpc. Under CCPA the runtime answers a GPC signal by switching off the
// categories the policy names (Policy.GPC.Off: SaleCategory, when the site has it and it is
// not required) and only those, also over a stored "accept all": a non-required category of
// another slug that holds services the library classes as marketing keeps them running for a
// visitor who opted out of sale.
func (e *evaluation) gpcRule(in *ComplianceInput) {
	e.check("consent.gpc")
	pol := banner.DecidePolicy(in.Banner, in.Categories, in.Banner.VisitorRule(core.Location{Country: "US", Region: "US-CA"}))
	hasGPC := slices.Contains(pol.GPC.Off, banner.SaleCategory)
	var uncovered []string
	var first *banner.Service
	for _, s := range in.Services {
		c := e.site.catByID[s.CategoryID]
		if c == nil || c.IsRequired || slices.Contains(pol.GPC.Off, c.Slug) || e.lib == nil {
			continue
		}
		if ls, ok := e.lib.Service(s.Slug); ok && ls.Category == library.CategoryMarketing {
			uncovered = append(uncovered, s.Slug+" (in "+c.Slug+")")
			if first == nil {
				first = s
			}
		}
	}
	if first == nil {
		return
	}
	what := fmt.Sprintf("A GPC signal switches off only the category %q; %s keep running for a visitor who sent it.",
		banner.SaleCategory, listed(uncovered))
	if !hasGPC {
		what = fmt.Sprintf("The site has no category %q, the one a GPC signal switches off; %s keep running for a visitor who sent it.",
			banner.SaleCategory, listed(uncovered))
	}
	cat := e.site.catByID[first.CategoryID].Slug
	e.add("consent.gpc", "", map[string]string{"what": what},
		Evidence{Field: strp(fmt.Sprintf("services[%s].categoryId", first.Slug)), Value: strp(cat), Service: strp(first.Slug), Category: strp(cat)})
}

// unheldServices: enforcement.unheld-service. The runtime holds a tag back before consent when
// it is marked (type="text/plain" data-category), or when site-wide blocking is on and a
// blocking rule of the service matches it; a completed scan's non-essential service with
// neither runs before consent, which is an error before any verification.
func (e *evaluation) unheldServices(in *ComplianceInput) {
	e.check("enforcement.unheld-service")
	sc := in.Scan
	if sc == nil || sc.Status != ScanCompleted {
		return
	}
	siteWide := in.BlockingRules != nil && in.BlockingRules.SiteWide
	ruled := map[string]bool{}
	if in.BlockingRules != nil {
		for _, r := range in.BlockingRules.Rules {
			ruled[r.ServiceSlug] = true
		}
	}
	when := "the scan"
	if sc.FinishedAt != nil {
		when = "the scan of " + sc.FinishedAt.UTC().Format("2 January 2006 15:04 UTC")
	}
	for _, d := range sc.DetectedServices {
		cat, required, known := e.categoryOf(d.Slug, d.Category)
		if !known || required || d.Gated || (siteWide && ruled[d.Slug]) {
			continue
		}
		why := "site-wide blocking is off and its tags are not marked"
		if siteWide {
			why = "no blocking rule matches it and its tags are not marked"
		}
		var page string
		if len(d.Pages) > 0 {
			page = d.Pages[0]
		}
		e.add("enforcement.unheld-service", "", map[string]string{"service": d.Name, "category": cat, "when": when,
			"pages": listed(d.Pages), "why": why},
			Evidence{ScanID: strp(sc.ID), Service: strp(d.Slug), Category: strp(cat), Page: strp(page)})
	}
}

// ratio formats a contrast ratio as WCAG writes it.
func ratio(r float64) string { return strconv.FormatFloat(r, 'f', 2, 64) }
