package core

import "strings"

// CheckGPPString validates the GPP string of a consent POST on a site: none without GPP on; a
// GPP version 1 header, then "~"-separated sections of the specification's alphabet
// (base64url, "." between subsections), at most MaxGPPString characters, one section per
// section the header lists.
func CheckGPPString(b *Banner, s string) error {
	if s == "" {
		return nil
	}
	if !b.GPP.Enabled {
		return FieldErrorf("gppString", "GPP is not enabled on this site")
	}
	if len(s) > MaxGPPString {
		return FieldErrorf("gppString", "must be at most %d characters", MaxGPPString)
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.~", r)) {
			return FieldErrorf("gppString", "%q is not a character of a GPP string (base64url, '.' and '~')", r)
		}
	}
	parts := strings.Split(s, "~")
	if !gppStringPattern.MatchString(s) {
		for i, p := range parts[1:] {
			if p == "" {
				return FieldErrorf("gppString", "section %d is empty", i+1)
			}
		}
		return FieldErrorf("gppString", "not a GPP string: it starts with a version 1 header (DB...) followed by its sections, separated by ~")
	}
	if n, ok := gppHeaderSections(parts[0]); !ok || n != len(parts)-1 {
		return FieldErrorf("gppString", "its header lists %d sections, the string has %d", n, len(parts)-1)
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
func (b *Banner) GPPFor(rule VisitorRule, cmpID int) *GPPConfig {
	if !b.GPP.Enabled {
		return nil
	}
	cfg := &GPPConfig{CMPID: cmpID}
	switch {
	case b.TCFApplies(rule):
		cfg.Sections = []GPPSection{{ID: GPPSectionTCFEUv2, API: gppSectionAPIs[GPPSectionTCFEUv2]}}
		cfg.Applicable = []int{GPPSectionTCFEUv2}
	case rule.Jurisdiction == JurisdictionCCPA && rule.Location.Country == "US" && (!rule.Regional || b.behaviorFor(rule) == BehaviorOptOut):
		cfg.Sections = []GPPSection{gppUSSection(GPPSectionUSNat, b.GPP)}
		cfg.Applicable = []int{GPPSectionUSNat}
		if id, ok := usStateSections[rule.Location.Region]; ok {
			cfg.Sections = append(cfg.Sections, gppUSSection(id, b.GPP))
			if !b.GPP.MSPACoveredTransaction {
				cfg.Applicable = []int{id}
			}
		}
	default:
		return nil
	}
	return cfg
}
