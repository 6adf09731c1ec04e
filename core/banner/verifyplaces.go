package banner

import (
	"slices"

	"github.com/consentd/consentd/core"
)

// VerificationPlaces are the places a verification visits from: one per regional rule, each
// a place that rule applies to (a rule no place reaches, because earlier or more specific rules
// take all of its places, is left out). A banner without regional rules has one: the
// scanner's own place under banner.defaultBehavior.
func (b *Banner) VerificationPlaces() []core.RulePlace {
	if len(b.RegionRules) == 0 {
		return []core.RulePlace{{Behavior: b.DefaultBehavior, Regions: []string{}, HonorGPC: false}}
	}
	x := NewRegionIndex(b.RegionRules)
	out := make([]core.RulePlace, 0, len(b.RegionRules))
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
			out = append(out, core.RulePlace{Rule: vr.Ref(), Regions: slices.Clone(r.Regions), Location: cand, Behavior: r.DefaultBehavior,
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
