package scan

import (
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// The region rules judge what the runtime does place by place: for a visitor at a place, the
// behaviour before a decision and the policy DecidePolicy gives (regionRules, on a banner with
// regional rules). The predicates below are those judgements, used by the compliance report
// and by PlaceFailures, which a variant of an A/B test (core/experiment) is held to before it
// may run at a place.

// europeNotOptIn: consent.region-europe-opt-in, a European visitor's banner does not ask first.
func europeNotOptIn(behavior string, _ *banner.Policy) bool { return behavior != banner.BehaviorOptIn }

// europeNoReject: consent.region-europe-opt-in, an opt-in banner in Europe whose first layer
// offers no reject (Policy.RejectOnFirstLayer, which the runtime applies: refusing must be as
// easy as accepting).
func europeNoReject(behavior string, p *banner.Policy) bool {
	return behavior == banner.BehaviorOptIn && !p.RejectOnFirstLayer
}

// europeReaskShort: consent.reask-short, under an opt-in rule in Europe a refusal keeps the
// banner away less than banner.ReaskOptInDays.
func europeReaskShort(behavior string, p *banner.Policy) bool {
	return behavior == banner.BehaviorOptIn && p.ReaskAfterRejectDays < banner.ReaskOptInDays
}

// usGPCIgnored: consent.region-us-gpc, a state whose law requires honouring a GPC signal gets
// a policy that does not.
func usGPCIgnored(_ string, p *banner.Policy) bool { return !p.GPC.Honored }

// gpcStatesAt returns the US states whose law requires honouring GPC on now's date (every such
// state when now is zero), and each one's law.
func gpcStatesAt(now time.Time) ([]core.Location, map[string]string) {
	today := now.UTC().Format(time.DateOnly)
	var states []core.Location
	laws := map[string]string{}
	for _, l := range core.USStateLaws() {
		if l.GPCRequired && (now.IsZero() || l.GPCRequiredFrom <= today) {
			states = append(states, core.Location{Country: "US", Region: l.Region})
			laws[l.Region] = l.Law
		}
	}
	return states, laws
}

// JudgedPlaces returns the places the region rules judge on now's date: every European
// (GDPR) country and every US state whose law requires honouring GPC. A place not among them
// fails none of PlaceFailures' rules.
func JudgedPlaces(now time.Time) []core.Location {
	var out []core.Location
	for _, c := range core.GDPRCountries() {
		out = append(out, core.Location{Country: c})
	}
	states, _ := gpcStatesAt(now)
	return append(out, states...)
}

// PlaceFailures returns the IDs of the region rules (compliance_rules.json) that a visitor at
// loc fails on now's date when the banner does behavior before a decision and the runtime
// applies p: the same judgements as the compliance report's, for one place.
func PlaceFailures(loc core.Location, behavior string, p *banner.Policy, now time.Time) []string {
	var out []string
	if core.InGDPRRegion(loc.Country) {
		if europeNotOptIn(behavior, p) || europeNoReject(behavior, p) {
			out = append(out, "consent.region-europe-opt-in")
		}
		if europeReaskShort(behavior, p) {
			out = append(out, "consent.reask-short")
		}
	}
	if loc.Region != "" {
		if _, laws := gpcStatesAt(now); laws[loc.Region] != "" && usGPCIgnored(behavior, p) {
			out = append(out, "consent.region-us-gpc")
		}
	}
	return out
}

// RuleTitle returns a compliance rule's title ("" for an unknown ID).
func RuleTitle(id string) string { return ComplianceRules[id].Title }
