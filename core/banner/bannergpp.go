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
//     opt-out rule (the rule's behaviour, or defaultBehavior when none matches): usnat, and
//     where the visitor's state has its own IAB section (California, Virginia, Colorado, Utah,
//     Connecticut) that section too. Which one applies follows the IAB's guidance that a CMP supporting both decides which
//     vendors should read: an MSPA-covered site follows the MSPA's National Approach (usnat,
//     "used in place of specific state strings"); any other site the state's own section where
//     there is one, else usnat.
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
		cfg.Sections = []gpp.GPPSection{gpp.GppUSSection(gpp.GPPSectionUSNat, b.GPP)}
		cfg.Applicable = []int{gpp.GPPSectionUSNat}
		if id, ok := gpp.UsStateSections[rule.Location.Region]; ok {
			cfg.Sections = append(cfg.Sections, gpp.GppUSSection(id, b.GPP))
			if !b.GPP.MSPACoveredTransaction {
				cfg.Applicable = []int{id}
			}
		}
	default:
		return nil
	}
	return cfg
}
