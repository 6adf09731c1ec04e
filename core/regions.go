package core

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
)

// The law of each place lives once, in regions.json: the codes a regional rule may name, the
// named groups of regions, the places whose regime is the jurisdiction gdpr, and each US state
// with a comprehensive privacy law (its name, effective date, whether a Global Privacy Control
// signal must be honoured, and its sources). DecidePolicy, the banner's validation and the
// compliance rules read it through the functions below; regions_test.go fails on a copy.

// Region codes a regional rule may name besides ISO 3166-1 alpha-2 countries ("FR") and ISO
// 3166-2 subdivisions ("US-CA").
const (
	// RegionAny matches every visitor whose location is known and whom no more specific
	// region of the banner's rules names.
	RegionAny = "*"
	// RegionUnknown matches a visitor whose location is unknown (no country, or a code that is
	// no ISO 3166-1 country, such as a CDN's "XX" or "T1"), and no one else.
	RegionUnknown = "unknown"
	// RegionEU is the European Union's member states.
	RegionEU = "EU"
	// RegionEEA is the European Economic Area: the EU, Iceland, Liechtenstein and Norway.
	RegionEEA = "EEA"
	// RegionUSStateLaws is the US states with a comprehensive consumer privacy law (USStateLaws).
	RegionUSStateLaws = "US-STATE-LAWS"
)

// RegionGroup is a named group of regions.
type RegionGroup struct {
	Code    string   `json:"code" doc:"The code a regional rule names it by."`
	Name    string   `json:"name"`
	Regions []string `json:"regions" doc:"Its countries (ISO 3166-1 alpha-2) or subdivisions (ISO 3166-2)."`
	Source  string   `json:"source"`
}

// USStateLaw is a US state's comprehensive consumer privacy law.
type USStateLaw struct {
	Region   string `json:"region" doc:"The state, ISO 3166-2 (US-CO)."`
	Law      string `json:"law"`
	Citation string `json:"citation" doc:"The statute (and regulations) it is."`
	// Effective is the date the law took or takes effect (YYYY-MM-DD).
	Effective string `json:"effective" doc:"The date it took or takes effect, YYYY-MM-DD."`
	// GPCRequired is whether the law requires a universal opt-out signal such as Global Privacy
	// Control to be honoured as an opt-out of sale and targeted advertising, from GPCRequiredFrom.
	GPCRequired     bool   `json:"gpcRequired" doc:"Whether a Global Privacy Control signal must be honoured as an opt-out of sale and targeted advertising."`
	GPCRequiredFrom string `json:"gpcRequiredFrom,omitempty" doc:"The date from which it must, YYYY-MM-DD."`
	// GPCDisplayRequiredFrom is the date from which the law requires showing the visitor that
	// their opt-out preference signal was honoured ("Opt-Out Request Honored"), "" when it
	// does not (DisplaysGPCHonored).
	GPCDisplayRequiredFrom string `json:"gpcDisplayRequiredFrom,omitempty" doc:"The date from which the law requires showing the visitor that their Global Privacy Control signal was honoured (California: Opt-Out Request Honored), YYYY-MM-DD; absent when it does not."`
	// GPPSection is the API prefix of the state's own IAB GPP section (usca), "" when the IAB
	// defines none: core/gpp writes it for the state's visitors (docs/gpp.md).
	GPPSection string   `json:"gppSection,omitempty" doc:"The API prefix of the state's own IAB Global Privacy Platform section (usca, usky), absent when the IAB defines none."`
	Sources    []string `json:"sources" doc:"Official pages of the statute or its regulator."`
	Note       string   `json:"note,omitempty" doc:"What the entry's facts depend on, or what was not verified."`
}

type regionData struct {
	Countries    []string            `json:"countries"`
	Subdivisions map[string][]string `json:"subdivisions"`
	// SubdivisionNames are the subdivisions' English names (ISO 3166-2), by code.
	SubdivisionNames map[string]string        `json:"subdivisionNames"`
	Groups           map[string]regionGroupIn `json:"groups"`
	GDPR             struct {
		Regions []string `json:"regions"`
	} `json:"gdpr"`
	USStates []USStateLaw `json:"usStates"`
}

type regionGroupIn struct {
	Name    string   `json:"name"`
	Regions []string `json:"regions"`
	Source  string   `json:"source"`
}

//go:embed regions.json
var regionsJSON []byte

// Laws is regions.json, read once.
var Laws = loadRegions()

type lawTable struct {
	countries    map[string]bool
	subdivisions map[string]bool
	subNames     map[string]string
	groups       []RegionGroup
	// Members maps a group's code to its countries and subdivisions.
	Members map[string]map[string]bool
	gdpr    map[string]bool
	usState map[string]USStateLaw
	states  []USStateLaw
}

func loadRegions() *lawTable {
	var d regionData
	if err := json.Unmarshal(regionsJSON, &d); err != nil {
		panic("core: regions.json: " + err.Error())
	}
	t := &lawTable{countries: map[string]bool{}, subdivisions: map[string]bool{}, Members: map[string]map[string]bool{},
		gdpr: map[string]bool{}, usState: map[string]USStateLaw{}, states: d.USStates, subNames: d.SubdivisionNames}
	for _, c := range d.Countries {
		t.countries[c] = true
	}
	for c, subs := range d.Subdivisions {
		for _, s := range subs {
			t.subdivisions[c+"-"+s] = true
		}
	}
	for code := range d.SubdivisionNames {
		if !t.subdivisions[code] {
			panic("core: regions.json: subdivisionNames names " + code + ", not a subdivision")
		}
	}
	for _, s := range d.USStates {
		t.usState[s.Region] = s
	}
	codes := make([]string, 0, len(d.Groups))
	for code := range d.Groups {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	for _, code := range codes {
		g := d.Groups[code]
		m := map[string]bool{}
		for _, r := range g.Regions {
			if !t.countries[r] && !t.subdivisions[r] {
				panic(fmt.Sprintf("core: regions.json: group %s names %q, no country or subdivision", code, r))
			}
			m[r] = true
		}
		t.Members[code] = m
		t.groups = append(t.groups, RegionGroup{Code: code, Name: g.Name, Regions: g.Regions, Source: g.Source})
	}
	for _, r := range d.GDPR.Regions {
		if m, ok := t.Members[r]; ok {
			for c := range m {
				t.gdpr[c] = true
			}
		} else {
			t.gdpr[r] = true
		}
	}
	return t
}

// RegionGroups returns the named groups of regions, by code.
func RegionGroups() []RegionGroup {
	out := make([]RegionGroup, len(Laws.groups))
	for i, g := range Laws.groups {
		g.Regions = slices.Clone(g.Regions)
		out[i] = g
	}
	return out
}

// USStateLaws returns the US states with a comprehensive consumer privacy law, with their laws.
func USStateLaws() []USStateLaw {
	out := slices.Clone(Laws.states)
	for i := range out {
		out[i].Sources = slices.Clone(out[i].Sources)
	}
	return out
}

// USStateLawOf returns the comprehensive privacy law of a US state (ISO 3166-2, "US-CO").
func USStateLawOf(region string) (USStateLaw, bool) {
	l, ok := Laws.usState[region]
	return l, ok
}

// IsCountry reports whether code is an ISO 3166-1 alpha-2 country code (upper case).
func IsCountry(code string) bool { return Laws.countries[code] }

// Countries returns the ISO 3166-1 alpha-2 codes a regional rule and a Location may name,
// sorted.
func Countries() []string { return sortedKeys(Laws.countries) }

// Subdivisions returns the ISO 3166-2 subdivisions a regional rule may name ("US-CA",
// "CA-QC"), sorted.
func Subdivisions() []string { return sortedKeys(Laws.subdivisions) }

// SubdivisionName returns the English name of a subdivision of Subdivisions ("US-CA":
// "California"), "" for any other code.
func SubdivisionName(code string) string { return Laws.subNames[code] }

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// GDPRCountries returns the countries whose regime is the jurisdiction gdpr (InGDPRRegion),
// sorted.
func GDPRCountries() []string {
	out := make([]string, 0, len(Laws.gdpr))
	for c := range Laws.gdpr {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// InGDPRRegion reports whether a country's regime is the jurisdiction gdpr: an opt-in regime
// in the EU, the EEA, the United Kingdom or Switzerland.
func InGDPRRegion(country string) bool { return Laws.gdpr[country] }

// CheckRegionCode returns a validation error naming field unless code is a code a regional
// rule may name: a country, a known subdivision (at least every US state and territory and
// Canadian province and territory), a named group, RegionAny or RegionUnknown.
func CheckRegionCode(field, code string) error {
	switch {
	case code == RegionAny || code == RegionUnknown, Laws.countries[code], Laws.subdivisions[code], Laws.Members[code] != nil:
		return nil
	}
	return FieldErrorf(field, "unknown region code %q (expected an ISO 3166-1 alpha-2 country such as FR, a US or Canadian subdivision such as US-CA, a group %v, %q or %q)", code, groupCodes(), RegionAny, RegionUnknown)
}

// RegionCodes returns, sorted, every code CheckRegionCode accepts: the OpenAPI document states
// them as the enum of a regional rule's regions.
func RegionCodes() []string {
	out := []string{RegionAny, RegionUnknown}
	for c := range Laws.countries {
		out = append(out, c)
	}
	for c := range Laws.subdivisions {
		out = append(out, c)
	}
	for c := range Laws.Members {
		out = append(out, c)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func groupCodes() []string {
	out := make([]string, len(Laws.groups))
	for i, g := range Laws.groups {
		out[i] = g.Code
	}
	return out
}

// KnownLocation reports whether loc names a country of ISO 3166-1.
func KnownLocation(loc Location) bool { return Laws.countries[loc.Country] }
