package banner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/consentd/consentd/core"
)

// Limits of banner.regionRules.
const (
	// MaxRegionRules is the most regional rules a banner may have.
	MaxRegionRules = 50
	// MaxRuleRegions is the most region codes one rule may list: every country fits.
	MaxRuleRegions = 300
)

// RegionRule is one of a banner's regional rules: what the banner does for visitors in
// Regions. The first rule whose regions match a visitor applies, the most specific match first
// (see Banner.VisitorRule); banner.defaultBehavior applies when none does.
type RegionRule struct {
	Regions []string `json:"regions" doc:"ISO 3166-1 alpha-2 countries (FR), ISO 3166-2 subdivisions (US-CA; every US and Canadian one), the groups EU, EEA and US-STATE-LAWS, * for every other known place, or unknown for a visitor whose location is unknown."`
	// DefaultBehavior is what the banner does before a decision, one of DefaultBehaviors.
	DefaultBehavior string `json:"defaultBehavior" doc:"What the banner does before a decision for these visitors."`
	// HonorGPC makes a Global Privacy Control signal an opt-out of sale and sharing.
	HonorGPC bool `json:"honorGpc" doc:"A Global Privacy Control signal turns the sale category off and is recorded as a request not to sell."`
	// DoNotSellLink offers an opt-out of sale and sharing: refusing the sale category is a
	// request not to sell.
	DoNotSellLink bool `json:"doNotSellLink" doc:"The visitor may opt out of sale and sharing (a Do Not Sell or Share control); refusing the sale category is recorded as a request not to sell."`
	// RejectOnFirstLayer is whether the banner's first layer offers reject beside accept (the
	// policy's RejectOnFirstLayer, which the runtime applies); the compliance report reads it.
	RejectOnFirstLayer bool `json:"rejectOnFirstLayer" doc:"The first layer offers reject beside accept; false leaves reject to the preferences (the compliance report requires it where the rule is opt-in in Europe)."`
	// ReaskAfterRejectDays is the rule's own reaskAfterRejectDays, nil to take the banner's.
	ReaskAfterRejectDays *int `json:"reaskAfterRejectDays,omitempty" doc:"After a refusal (reject all), the banner stays away this many days for these visitors; absent: the banner's reaskAfterRejectDays, else the default of this rule's behaviour (opt_in 180, opt_out 365)."`
}

// RegionRuleInput is a regional rule as a PATCH sends it: booleans left out take their
// defaults, the ones a site owner rarely wants to weaken: honorGpc true (honouring the signal
// is lawful everywhere), doNotSellLink true under opt_out, rejectOnFirstLayer true.
type RegionRuleInput struct {
	Regions            []string
	DefaultBehavior    string
	HonorGPC           *bool
	DoNotSellLink      *bool
	RejectOnFirstLayer *bool
	// ReaskAfterRejectDays, when set, is the rule's own (MinReask to MaxReask days).
	ReaskAfterRejectDays *int
}

// RegionRulesOf validates rules and returns them with their defaults, region codes trimmed
// (PatchBanner; the console's preview of a draft).
func RegionRulesOf(in []RegionRuleInput) ([]RegionRule, error) {
	if len(in) > MaxRegionRules {
		return nil, core.FieldErrorf("regionRules", "must have at most %d rules", MaxRegionRules)
	}
	out := make([]RegionRule, 0, len(in))
	for i, r := range in {
		field := fmt.Sprintf("regionRules[%d]", i)
		if len(r.Regions) < 1 || len(r.Regions) > MaxRuleRegions {
			return nil, core.FieldErrorf(field+".regions", "must list 1 to %d region codes", MaxRuleRegions)
		}
		regions := make([]string, 0, len(r.Regions))
		for j, code := range r.Regions {
			code = strings.TrimSpace(code)
			if err := core.CheckRegionCode(fmt.Sprintf("%s.regions[%d]", field, j), code); err != nil {
				return nil, err
			}
			if !slices.Contains(regions, code) {
				regions = append(regions, code)
			}
		}
		if !slices.Contains(defaultBehaviors[:], r.DefaultBehavior) {
			return nil, core.FieldErrorf(field+".defaultBehavior", "must be one of %v", defaultBehaviors)
		}
		or := func(p *bool, def bool) bool {
			if p == nil {
				return def
			}
			return *p
		}
		if err := checkReask(field+".reaskAfterRejectDays", r.ReaskAfterRejectDays); err != nil {
			return nil, err
		}
		out = append(out, RegionRule{Regions: regions, DefaultBehavior: r.DefaultBehavior, HonorGPC: or(r.HonorGPC, true),
			DoNotSellLink: or(r.DoNotSellLink, r.DefaultBehavior == BehaviorOptOut), RejectOnFirstLayer: or(r.RejectOnFirstLayer, true),
			ReaskAfterRejectDays: clonePtr(r.ReaskAfterRejectDays)})
	}
	return out, nil
}

// RegionPreset is a set of regional rules a site owner picks with one click.
type RegionPreset struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Description string       `json:"description"`
	RegionRules []RegionRule `json:"regionRules"`
}

// Preset IDs.
const (
	PresetGDPRUSLaws      = "gdpr-us-laws"
	PresetOptInEverywhere = "opt-in-everywhere"
	// PresetQuebec is Quebec's Law 25 (#45): opt-in in Quebec, nothing elsewhere.
	PresetQuebec = "quebec"
	// PresetBrazil is Brazil's LGPD as the ANPD's cookie guide reads it: opt-in, reject on the
	// first layer, nothing elsewhere.
	PresetBrazil = "brazil"
	// PresetWorldwide combines the others: Europe, Quebec and Brazil opt-in, the United States
	// opt-out, opt-in where the location is unknown, nothing elsewhere.
	PresetWorldwide = "worldwide"
)

// RegionPresets returns the presets of regional rules.
//
// "GDPR in Europe, US state laws, nothing elsewhere": opt-in in the EU, the EEA, the United
// Kingdom and Switzerland; opt-out with GPC honoured and a Do Not Sell or Share control in the
// US states with a comprehensive privacy law, and in the rest of the United States too, since a
// visitor's state is often unknown (the embedded database knows countries only) and an opt-out
// notice costs nothing where no law requires it; opt-in where the location is unknown; no
// banner elsewhere. "Opt-in everywhere": opt-in for every visitor, known location or not.
func RegionPresets() []RegionPreset {
	return []RegionPreset{
		{ID: PresetGDPRUSLaws, Name: "GDPR in Europe, US state laws, nothing elsewhere",
			Description: "Opt-in in the EU, the EEA, the United Kingdom and Switzerland; opt-out with Global Privacy Control honoured and a Do Not Sell or Share control in the United States (its states with a comprehensive privacy law first); opt-in where the visitor's location is unknown; no banner elsewhere.",
			RegionRules: []RegionRule{
				{Regions: []string{core.RegionEU, core.RegionEEA, "GB", "CH"}, DefaultBehavior: BehaviorOptIn, HonorGPC: true, RejectOnFirstLayer: true},
				{Regions: []string{core.RegionUSStateLaws, "US"}, DefaultBehavior: BehaviorOptOut, HonorGPC: true, DoNotSellLink: true, RejectOnFirstLayer: true},
				{Regions: []string{core.RegionUnknown}, DefaultBehavior: BehaviorOptIn, HonorGPC: true, RejectOnFirstLayer: true},
				{Regions: []string{core.RegionAny}, DefaultBehavior: BehaviorNoBanner, HonorGPC: true, RejectOnFirstLayer: true},
			}},
		{ID: PresetOptInEverywhere, Name: "Opt-in everywhere",
			Description: "Opt-in for every visitor, wherever they are and where their location is unknown, with Global Privacy Control honoured.",
			RegionRules: []RegionRule{
				{Regions: []string{core.RegionAny, core.RegionUnknown}, DefaultBehavior: BehaviorOptIn, HonorGPC: true, RejectOnFirstLayer: true},
			}},
		{ID: PresetQuebec, Name: "Quebec (Law 25)",
			Description: "Opt-in in Quebec: Law 25 (An Act respecting the protection of personal information in the private sector, s. 8.1 and 9.1) wants tracking that profiles people off by default and express consent; no banner elsewhere.",
			RegionRules: []RegionRule{
				{Regions: []string{"CA-QC"}, DefaultBehavior: BehaviorOptIn, HonorGPC: true, RejectOnFirstLayer: true},
				{Regions: []string{core.RegionAny}, DefaultBehavior: BehaviorNoBanner, HonorGPC: true, RejectOnFirstLayer: true},
			}},
		{ID: PresetBrazil, Name: "Brazil (LGPD)",
			Description: "Opt-in in Brazil with reject on the first layer, as the ANPD's guide on cookies (2022) reads the LGPD; no banner elsewhere.",
			RegionRules: []RegionRule{
				{Regions: []string{"BR"}, DefaultBehavior: BehaviorOptIn, HonorGPC: true, RejectOnFirstLayer: true},
				{Regions: []string{core.RegionAny}, DefaultBehavior: BehaviorNoBanner, HonorGPC: true, RejectOnFirstLayer: true},
			}},
		{ID: PresetWorldwide, Name: "Worldwide",
			Description: "The other presets together: opt-in in the EU, the EEA, the United Kingdom, Switzerland, Quebec and Brazil; opt-out with Global Privacy Control honoured and a Do Not Sell or Share control in the United States; opt-in where the visitor's location is unknown; no banner elsewhere.",
			RegionRules: []RegionRule{
				{Regions: []string{core.RegionEU, core.RegionEEA, "GB", "CH", "CA-QC", "BR"}, DefaultBehavior: BehaviorOptIn, HonorGPC: true, RejectOnFirstLayer: true},
				{Regions: []string{core.RegionUSStateLaws, "US"}, DefaultBehavior: BehaviorOptOut, HonorGPC: true, DoNotSellLink: true, RejectOnFirstLayer: true},
				{Regions: []string{core.RegionUnknown}, DefaultBehavior: BehaviorOptIn, HonorGPC: true, RejectOnFirstLayer: true},
				{Regions: []string{core.RegionAny}, DefaultBehavior: BehaviorNoBanner, HonorGPC: true, RejectOnFirstLayer: true},
			}},
	}
}
