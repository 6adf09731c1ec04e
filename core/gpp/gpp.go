package gpp

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/consentd/consentd/core"
)

// The IAB Global Privacy Platform (GPP, issue #30; docs/gpp.md). The server decides, for a site
// and a visitor, which GPP sections the runtime writes and which of them apply (Banner.GPPFor),
// and what each field of them says before and after the visitor opts out of sale and sharing
// (gppFieldTable, the one mapping from consentd's decision to the GPP fields). The runtime's
// __gpp (bannerjs/gpp.js) encodes what this says and decides nothing.

// GPP section IDs (IAB GPP, Sections/Section Information.md); the US sections and their
// prefixes are in sections.go.
const (
	GPPSectionTCFEUv2 = 2
	GPPSectionUSNat   = 7
	GPPSectionUSCA    = 8
	GPPSectionUSVA    = 9
	GPPSectionUSCO    = 10
	GPPSectionUSUT    = 11
	GPPSectionUSCT    = 12
)

// MSPA modes a site declares for its covered transactions (the banner's gpp.mspaMode).
const (
	// MSPAModeOptOut is the MSPA's "Opt-Out Option Mode": the publisher offers the opt-outs.
	MSPAModeOptOut = "opt-out"
	// MSPAModeServiceProvider is the MSPA's "Service Provider Mode": downstream parties act as
	// the publisher's service providers and do not sell, share or target.
	MSPAModeServiceProvider = "service-provider"
)

var mspaModes = [...]string{MSPAModeOptOut, MSPAModeServiceProvider}

// Approaches a site takes to the US sections (the banner's gpp.approach).
const (
	// ApproachBoth writes usnat and the visitor's state section where the IAB defines one; the
	// one that applies is usnat for an MSPA-covered site, else the state's.
	ApproachBoth = "both"
	// ApproachNational is the MSPA's National Approach: usnat alone, for every US visitor.
	ApproachNational = "national"
	// ApproachState is the state-specific approach: the visitor's state section alone where
	// the IAB defines one, usnat elsewhere in the US.
	ApproachState = "state"
)

var approaches = [...]string{ApproachBoth, ApproachNational, ApproachState}

// Approaches returns the values of the banner's gpp.approach.
func Approaches() []string { return slices.Clone(approaches[:]) }

// MSPAModes returns the values of the banner's gpp.mspaMode.
func MSPAModes() []string { return slices.Clone(mspaModes[:]) }

// GPPSettings are a site's GPP settings, the banner's gpp object.
type GPPSettings struct {
	// Enabled turns the GPP on: where a section applies to the visitor (Banner.GPPFor), the
	// loader inlines __gpp.
	Enabled bool `json:"enabled" doc:"Turns the IAB Global Privacy Platform on: visitors under a US opt-out rule get the usnat section (and their state's section), visitors the TCF applies to get tcfeuv2; the loader then inlines the __gpp API."`
	// MSPACoveredTransaction is whether the publisher is a signatory of the IAB's Multi-State
	// Privacy Agreement and declares its ad transactions covered by it.
	MSPACoveredTransaction bool `json:"mspaCoveredTransaction" doc:"The publisher signed the IAB Multi-State Privacy Agreement (MSPA) and declares its transactions covered by it (MspaCoveredTransaction). Covered sites follow the MSPA's National Approach: usnat is the section that applies."`
	// MSPAMode is the MSPA mode of covered transactions, one of MSPAModes.
	MSPAMode string `json:"mspaMode" enum:"opt-out,service-provider" doc:"The MSPA mode of covered transactions: opt-out (Opt-Out Option Mode) or service-provider (Service Provider Mode). Encoded only when mspaCoveredTransaction is true; otherwise both modes read not applicable."`
	// Approach is national, state or both (the default), one of Approaches.
	Approach string `json:"approach" enum:"both,national,state" doc:"Which US sections a US visitor's string carries: national (the MSPA's National Approach: usnat alone), state (the state-specific approach: the visitor's state section alone where the IAB defines one, usnat elsewhere) or both (the default: usnat and the state's section, usnat applying for an MSPA-covered site, the state's otherwise)."`
}

// Clean returns s with its default mode.
func (s GPPSettings) Clean() GPPSettings {
	if s.MSPAMode == "" {
		s.MSPAMode = MSPAModeOptOut
	}
	if s.Approach == "" {
		s.Approach = ApproachBoth
	}
	return s
}

// Clone returns s with its defaults (the stores keep their own copy).
func (s GPPSettings) Clone() GPPSettings { return s.Clean() }

// CheckGPPSettings validates a site's GPP settings and returns them with their defaults
// (mspaMode opt-out).
func CheckGPPSettings(s GPPSettings) (GPPSettings, error) {
	s = s.Clean()
	if !slices.Contains(mspaModes[:], s.MSPAMode) {
		return s, core.FieldErrorf("gpp.mspaMode", "must be one of %v", mspaModes)
	}
	if !slices.Contains(approaches[:], s.Approach) {
		return s, core.FieldErrorf("gpp.approach", "must be one of %v", approaches)
	}
	return s, nil
}

// MaxGPPString bounds the GPP string a consent POST carries, in characters. The GPP
// specification sets no length; its tcfeuv2 section is the TC string itself, which a consent
// POST may carry up to MaxTCString, so the GPP string has the same bound (a header, usnat, a
// state section and a TC string with a thousand vendors stay well under it). docs/gpp.md
// states it (TestGPPDocLimit).
const MaxGPPString = core.MaxTCString

// GPPStringPattern is the form of a GPP string: a version 1 header (it starts "DB", web-safe
// base64), then one or more sections, each after a '~', of web-safe base64 with '.' between
// subsections. CheckGPPString applies it; the OpenAPI document states it for gppString.
const GPPStringPattern = "^" + gppHeaderPrefix + `[A-Za-z0-9_-]*(~[A-Za-z0-9_.-]+)+$`

var GppStringPattern = regexp.MustCompile(GPPStringPattern)

// gppHeaderPrefix is how every GPP string starts: its header's Type 3 and Version 1 (6 bits
// each: 000011 000001).
const gppHeaderPrefix = "DB"

// GppHeaderSections returns the number of section IDs a GPP header lists (its Range(Fibonacci)
// of IDs: a 12-bit count of entries, each a single ID or a group of consecutive IDs).
func GppHeaderSections(h string) (int, bool) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var bits []byte
	for _, c := range h {
		v := strings.IndexRune(alphabet, c)
		if v < 0 {
			return 0, false
		}
		for i := 5; i >= 0; i-- {
			bits = append(bits, byte(v>>i)&1)
		}
	}
	pos := 12
	read := func(n int) (int, bool) {
		if pos+n > len(bits) {
			return 0, false
		}
		v := 0
		for _, b := range bits[pos : pos+n] {
			v = v<<1 | int(b)
		}
		pos += n
		return v, true
	}
	fib := func() (int, bool) { // a Fibonacci code word, ended by "11"
		a, b, v, last := 1, 2, 0, byte(0)
		for pos < len(bits) {
			bit := bits[pos]
			pos++
			if bit == 1 && last == 1 {
				return v, true
			}
			if bit == 1 {
				v += a
			}
			a, b, last = b, a+b, bit
		}
		return 0, false
	}
	count, ok := read(12)
	if !ok {
		return 0, false
	}
	n, prev := 0, 0
	for range count {
		group, ok := read(1)
		if !ok {
			return 0, false
		}
		off, ok := fib()
		if !ok {
			return 0, false
		}
		prev += off
		n++
		if group == 1 {
			l, ok := fib()
			if !ok {
				return 0, false
			}
			n += l
			prev += l
		}
	}
	return n, true
}

// GPPSection is one section of the visitor's GPP string, as the runtime writes it.
type GPPSection struct {
	ID  int    `json:"id" doc:"The GPP section ID (7 usnat, 8 usca, 2 tcfeuv2...)."`
	API string `json:"api" doc:"The section's client-side API prefix (usnat, usca, tcfeuv2)."`
	// Version is the section's specification version, its first field (none for tcfeuv2,
	// which is the TC string as __tcfapi gives it).
	Version int `json:"version,omitempty" doc:"The version of the section's specification written in its Version field; absent for tcfeuv2, which is the TC string as __tcfapi gives it, and for the sections whose core segment has no Version field (usmd, usin, usky, usri begin with MspaVersion)."`
	// Fields are the section's core segment, in the order of the specification, each with its
	// width and its value before an opt-out.
	Fields []GPPField `json:"fields,omitempty" doc:"The core segment's fields after Version, in the specification's order."`
	// GPCSegment is whether the section has the GPC subsection (SubsectionType 1, Gpc).
	GPCSegment bool `json:"gpcSegment,omitempty" doc:"Whether the section carries the GPC subsection: Gpc is true when the browser sends a Global Privacy Control signal."`
}

// GPPField is a field of a section's core segment: Int(Bits) when Count is 0, an
// N-Bitfield(Bits, Count) otherwise (every entry Value).
type GPPField struct {
	Name  string `json:"name" doc:"The field's name in the specification (UpperCamelCase)."`
	Bits  int    `json:"bits" doc:"Its width in bits (each entry's, for an N-Bitfield)."`
	Count int    `json:"count,omitempty" doc:"For an N-Bitfield, its number of entries, each set to the value."`
	Value int    `json:"value" doc:"Its value before the visitor opts out of sale and sharing."`
	// OptOut is its value once the visitor opted out (Policy.DoNotSell: the Do Not Sell or
	// Share control refused, or a GPC signal where honoured); nil when the opt-out leaves it.
	OptOut *int `json:"optOut,omitempty" doc:"Its value once the visitor opted out of sale and sharing (doNotSell), when that changes it."`
}

// GPPConfig is what the runtime's __gpp needs for a visitor: the sections of the string in
// order, which of them apply, and the CMP ID it reports.
type GPPConfig struct {
	CMPID int `json:"cmpId" doc:"The CMP ID __gpp reports: the deployment's IAB CMP ID (CONSENTD_TCF_CMP_ID), 0 without one."`
	// Sections are the sections the string carries, in order of their IDs.
	Sections []GPPSection `json:"sections"`
	// Applicable are the IDs of the sections vendors should read (ping's applicableSections).
	Applicable []int `json:"applicableSections" doc:"The IDs of the sections that apply to this visitor (ping's applicableSections): usnat for MSPA-covered sites (the MSPA's National Approach), else the state's section where the IAB defines one, else usnat; tcfeuv2 where the TCF applies."`
}

// GPP field values (the specifications' Int(2) codes).
const (
	gppNotApplicable = 0
	gppYes           = 1 // notices: "Yes, notice was provided"; MSPA fields: "Yes"
	gppNo            = 2 // notices: "No, notice was not provided"; MSPA fields: "No"
	gppOptedOut      = 1 // opt-outs: "Opted Out"
	gppNotOptedOut   = 2 // opt-outs: "Did Not Opt Out"
)

// GPPMapping is one row of the mapping from consentd's decision to the GPP fields.
type GPPMapping struct {
	Field string `json:"field"`
	// Before is the value before a choice and after a choice that keeps sale and sharing.
	Before int `json:"before"`
	// OptedOut is the value after an opt-out of sale and sharing (doNotSell), -1 when the same.
	OptedOut int `json:"optedOut"`
	// Why says what consentd's decision behind it is.
	Why string `json:"why"`
}

// gppFieldTable is the one mapping from consentd's decision to the US sections' fields, by
// field name; a section uses the rows of the fields it has. The MSPA fields come from the
// site's gpp settings (gppMSPA). Every other field of the sections (the sensitive-data and
// children's consents, PersonalDataConsents) is 0, not applicable: consentd's categories say
// nothing of sensitive data or known children.
var gppFieldTable = []GPPMapping{
	{"SharingNotice", gppYes, -1, "the banner (and the privacy policy it links) tells the visitor their data may be shared"},
	{"ProcessingNotice", gppYes, -1, "the banner (and the privacy policy it links) describes the processing of personal data"},
	{"SaleOptOutNotice", gppYes, -1, "the visitor's rule offers the Do Not Sell or Share control (policy.doNotSellLink) on the banner and in the preferences"},
	{"SharingOptOutNotice", gppYes, -1, "the same control covers sharing"},
	{"TargetedAdvertisingOptOutNotice", gppYes, -1, "the same control refuses the marketing category, which holds targeted advertising"},
	{"SaleOptOut", gppNotOptedOut, gppOptedOut, "opted out when the visitor asks not to sell (doNotSell: the sale category, marketing, refused, or a GPC signal where honoured)"},
	{"SharingOptOut", gppNotOptedOut, gppOptedOut, "the same decision: CCPA's sharing is cross-context behavioural advertising, the marketing category"},
	{"TargetedAdvertisingOptOut", gppNotOptedOut, gppOptedOut, "the same decision: targeted advertising is the marketing category's purpose"},
}

// GPPFieldTable returns the mapping from consentd's decision to the GPP fields (docs/gpp.md).
func GPPFieldTable() []GPPMapping { return slices.Clone(gppFieldTable) }

// gppMSPA returns the MSPA fields' values for settings s: covered transaction 1 yes / 2 no,
// and with it the mode chosen 1 (yes), the other 2 (no), both 0 (not applicable) otherwise;
// in the sections with one MspaMode field (Maryland, Indiana, Kentucky, Rhode Island), 1
// Opt-Out Option Mode, 2 Service Provider Mode, 0 not applicable; MspaVersion 1, the MSPA's
// version these sections know.
func gppMSPA(s GPPSettings) map[string]int {
	if !s.MSPACoveredTransaction {
		return map[string]int{"MspaVersion": 1, "MspaCoveredTransaction": gppNo, "MspaOptOutOptionMode": gppNotApplicable, "MspaServiceProviderMode": gppNotApplicable, "MspaMode": gppNotApplicable}
	}
	opt, sp, mode := gppYes, gppNo, 1
	if s.Clean().MSPAMode == MSPAModeServiceProvider {
		opt, sp, mode = gppNo, gppYes, 2
	}
	return map[string]int{"MspaVersion": 1, "MspaCoveredTransaction": gppYes, "MspaOptOutOptionMode": opt, "MspaServiceProviderMode": sp, "MspaMode": mode}
}

// GppUSSection returns section id filled from the mapping and the MSPA settings.
func GppUSSection(id int, s GPPSettings) GPPSection {
	l := gppLayouts[id]
	if l.api == "" {
		panic("gpp: no US section " + strconv.Itoa(id))
	}
	mspa := gppMSPA(s)
	rows := map[string]GPPMapping{}
	for _, m := range gppFieldTable {
		rows[m.Field] = m
	}
	sec := GPPSection{ID: id, API: l.api, Version: l.version, GPCSegment: l.gpc, Fields: make([]GPPField, 0, len(l.fields))}
	for _, f := range l.fields {
		fl := GPPField{Name: f.name, Bits: f.bits, Count: f.n}
		if m, ok := rows[f.name]; ok {
			fl.Value = m.Before
			if m.OptedOut >= 0 {
				v := m.OptedOut
				fl.OptOut = &v
			}
		} else if v, ok := mspa[f.name]; ok {
			fl.Value = v
		}
		sec.Fields = append(sec.Fields, fl)
	}
	return sec
}
