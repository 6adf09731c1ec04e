package gpp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/consentd/consentd/core"
)

// The US sections of the GPP, restated once from the IAB's specifications
// (InteractiveAdvertisingBureau/Global-Privacy-Platform, Sections/US-National and
// Sections/US-States, as of December 2025): each section's ID, API prefix, version, its core
// segment's fields after Version in order, and whether it has the GPC subsection. Which state
// gets which section is the law table's (core/regions.json, gppSection); stateSection reads it.
//
// A field is written "Name" for an Int(2), "Name*n" for an N-Bitfield(2, n), "Name/w" for an
// Int(w). The Maryland, Indiana, Kentucky and Rhode Island specifications (version 1.0,
// "public comment", October 2025) have no Version field in their core segment, which begins
// with MspaVersion Int(6); their documents draw a section header (SectionID, Version, a
// Fibonacci list of subsections) that the IAB's own library (@iabgpp/cmpapi 3.2.0) neither
// writes nor reads: consentd writes what that library reads, the section's core segment
// alone, and its GPC subsection where the section has one (docs/gpp.md). The optional
// Sensitive Data Consents subsection of Indiana and Kentucky is not written: consentd's
// categories hold no sensitive-data consent.
var usSectionSpecs = []struct {
	id      int
	api     string
	version int
	gpc     bool
	fields  string
}{
	{GPPSectionUSNat, "usnat", 2, true, "SharingNotice SaleOptOutNotice SharingOptOutNotice TargetedAdvertisingOptOutNotice SensitiveDataProcessingOptOutNotice SensitiveDataLimitUseNotice SaleOptOut SharingOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*16 KnownChildSensitiveDataConsents*3 PersonalDataConsents" + mspaFields},
	{GPPSectionUSCA, "usca", 1, true, "SaleOptOutNotice SharingOptOutNotice SensitiveDataLimitUseNotice SaleOptOut SharingOptOut SensitiveDataProcessing*9 KnownChildSensitiveDataConsents*2 PersonalDataConsents" + mspaFields},
	{GPPSectionUSVA, "usva", 1, false, "SharingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*8 KnownChildSensitiveDataConsents" + mspaFields},
	{GPPSectionUSCO, "usco", 1, true, "SharingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*7 KnownChildSensitiveDataConsents" + mspaFields},
	{GPPSectionUSUT, "usut", 1, false, "SharingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SensitiveDataProcessingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*8 KnownChildSensitiveDataConsents" + mspaFields},
	{GPPSectionUSCT, "usct", 1, true, "SharingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*8 KnownChildSensitiveDataConsents*3" + mspaFields},
	{13, "usfl", 1, false, "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*8 KnownChildSensitiveDataConsents*3 AdditionalDataProcessingConsent" + mspaFields},
	{14, "usmt", 1, true, "SharingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*8 KnownChildSensitiveDataConsents*3 AdditionalDataProcessingConsent" + mspaFields},
	{15, "usor", 1, true, "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*11 KnownChildSensitiveDataConsents*3 AdditionalDataProcessingConsent" + mspaFields},
	{16, "ustx", 1, true, "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*8 KnownChildSensitiveDataConsents AdditionalDataProcessingConsent" + mspaFields},
	{17, "usde", 1, true, "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*9 KnownChildSensitiveDataConsents*5 AdditionalDataProcessingConsent" + mspaFields},
	{18, "usia", 1, true, "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SensitiveDataOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*8 KnownChildSensitiveDataConsents" + mspaFields},
	{19, "usne", 1, true, "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*8 KnownChildSensitiveDataConsents AdditionalDataProcessingConsent" + mspaFields},
	{20, "usnh", 1, true, "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*8 KnownChildSensitiveDataConsents*3 AdditionalDataProcessingConsent" + mspaFields},
	{21, "usnj", 1, true, "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*10 KnownChildSensitiveDataConsents*5 AdditionalDataProcessingConsent" + mspaFields},
	{22, "ustn", 1, true, "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*8 KnownChildSensitiveDataConsents AdditionalDataProcessingConsent" + mspaFields},
	{23, "usmn", 1, true, "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing*8 KnownChildSensitiveDataConsents AdditionalDataProcessingConsent" + mspaFields},
	{24, "usmd", 0, true, mspaFieldsV2 + " ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut AdditionalDataProcessingConsent"},
	{25, "usin", 0, false, mspaFieldsV2 + " ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut KnownChildSensitiveDataConsents AdditionalDataProcessingConsent"},
	{26, "usky", 0, false, mspaFieldsV2 + " ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut KnownChildSensitiveDataConsents AdditionalDataProcessingConsent"},
	{27, "usri", 0, false, mspaFieldsV2 + " ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut KnownChildSensitiveDataConsents AdditionalDataProcessingConsent"},
}

const (
	// mspaFields end the core segment of the sections up to Minnesota's.
	mspaFields = " MspaCoveredTransaction MspaOptOutOptionMode MspaServiceProviderMode"
	// mspaFieldsV2 begin the core segment of Maryland's and later sections.
	mspaFieldsV2 = "MspaVersion/6 MspaCoveredTransaction MspaMode"
)

// gppLayout is a US section: its ID's prefix, version (0: no Version field), core segment
// after Version, and whether it has the GPC subsection.
type gppLayout struct {
	api     string
	version int
	gpc     bool
	fields  []gppLayoutField
}

type gppLayoutField struct {
	name string
	bits int
	n    int
}

// gppLayouts are usSectionSpecs by ID; GppSectionAPIs their prefixes (and tcfeuv2's).
var gppLayouts, GppSectionAPIs, gppSectionIDs = func() (map[int]gppLayout, map[int]string, map[string]int) {
	out, apis, ids := map[int]gppLayout{}, map[int]string{GPPSectionTCFEUv2: "tcfeuv2"}, map[string]int{"tcfeuv2": GPPSectionTCFEUv2}
	for _, l := range usSectionSpecs {
		gl := gppLayout{api: l.api, version: l.version, gpc: l.gpc}
		for _, f := range strings.Fields(l.fields) {
			fl := gppLayoutField{bits: 2}
			name, n, _ := strings.Cut(f, "*")
			name, w, ok := strings.Cut(name, "/")
			if ok {
				fl.bits, _ = strconv.Atoi(w)
			}
			fl.name = name
			fl.n, _ = strconv.Atoi(n)
			gl.fields = append(gl.fields, fl)
		}
		out[l.id], apis[l.id], ids[l.api] = gl, l.api, l.id
	}
	// Every state section the law table names is one of them.
	for _, law := range core.USStateLaws() {
		if _, ok := ids[law.GPPSection]; law.GPPSection != "" && !ok {
			panic(fmt.Sprintf("gpp: core/regions.json gives %s the GPP section %q, which is not one of core/gpp's", law.Region, law.GPPSection))
		}
	}
	return out, apis, ids
}()

// GPPSectionAPI returns the API prefix of a section consentd writes ("" for another ID).
func GPPSectionAPI(id int) string { return GppSectionAPIs[id] }

// GPPSectionID returns the ID of a section consentd writes, by its API prefix.
func GPPSectionID(api string) (int, bool) {
	id, ok := gppSectionIDs[api]
	return id, ok
}

// StateSection returns the ID of the GPP section of a US state (ISO 3166-2, "US-KY"), as the
// law table names it; false for a state without one.
func StateSection(region string) (int, bool) {
	law, ok := core.USStateLawOf(region)
	if !ok || law.GPPSection == "" {
		return 0, false
	}
	return GPPSectionID(law.GPPSection)
}

// USSectionIDs returns the IDs of the US sections consentd writes, in order.
func USSectionIDs() []int {
	out := make([]int, len(usSectionSpecs))
	for i, l := range usSectionSpecs {
		out[i] = l.id
	}
	return out
}
