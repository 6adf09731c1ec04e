package banner

import (
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/gpp"
)

// CheckGPPString validates the GPP string of a consent POST on a site: none without GPP on; a
// GPP version 1 header, then "~"-separated sections of the specification's alphabet
// (base64url, "." between subsections), at most MaxGPPString characters, one section per
// section the header lists.
func CheckGPPString(b *Banner, s string) error {
	if s == "" {
		return nil
	}
	if !b.GPP.Enabled {
		return core.FieldErrorf("gppString", "GPP is not enabled on this site")
	}
	if len(s) > gpp.MaxGPPString {
		return core.FieldErrorf("gppString", "must be at most %d characters", gpp.MaxGPPString)
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.~", r)) {
			return core.FieldErrorf("gppString", "%q is not a character of a GPP string (base64url, '.' and '~')", r)
		}
	}
	parts := strings.Split(s, "~")
	if !gpp.GppStringPattern.MatchString(s) {
		for i, p := range parts[1:] {
			if p == "" {
				return core.FieldErrorf("gppString", "section %d is empty", i+1)
			}
		}
		return core.FieldErrorf("gppString", "not a GPP string: it starts with a version 1 header (DB...) followed by its sections, separated by ~")
	}
	if n, ok := gpp.GppHeaderSections(parts[0]); !ok || n != len(parts)-1 {
		return core.FieldErrorf("gppString", "its header lists %d sections, the string has %d", n, len(parts)-1)
	}
	return nil
}

// GPPFor returns what the runtime's __gpp writes for a visitor under rule, nil when the site
// has GPP off or no section applies to the visitor (the loader then inlines no __gpp):
//   - where the TCF applies (TCFApplies): tcfeuv2, the TC string __tcfapi gives;
//   - for a US visitor (the jurisdiction ccpa) on a banner without regional rules, or under an
//     opt-out rule (the rule's behaviour, or defaultBehavior when none matches): the US
//     sections the site's approach (gpp.approach) names. The visitor's state section is the
//     one the law table gives the state (core/regions.json gppSection, gpp.StateSection).
//     national: usnat alone (the MSPA's National Approach, usnat "used in place of specific
//     state strings"); state: the state's section alone, usnat where the state has none; both
//     (the default): usnat and the state's section, and, as the IAB's guidance lets a CMP
//     supporting both decide which vendors should read, usnat applies for an MSPA-covered site,
//     the state's section for any other.
func (b *Banner) GPPFor(rule VisitorRule, cmpID int) *gpp.GPPConfig {
	if !b.GPP.Enabled {
		return nil
	}
	cfg := &gpp.GPPConfig{CMPID: cmpID}
	switch {
	case b.TCFApplies(rule):
		cfg.Sections = []gpp.GPPSection{{ID: gpp.GPPSectionTCFEUv2, API: gpp.GppSectionAPIs[gpp.GPPSectionTCFEUv2]}}
		cfg.Applicable = []int{gpp.GPPSectionTCFEUv2}
	case rule.Jurisdiction == core.JurisdictionCCPA && rule.Location.Country == "US" && (!rule.Regional || b.BehaviorFor(rule) == BehaviorOptOut):
		s := b.GPP.Clean()
		state, ok := gpp.StateSection(rule.Location.Region)
		switch {
		case !ok || s.Approach == gpp.ApproachNational:
			cfg.Sections = []gpp.GPPSection{gpp.GppUSSection(gpp.GPPSectionUSNat, s)}
			cfg.Applicable = []int{gpp.GPPSectionUSNat}
		case s.Approach == gpp.ApproachState:
			cfg.Sections = []gpp.GPPSection{gpp.GppUSSection(state, s)}
			cfg.Applicable = []int{state}
		default:
			cfg.Sections = []gpp.GPPSection{gpp.GppUSSection(gpp.GPPSectionUSNat, s), gpp.GppUSSection(state, s)}
			cfg.Applicable = []int{state}
			if s.MSPACoveredTransaction {
				cfg.Applicable = []int{gpp.GPPSectionUSNat}
			}
		}
	default:
		return nil
	}
	return cfg
}
