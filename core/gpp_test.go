package core_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/gpp"
	"github.com/consentd/consentd/core/tcf"
)

// TestGPPFor: the sections a visitor's __gpp writes follow the visitor's rule: none with GPP off;
// usnat and the state's own section under a US opt-out rule, the state's applying unless the site
// is MSPA-covered (National Approach: usnat); tcfeuv2 where the TCF applies; none elsewhere.
func TestGPPFor(t *testing.T) {
	m := newTCFCore(t, &gvlLists{gvl: fixtureGVL(t)}, tcf.TCFDeployment{CMPID: 300, CMPVersion: 2})
	org, s := mustSite(t, m)
	gppOf := func(country, region string) *gpp.GPPConfig {
		t.Helper()
		cfg, err := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{Country: country, Region: region})
		if err != nil {
			t.Fatal(err)
		}
		return cfg.GPP
	}
	rules := []banner.RegionRuleInput{
		{Regions: []string{"EU", "EEA", "GB", "CH"}, DefaultBehavior: banner.BehaviorOptIn},
		{Regions: []string{"US"}, DefaultBehavior: banner.BehaviorOptOut},
		{Regions: []string{"*"}, DefaultBehavior: banner.BehaviorNoBanner},
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{RegionRules: &rules, TCF: &tcf.TCFSettings{Enabled: true, VendorIDs: []int{755}}}); err != nil {
		t.Fatal(err)
	}
	if g := gppOf("US", "US-CA"); g != nil {
		t.Fatalf("GPP off: %+v, want none", g)
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{GPP: &gpp.GPPSettings{Enabled: true, MSPAMode: "opt_out"}}); core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), "gpp.mspaMode") {
		t.Fatalf("an unknown MSPA mode: %v, want invalid naming gpp.mspaMode", err)
	}
	b, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{GPP: &gpp.GPPSettings{Enabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	if b.GPP.MSPAMode != gpp.MSPAModeOptOut {
		t.Fatalf("default MSPA mode %q, want opt-out", b.GPP.MSPAMode)
	}
	ids := func(g *gpp.GPPConfig) string {
		if g == nil {
			return "none"
		}
		var out []string
		for _, s := range g.Sections {
			out = append(out, s.API)
		}
		return strings.Join(out, ",") + " applicable " + fmtInts(g.Applicable)
	}
	for _, c := range []struct{ country, region, want string }{
		{"US", "US-CA", "usnat,usca applicable [8]"},
		{"US", "US-VA", "usnat,usva applicable [9]"},
		{"US", "US-CO", "usnat,usco applicable [10]"},
		{"US", "US-UT", "usnat,usut applicable [11]"},
		{"US", "US-CT", "usnat,usct applicable [12]"},
		{"US", "US-FL", "usnat,usfl applicable [13]"},
		{"US", "US-MT", "usnat,usmt applicable [14]"},
		{"US", "US-OR", "usnat,usor applicable [15]"},
		{"US", "US-TX", "usnat,ustx applicable [16]"},
		{"US", "US-DE", "usnat,usde applicable [17]"},
		{"US", "US-IA", "usnat,usia applicable [18]"},
		{"US", "US-NE", "usnat,usne applicable [19]"},
		{"US", "US-NH", "usnat,usnh applicable [20]"},
		{"US", "US-NJ", "usnat,usnj applicable [21]"},
		{"US", "US-TN", "usnat,ustn applicable [22]"},
		{"US", "US-MN", "usnat,usmn applicable [23]"},
		{"US", "US-MD", "usnat,usmd applicable [24]"},
		{"US", "US-IN", "usnat,usin applicable [25]"},
		{"US", "US-KY", "usnat,usky applicable [26]"},
		{"US", "US-RI", "usnat,usri applicable [27]"},
		{"US", "US-WA", "usnat applicable [7]"},
		{"US", "", "usnat applicable [7]"},
		{"FR", "", "tcfeuv2 applicable [2]"},
		{"JP", "", "none"},
	} {
		if got := ids(gppOf(c.country, c.region)); got != c.want {
			t.Errorf("visitor from %s %s: %s, want %s", c.country, c.region, got, c.want)
		}
	}
	if g := gppOf("US", "US-CA"); g.CMPID != 300 {
		t.Errorf("cmpId %d, want the deployment's 300", g.CMPID)
	}
	// The approach: national writes usnat alone, state the state's section alone (usnat where
	// the state has none); an unknown approach is refused naming gpp.approach.
	for _, c := range []struct{ approach, region, want string }{
		{gpp.ApproachNational, "US-KY", "usnat applicable [7]"},
		{gpp.ApproachState, "US-KY", "usky applicable [26]"},
		{gpp.ApproachState, "US-WA", "usnat applicable [7]"},
	} {
		if _, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{GPP: &gpp.GPPSettings{Enabled: true, Approach: c.approach}}); err != nil {
			t.Fatal(err)
		}
		if got := ids(gppOf("US", c.region)); got != c.want {
			t.Errorf("approach %s, visitor from %s: %s, want %s", c.approach, c.region, got, c.want)
		}
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{GPP: &gpp.GPPSettings{Enabled: true, Approach: "federal"}}); core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), "gpp.approach") {
		t.Fatalf("an unknown approach: %v, want invalid naming gpp.approach", err)
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{GPP: &gpp.GPPSettings{Enabled: true, MSPACoveredTransaction: true, MSPAMode: gpp.MSPAModeServiceProvider}}); err != nil {
		t.Fatal(err)
	}
	g := gppOf("US", "US-CA")
	if got := ids(g); got != "usnat,usca applicable [7]" {
		t.Errorf("MSPA-covered site, California: %s, want usnat applying", got)
	}
	// usnat's fields: the mapping's notices provided, opt-outs not opted out (opted out after an
	// opt-out), the MSPA fields from the settings, everything else not applicable.
	want := map[string][2]int{
		"SharingNotice": {1, 1}, "SaleOptOutNotice": {1, 1}, "SharingOptOutNotice": {1, 1}, "TargetedAdvertisingOptOutNotice": {1, 1},
		"SaleOptOut": {2, 1}, "SharingOptOut": {2, 1}, "TargetedAdvertisingOptOut": {2, 1},
		"MspaCoveredTransaction": {1, 1}, "MspaOptOutOptionMode": {2, 2}, "MspaServiceProviderMode": {1, 1},
	}
	nat := g.Sections[0]
	if nat.ID != 7 || nat.Version != 2 || !nat.GPCSegment || len(nat.Fields) != 15 {
		t.Fatalf("usnat = %+v", nat)
	}
	bits := 6
	for _, f := range nat.Fields {
		n := max(f.Count, 1)
		bits += f.Bits * n
		before, after := f.Value, f.Value
		if f.OptOut != nil {
			after = *f.OptOut
		}
		if got, w := [2]int{before, after}, want[f.Name]; got != w {
			t.Errorf("usnat %s: before/after opt-out %v, want %v", f.Name, got, w)
		}
	}
	if bits != 6+9*2+16*2+3*2+4*2 { // Version, 9 Int(2), N-Bitfield(2,16), N-Bitfield(2,3), 4 Int(2)
		t.Errorf("usnat core segment is %d bits", bits)
	}
	if !reflect.DeepEqual(fieldNames(g.Sections[1]), []string{"SaleOptOutNotice", "SharingOptOutNotice", "SensitiveDataLimitUseNotice", "SaleOptOut", "SharingOptOut", "SensitiveDataProcessing", "KnownChildSensitiveDataConsents", "PersonalDataConsents", "MspaCoveredTransaction", "MspaOptOutOptionMode", "MspaServiceProviderMode"}) {
		t.Errorf("usca fields %v", fieldNames(g.Sections[1]))
	}
}

func fmtInts(v []int) string {
	var out []string
	for _, i := range v {
		out = append(out, strconv.Itoa(i))
	}
	return "[" + strings.Join(out, " ") + "]"
}

func fieldNames(s gpp.GPPSection) []string {
	var out []string
	for _, f := range s.Fields {
		out = append(out, f.Name)
	}
	return out
}

// gppTable is docs/gpp.md's mapping table, rendered from core.GPPFieldTable.
func gppTable() string {
	var b strings.Builder
	b.WriteString("| GPP field | before a choice, or sale and sharing kept | after an opt-out of sale and sharing | consentd's decision behind it |\n|---|---|---|---|\n")
	name := map[int]string{0: "0 not applicable", 1: "1", 2: "2"}
	for _, m := range gpp.GPPFieldTable() {
		before, after := name[m.Before], name[m.OptedOut]
		if strings.HasSuffix(m.Field, "Notice") {
			before += " (provided)"
		} else {
			before += " (did not opt out)"
			after += " (opted out)"
		}
		if m.OptedOut < 0 {
			after = "unchanged"
		}
		b.WriteString("| `" + m.Field + "` | " + before + " | " + after + " | " + m.Why + " |\n")
	}
	return b.String()
}

// gppStateTable is docs/gpp.md's table of the states' sections, rendered from the law table
// (core/regions.json gppSection) and core/gpp's sections.
func gppStateTable() string {
	var b strings.Builder
	b.WriteString("| state | section | ID | GPC subsection |\n|---|---|---|---|\n")
	for _, l := range core.USStateLaws() {
		id, ok := gpp.StateSection(l.Region)
		if !ok {
			b.WriteString("| `" + l.Region + "` | none: `usnat` | 7 | yes |\n")
			continue
		}
		gpc := "no"
		if gpp.GppUSSection(id, gpp.GPPSettings{}).GPCSegment {
			gpc = "yes"
		}
		b.WriteString("| `" + l.Region + "` | `" + l.GPPSection + "` | " + strconv.Itoa(id) + " | " + gpc + " |\n")
	}
	return b.String()
}

// TestGPPDocumented: docs/gpp.md shows the mapping as core has it (the test prints the table to
// paste when they differ).
func TestGPPDocumented(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "docs", "gpp.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := gppTable(); !strings.Contains(string(b), want) {
		t.Errorf("docs/gpp.md's mapping table differs from core.GPPFieldTable; it should read:\n%s", want)
	}
	if want := gppStateTable(); !strings.Contains(string(b), want) {
		t.Errorf("docs/gpp.md's table of state sections differs from core/regions.json and core/gpp; it should read:\n%s", want)
	}
	for _, id := range append(gpp.USSectionIDs(), gpp.GPPSectionTCFEUv2) {
		if api := gpp.GPPSectionAPI(id); !strings.Contains(string(b), "`"+api+"`") {
			t.Errorf("docs/gpp.md does not name the section %s", api)
		}
	}
}

// TestConsentCanonicalGPP: a record with a GPP string seals it after the v3 fields (present,
// possibly empty) under consentd-record-v4; one without keeps its line.
func TestConsentCanonicalGPP(t *testing.T) {
	r := &consent.ConsentRecord{ID: "i", SiteID: "s", CategoriesConsented: map[string]bool{}, ConsentVersion: 1}
	v1 := consent.ConsentCanonical(r)
	r.GPPString = "DBABL~CVQqAAAAAABY.Q"
	v4 := consent.ConsentCanonical(r)
	if v4 != consent.ConsentCanonicalVersionGPP+strings.TrimPrefix(v1, consent.ConsentCanonicalVersion)+"\t\t\t0\t\t\tDBABL~CVQqAAAAAABY.Q" {
		t.Fatalf("v1 %q\nv4 %q", v1, v4)
	}
	r.Region, r.RegionRule = "US-CA", "regionRules[1]"
	if got := consent.ConsentCanonical(r); !strings.HasSuffix(got, "\tUS-CA\tregionRules[1]\t0\t\t\tDBABL~CVQqAAAAAABY.Q") || strings.Count(got, "\t") != 20 {
		t.Fatalf("v4 with a region: %q", got)
	}
	r.TCString, r.GVLVersion = "CQ.IF", 17
	if got := consent.ConsentCanonical(r); !strings.HasSuffix(got, "\tUS-CA\tregionRules[1]\t17\tCQ.IF\t\tDBABL~CVQqAAAAAABY.Q") || !strings.HasPrefix(got, consent.ConsentCanonicalVersionGPP+"\t") {
		t.Fatalf("v4 with TCF fields: %q", got)
	}
}

// TestCheckGPPString: a consent POST's GPP string is refused, naming gppString, on a site with
// GPP off, with characters outside the alphabet, without a version 1 header, or with a header
// listing another number of sections than the string has.
func TestCheckGPPString(t *testing.T) {
	on := &banner.Banner{GPP: gpp.GPPSettings{Enabled: true}}
	for _, s := range []string{"", "DBABL~CVQqAAAAAABY.Q", "DBACLY~CVQqAAAAAABY.Q~BUoAAABY.Q", "DBABMA~CPSG_8APSG_8ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.IDKQA4AAgAKAGQAygAAA.YAAAAAAAAAAA", "DBABjw~CPSG_8A~1YNN"} {
		if err := banner.CheckGPPString(on, s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"DBABL~CVQq AAAA", "CVQqAAAAAABY.Q", "DBABL", "DBABL~A~B", "DBACLY~CVQqAAAAAABY.Q", "DBABL~", "AAAA~B"} {
		if err := banner.CheckGPPString(on, s); core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), "gppString") {
			t.Errorf("%q: %v, want invalid naming gppString", s, err)
		}
	}
	if err := banner.CheckGPPString(&banner.Banner{}, "DBABL~CVQqAAAAAABY.Q"); err == nil || !strings.Contains(err.Error(), "not enabled") {
		t.Errorf("GPP off: %v", err)
	}
}
