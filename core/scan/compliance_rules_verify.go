package scan

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// The verification by regional rule (core.RuleVerification): each rule of the site is judged
// on its own run, as a visitor from a place it covers, by what it promises:
//   - opt_in: the consent states' rules (verificationRun);
//   - opt_out: the notice is shown (enforcement.opt-out-notice), with its Do Not Sell or Share
//     control where the rule offers one (enforcement.do-not-sell-control); after the control,
//     and with a GPC signal where the rule honours it, nothing of the sale category runs
//     (enforcement.sale-after-opt-out);
//   - no_banner: no banner is shown (enforcement.banner-where-none), and a GPC signal, where
//     honoured, keeps the sale category off.
// A rule of the site the verification did not visit is enforcement.rule-unverified: a verdict
// says compliant only when every rule passed.

// verificationRules judges a verification: its runs by regional rule when it has them, else
// its one run; b is the site's banner as configured now (nil when unknown).
func (e *evaluation) verificationRules(v *core.Verification, b *banner.Banner) {
	if b != nil {
		e.check("enforcement.rule-unverified")
	}
	if len(v.Rules) == 0 {
		e.verificationRun(v)
		if b != nil && len(b.RegionRules) > 1 {
			var rules []string
			for _, p := range b.VerificationPlaces() {
				rules = append(rules, p.Rule+" ("+strings.Join(p.Regions, ", ")+")")
			}
			e.unverified(rules)
		}
		return
	}
	for _, rv := range v.Rules {
		e.rule = rv.Rule
		if rv.Behavior == banner.BehaviorOptOut || rv.Behavior == banner.BehaviorNoBanner {
			e.notAskingRun(v, rv)
		} else {
			run := *v
			run.States, run.Unreached, run.RejectOnFirstLayer, run.ReopenButton = rv.States, rv.Unreached, rv.RejectOnFirstLayer, rv.ReopenButton
			e.verificationRun(&run)
		}
		e.rule = ""
	}
	if b == nil {
		return
	}
	var missing []string
	for _, p := range b.VerificationPlaces() {
		if !slices.ContainsFunc(v.Rules, func(rv core.RuleVerification) bool {
			return rv.Rule == p.Rule && slices.Equal(rv.Regions, p.Regions) && rv.Behavior == p.Behavior
		}) {
			missing = append(missing, p.Rule+" ("+strings.Join(p.Regions, ", ")+")")
		}
	}
	e.unverified(missing)
}

// unverified reports the regional rules a verification did not visit.
func (e *evaluation) unverified(rules []string) {
	if len(rules) == 0 {
		return
	}
	e.add("enforcement.rule-unverified", "", map[string]string{"rules": strings.Join(rules, ", "), "count": strconv.Itoa(len(rules))},
		Evidence{ScanID: strp(e.scanID)})
}

// placeName is how a finding names a run's place.
func placeName(loc string) string {
	switch loc {
	case "":
		return "the scanner's own location"
	case core.RegionUnknown:
		return "an unknown location"
	}
	return loc
}

// notAskingRun judges the run of an opt_out or no_banner rule.
func (e *evaluation) notAskingRun(v *core.Verification, rv core.RuleVerification) {
	params := func() map[string]string {
		page := ""
		if len(rv.States) > 0 && len(rv.States[0].Pages) > 0 {
			page = rv.States[0].Pages[0]
		}
		return map[string]string{"rule": rv.Rule, "regions": strings.Join(rv.Regions, ", "), "place": placeName(rv.Location), "page": page}
	}
	ev := func(state string) Evidence {
		p := params()["page"]
		return Evidence{ScanID: strp(e.scanID), State: strp(state), Page: strp(p)}
	}
	if v.Banner != core.BannerConsentd {
		e.check("enforcement.no-consentd-banner")
		return
	}
	switch rv.Behavior {
	case banner.BehaviorOptOut:
		e.check("enforcement.opt-out-notice", "enforcement.sale-after-opt-out")
		if !rv.BannerShown {
			e.add("enforcement.opt-out-notice", "", params(), ev(core.StateNoDecision))
		} else if rv.DoNotSellLink {
			e.check("enforcement.do-not-sell-control")
			if !rv.DoNotSellControl {
				e.add("enforcement.do-not-sell-control", "", params(), ev(core.StateNoDecision))
			}
		}
	case banner.BehaviorNoBanner:
		e.check("enforcement.banner-where-none")
		if rv.BannerShown {
			e.add("enforcement.banner-where-none", "", params(), ev(core.StateNoDecision))
		}
	}
	for i := range rv.States {
		st := &rv.States[i]
		how := ""
		switch st.State {
		case core.StateDoNotSell:
			how = "clicked Do Not Sell or Share"
		case core.StateGPC:
			how = "sends a Global Privacy Control signal"
		default:
			continue
		}
		e.check("enforcement.sale-after-opt-out")
		for _, o := range observations(st) {
			cat, required, known := e.categoryOf(o.service, o.category)
			if !known || required || cat != banner.SaleCategory {
				continue
			}
			p := params()
			for k, val := range map[string]string{"how": how, "service": e.serviceName(o.service), "category": cat, "what": o.what, "page": o.page} {
				p[k] = val
			}
			e.addGrouped(o.service+"\x00"+st.State, "enforcement.sale-after-opt-out", p,
				Evidence{ScanID: strp(e.scanID), State: strp(st.State), Page: strp(o.page), Request: strp(o.request),
					Cookie: strp(o.cookie), Service: strp(o.service), Category: strp(cat)})
		}
	}
}

// ruleResults are the report's Rules: per regional rule of the site (as configured now, and
// as the verification visited), what was checked, when, from where, and whether it passed.
func ruleResults(in *ComplianceInput, v *core.Verification, fs []Finding) []RuleResult {
	out := []RuleResult{}
	if v == nil {
		return out
	}
	index := map[string]int{}
	for _, rv := range v.Rules {
		at := rv.VerifiedAt
		r := RuleResult{RulePlace: rv.RulePlace, VerifiedAt: &at, States: []string{}}
		for _, st := range rv.States {
			r.States = append(r.States, st.State)
		}
		index[rv.Rule] = len(out)
		out = append(out, r)
	}
	if in != nil && in.Banner != nil {
		for _, p := range in.Banner.VerificationPlaces() {
			if _, ok := index[p.Rule]; !ok && len(in.Banner.RegionRules) > 0 {
				out = append(out, RuleResult{RulePlace: p, States: []string{}})
			}
		}
	}
	for i := range out {
		out[i].Passed = out[i].VerifiedAt != nil
	}
	for _, f := range fs {
		if f.Evidence.Rule == nil {
			// A finding of the whole verification (no rule's own) counts against every rule.
			if f.Family != FamilyEnforcement || f.RuleID == "enforcement.rule-unverified" {
				continue
			}
		}
		for i := range out {
			if f.Evidence.Rule != nil && *f.Evidence.Rule != out[i].Rule {
				continue
			}
			switch f.Severity {
			case SeverityError:
				out[i].Errors++
				out[i].Passed = false
			case SeverityWarning:
				out[i].Warnings++
			}
		}
	}
	return out
}

// essentialThirdParties is enforcement.essential-third-party, for a run that asks before
// anything runs: a service in a required category (the site's, else the library's essential)
// whose request before any choice (no_decision) or after reject reached a third party sent it
// the visitor's address. An error for an entry the library marks not strictly necessary
// (SelfHostFix: web fonts, script CDNs), with its fix; a warning otherwise (a payment
// provider's script may be strictly necessary, but its vendor still learns of every visit).
func (e *evaluation) essentialThirdParties(v *core.Verification) {
	e.check("enforcement.essential-third-party")
	for i := range v.States {
		st := &v.States[i]
		if st.State != core.StateNoDecision && st.State != core.StateRejectAll {
			continue
		}
		for _, o := range observations(st) {
			if o.request == "" || !o.thirdParty {
				continue
			}
			cat, required, known := e.categoryOf(o.service, o.category)
			if !known || !required {
				continue
			}
			severity, selfHost := SeverityWarning, ""
			if e.lib != nil {
				if ls, ok := e.lib.Service(o.service); ok && ls.SelfHostFix != "" {
					severity, selfHost = SeverityError, ls.SelfHostFix
				}
			}
			host := o.request
			if u, err := url.Parse(o.request); err == nil {
				host = u.Hostname()
			}
			params := map[string]string{"service": e.serviceName(o.service), "category": cat, "host": host, "what": o.what,
				"page": o.page, "selfhost": selfHost}
			ev := Evidence{ScanID: strp(e.scanID), State: strp(st.State), Page: strp(o.page), Request: strp(o.request),
				Service: strp(o.service), Category: strp(cat)}
			k := "enforcement.essential-third-party\x00" + e.rule + "\x00" + o.service
			if p, ok := e.groups[k]; ok {
				p.more++
				p.note(ev, o.what)
				continue
			}
			e.add("enforcement.essential-third-party", severity, params, ev)
			e.groups[k] = e.list[len(e.list)-1]
		}
	}
}
