package banner

import (
	"slices"

	"github.com/consentd/consentd/core"
)

// RulePlace is where a verification visits from to see one regional rule of a banner as its
// visitors do (see core/verifier): the rule, a place it covers, and what it promises.
type RulePlace struct {
	// Rule names the rule as records do (VisitorRule.Ref): "regionRules[1]"; "" for a banner
	// without regional rules (then Location is "" too: the scanner's own place).
	Rule string `json:"rule"`
	// Regions are the rule's region codes, as configured.
	Regions []string `json:"regions"`
	// Location is the place visited from: a country ("FR"), a subdivision ("US-CA"),
	// core.RegionUnknown, or "" for the scanner's own location.
	Location string `json:"location"`
	// Behavior is the rule's defaultBehavior: opt_in, opt_out or no_banner.
	Behavior string `json:"behavior"`
	// HonorGPC and DoNotSellLink are the rule's: a GPC run follows when HonorGPC is set, and
	// the Do Not Sell or Share control is checked when DoNotSellLink is.
	HonorGPC      bool `json:"honorGpc"`
	DoNotSellLink bool `json:"doNotSellLink"`
}

// VerificationPlaces are the places a verification visits from: one per regional rule, each
// a place that rule applies to (a rule no place reaches, because earlier or more specific rules
// take all of its places, is left out). A banner without regional rules has one: the
// scanner's own place under banner.defaultBehavior.
func (b *Banner) VerificationPlaces() []RulePlace {
	if len(b.RegionRules) == 0 {
		return []RulePlace{{Behavior: b.DefaultBehavior, Regions: []string{}, HonorGPC: false}}
	}
	x := NewRegionIndex(b.RegionRules)
	out := make([]RulePlace, 0, len(b.RegionRules))
	for i, r := range b.RegionRules {
		for _, cand := range placeCandidates(r.Regions) {
			loc := core.Location{}
			if cand != core.RegionUnknown {
				loc = core.LocationOf("", cand)
				if loc.Country == "" {
					loc = core.LocationOf(cand, "")
				}
			}
			vr := b.VisitorRuleIndexed(x, loc)
			if vr.Rule == nil || vr.Index != i {
				continue
			}
			out = append(out, RulePlace{Rule: vr.Ref(), Regions: slices.Clone(r.Regions), Location: cand, Behavior: r.DefaultBehavior,
				HonorGPC: r.HonorGPC, DoNotSellLink: r.DoNotSellLink})
			break
		}
	}
	return out
}

// placeCandidates are the places that may stand for regions, in the order of the law table
// (core/regions.json): a group's members, every country for *.
func placeCandidates(regions []string) []string {
	var out []string
	for _, code := range regions {
		switch {
		case code == core.RegionUnknown:
			out = append(out, core.RegionUnknown)
		case code == core.RegionAny:
			out = append(out, core.Countries()...)
		default:
			members := []string{code}
			for _, g := range core.RegionGroups() {
				if g.Code == code {
					members = g.Regions
				}
			}
			out = append(out, members...)
		}
	}
	return out
}
