package core_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/language"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	bannerpkg "github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/i18n"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/library"
)

// TestRegionData checks regions.json: every country code is one CLDR (golang.org/x/text) knows
// as a country, the groups have their members, and each US state's entry is complete, its
// dates real and its state in the group US-STATE-LAWS.
func TestRegionData(t *testing.T) {
	t.Parallel()
	n := 0
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			code := string([]rune{a, b})
			if !core.IsCountry(code) {
				continue
			}
			n++
			if r, err := language.ParseRegion(code); err != nil || !r.IsCountry() || r.String() != code {
				t.Errorf("%s is in regions.json's countries but is no country for CLDR", code)
			}
		}
	}
	if n != 249 {
		t.Errorf("%d countries, want ISO 3166-1's 249", n)
	}
	groups := map[string][]string{}
	for _, g := range core.RegionGroups() {
		groups[g.Code] = g.Regions
		if g.Name == "" || g.Source == "" {
			t.Errorf("group %s has no name or source", g.Code)
		}
	}
	if len(groups[core.RegionEU]) != 27 || len(groups[core.RegionEEA]) != 30 {
		t.Errorf("EU has %d members, EEA %d: want 27 and 30", len(groups[core.RegionEU]), len(groups[core.RegionEEA]))
	}
	for _, c := range groups[core.RegionEU] {
		if !slices.Contains(groups[core.RegionEEA], c) {
			t.Errorf("%s is in the EU but not the EEA", c)
		}
	}
	gdpr := 0
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			if core.InGDPRRegion(string([]rune{a, b})) {
				gdpr++
			}
		}
	}
	if gdpr != 32 || !core.InGDPRRegion("GB") || !core.InGDPRRegion("CH") || !core.InGDPRRegion("NO") || core.InGDPRRegion("US") {
		t.Errorf("%d countries are gdpr, want the EEA's 30, GB and CH", gdpr)
	}
	laws := core.USStateLaws()
	if len(laws) < 19 {
		t.Errorf("%d US state laws, want at least the 19 comprehensive ones in force on 2026-01-01", len(laws))
	}
	var inGroup []string
	for _, l := range laws {
		inGroup = append(inGroup, l.Region)
		if err := core.CheckRegionCode("r", l.Region); err != nil || !strings.HasPrefix(l.Region, "US-") {
			t.Errorf("%s: not a US subdivision", l.Region)
		}
		if l.Law == "" || l.Citation == "" || len(l.Sources) == 0 {
			t.Errorf("%s: law, citation and sources are required", l.Region)
		}
		eff, err := time.Parse(time.DateOnly, l.Effective)
		if err != nil || eff.Year() < 2020 || eff.After(time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("%s: effective %q", l.Region, l.Effective)
		}
		if from, err := time.Parse(time.DateOnly, l.GPCRequiredFrom); l.GPCRequired && (err != nil || from.Before(eff)) {
			t.Errorf("%s: GPC required from %q, before the law or no date", l.Region, l.GPCRequiredFrom)
		} else if !l.GPCRequired && l.GPCRequiredFrom != "" {
			t.Errorf("%s: GPC not required but from %q", l.Region, l.GPCRequiredFrom)
		}
		if got, ok := core.USStateLawOf(l.Region); !ok || got.Law != l.Law {
			t.Errorf("USStateLawOf(%s) = %+v", l.Region, got)
		}
	}
	if !slices.Equal(groups[core.RegionUSStateLaws], inGroup) {
		t.Errorf("US-STATE-LAWS = %v, want the states with a law %v", groups[core.RegionUSStateLaws], inGroup)
	}
	for _, s := range []string{"US-CA", "US-CO", "US-CT", "US-TX", "US-OR", "US-MT", "US-NJ", "US-MD", "US-MN"} {
		if l, _ := core.USStateLawOf(s); !l.GPCRequired {
			t.Errorf("%s requires a universal opt-out (GPC) to be honoured", s)
		}
	}
	for _, s := range []string{"US-VA", "US-UT", "US-IA", "US-TN"} {
		if l, _ := core.USStateLawOf(s); l.GPCRequired {
			t.Errorf("%s's law has no universal opt-out requirement", s)
		}
	}
}

// TestCheckRegionCode: the codes a regional rule may name, and the message naming the field.
func TestCheckRegionCode(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"FR", "US", "GB", "US-CA", "US-DC", "US-PR", "CA-QC", "CA-YT", "EU", "EEA", "US-STATE-LAWS", "*", "unknown"} {
		if err := core.CheckRegionCode("regions[0]", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"XX", "ZZ", "UK", "fr", "", "US-XX", "US-", "CA-ZZ", "EUR", "**", "Unknown", "US-CA "} {
		err := core.CheckRegionCode("regionRules[1].regions[0]", bad)
		if core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), `regionRules[1].regions[0]: unknown region code "`+bad+`"`) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestRegionCodeLists: Countries and Subdivisions list exactly the codes a rule may name, so
// that the console's choice of a visitor's place offers each one.
func TestRegionCodeLists(t *testing.T) {
	t.Parallel()
	cs, subs := core.Countries(), core.Subdivisions()
	if len(cs) != 249 || !slices.IsSorted(cs) || !slices.Contains(cs, "FR") || slices.Contains(cs, "EU") {
		t.Errorf("Countries: %d codes, sorted %v", len(cs), slices.IsSorted(cs))
	}
	if len(subs) != 57+13 || !slices.IsSorted(subs) || !slices.Contains(subs, "US-CA") || !slices.Contains(subs, "CA-QC") {
		t.Errorf("Subdivisions: %d codes %v", len(subs), subs)
	}
	for _, c := range append(cs, subs...) {
		if err := core.CheckRegionCode("regions[0]", c); err != nil {
			t.Error(err)
		}
	}
	for _, s := range subs {
		if core.SubdivisionName(s) == "" {
			t.Errorf("regions.json: subdivisionNames lacks %s", s)
		}
	}
	if n := core.SubdivisionName("US-CA"); n != "California" || core.SubdivisionName("FR") != "" {
		t.Errorf("SubdivisionName: US-CA %q", n)
	}
	if loc := core.LocationOf("", subs[0]); loc.Region != subs[0] {
		t.Errorf("LocationOf(%q) = %+v", subs[0], loc)
	}
}

// issueRules are the rules of #26's browser test.
func issueRules() []bannerpkg.RegionRule {
	return []bannerpkg.RegionRule{
		{Regions: []string{"EU", "EEA", "GB", "CH"}, DefaultBehavior: bannerpkg.BehaviorOptIn, RejectOnFirstLayer: true},
		{Regions: []string{"US-CA"}, DefaultBehavior: bannerpkg.BehaviorOptOut, HonorGPC: true, DoNotSellLink: true},
		{Regions: []string{"*"}, DefaultBehavior: bannerpkg.BehaviorNoBanner},
	}
}

// TestVisitorRule: which rule applies where, and the jurisdiction recorded: the law of the
// visitor's place whatever the rule makes the banner do (JurisdictionOf).
func TestVisitorRule(t *testing.T) {
	t.Parallel()
	loc := func(c, r string) core.Location { return core.Location{Country: c, Region: r} }
	issue := &bannerpkg.Banner{DefaultBehavior: bannerpkg.BehaviorOptIn, RegionRules: issueRules()}
	specific := &bannerpkg.Banner{DefaultBehavior: bannerpkg.BehaviorOptIn, RegionRules: []bannerpkg.RegionRule{
		{Regions: []string{"*"}, DefaultBehavior: bannerpkg.BehaviorNoBanner},
		{Regions: []string{"US-STATE-LAWS"}, DefaultBehavior: bannerpkg.BehaviorOptOut},
		{Regions: []string{"US"}, DefaultBehavior: bannerpkg.BehaviorNoBanner},
		{Regions: []string{"US-TX", "CA-QC"}, DefaultBehavior: bannerpkg.BehaviorOptIn},
		{Regions: []string{"unknown"}, DefaultBehavior: bannerpkg.BehaviorOptIn},
		{Regions: []string{"EEA"}, DefaultBehavior: bannerpkg.BehaviorOptOut},
	}}
	none := &bannerpkg.Banner{DefaultBehavior: bannerpkg.BehaviorOptIn, RegionRules: []bannerpkg.RegionRule{}}
	cases := []struct {
		name       string
		b          *bannerpkg.Banner
		loc        core.Location
		rule, juri string
	}{
		{"France, opt-in in Europe", issue, loc("FR", ""), "regionRules[0]", "gdpr"},
		{"Germany with a region", issue, loc("DE", "DE-BY"), "regionRules[0]", "gdpr"},
		{"United Kingdom", issue, loc("GB", ""), "regionRules[0]", "gdpr"},
		{"Norway by the EEA", issue, loc("NO", ""), "regionRules[0]", "gdpr"},
		{"California", issue, loc("US", "US-CA"), "regionRules[1]", "ccpa"},
		{"Texas: the rest", issue, loc("US", "US-TX"), "regionRules[2]", "ccpa"},
		{"US, state unknown", issue, loc("US", ""), "regionRules[2]", "ccpa"},
		{"Japan", issue, loc("JP", ""), "regionRules[2]", "none"},
		{"unknown: no rule, the banner's default", issue, loc("", ""), "defaultBehavior", "none"},
		{"a CDN's XX is unknown", issue, loc("XX", ""), "defaultBehavior", "none"},
		{"subdivision before country and group", specific, loc("US", "US-TX"), "regionRules[3]", "ccpa"},
		{"Canadian province", specific, loc("CA", "CA-QC"), "regionRules[3]", "none"},
		{"country before group", specific, loc("US", "US-CO"), "regionRules[2]", "ccpa"},
		{"group before *", specific, loc("NO", ""), "regionRules[5]", "gdpr"},
		{"* for the rest", specific, loc("JP", ""), "regionRules[0]", "none"},
		{"unknown rule, * not", specific, loc("", ""), "regionRules[4]", "none"},
		{"Tor's T1 is unknown", specific, loc("T1", ""), "regionRules[4]", "none"},
		{"no rules: the country's jurisdiction", none, loc("US", "US-CO"), "", "ccpa"},
		{"no rules, France", none, loc("FR", ""), "", "gdpr"},
	}
	for _, c := range cases {
		got := c.b.VisitorRule(c.loc)
		if got.Ref() != c.rule || got.Jurisdiction != c.juri || got.Location != c.loc {
			t.Errorf("%s: %+v, want rule %q jurisdiction %q", c.name, got, c.rule, c.juri)
		}
	}
	// The first of two rules at the same level applies.
	twice := &bannerpkg.Banner{RegionRules: []bannerpkg.RegionRule{
		{Regions: []string{"FR"}, DefaultBehavior: bannerpkg.BehaviorNoBanner}, {Regions: []string{"FR"}, DefaultBehavior: bannerpkg.BehaviorOptIn}}}
	if got := twice.VisitorRule(loc("FR", "")); got.Ref() != "regionRules[0]" || got.Rule != &twice.RegionRules[0] || got.Jurisdiction != "gdpr" {
		t.Errorf("two rules naming France: %+v", got)
	}
}

// TestDecidePolicyRegionRules: the rule that applies decides the behaviour, GPC and the opt-out
// of sale, whatever the banner's defaultBehavior.
func TestDecidePolicyRegionRules(t *testing.T) {
	t.Parallel()
	std := policyCats(library.CategoryEssential, library.CategoryStatistics, library.CategoryMarketing)
	b := &bannerpkg.Banner{DefaultBehavior: bannerpkg.BehaviorOptIn, RegionRules: issueRules()}
	ps := bannerpkg.DecidePolicies(b, std)
	at := func(c, r string) *bannerpkg.Policy {
		vr := b.VisitorRule(core.Location{Country: c, Region: r})
		p := bannerpkg.DecidePolicy(b, std, vr)
		if cached := ps.For(vr); !equalJSON(t, p, cached) {
			t.Errorf("%s %s: the cached policy differs from the decided one", c, r)
		}
		return p
	}
	fr := at("FR", "")
	if !fr.Ask || fr.Categories["marketing"].Initial || fr.GPC.Honored || fr.DoNotSellLink || len(fr.DoNotSellWithout) != 0 || !fr.RejectOnFirstLayer {
		t.Errorf("France: %+v", fr)
	}
	ca := at("US", "US-CA")
	if !ca.Ask || !ca.Categories["marketing"].Initial || !ca.GPC.Honored || !slices.Equal(ca.GPC.Off, []string{"marketing"}) ||
		!ca.DoNotSellLink || !slices.Equal(ca.DoNotSellWithout, []string{"marketing"}) || ca.RejectOnFirstLayer {
		t.Errorf("California (its rule without rejectOnFirstLayer): %+v", ca)
	}
	if got := ca.Apply(map[string]bool{"statistics": true, "marketing": true}, true); got["marketing"] || !got["statistics"] || !ca.DoNotSell(got, true) {
		t.Errorf("California with GPC: %v", got)
	}
	jp := at("JP", "")
	if jp.Ask || !jp.Categories["statistics"].Initial || jp.GPC.Honored {
		t.Errorf("Japan: %+v", jp)
	}
	unknown := at("", "")
	if !unknown.Ask || unknown.Categories["statistics"].Initial || unknown.GPC.Honored {
		t.Errorf("unknown location (banner default opt_in): %+v", unknown)
	}
	// A US opt-out rule without GPC honoured: the rule says so, not the jurisdiction.
	noGPC := &bannerpkg.Banner{DefaultBehavior: bannerpkg.BehaviorOptIn, RegionRules: []bannerpkg.RegionRule{{Regions: []string{"US"}, DefaultBehavior: bannerpkg.BehaviorOptOut}}}
	vr := noGPC.VisitorRule(core.Location{Country: "US", Region: "US-CO"})
	if p := bannerpkg.DecidePolicy(noGPC, std, vr); vr.Jurisdiction != "ccpa" || p.GPC.Honored || len(p.GPC.Off) != 0 || p.DoNotSellLink {
		t.Errorf("US opt-out without GPC: %+v %+v", vr, p)
	}
	// Without a matching rule, the first layer shows reject.
	if p := bannerpkg.DecidePolicy(noGPC, std, noGPC.VisitorRule(core.Location{Country: "FR"})); !p.RejectOnFirstLayer {
		t.Errorf("no rule: %+v", p)
	}
}

// TestRegionPresets: every preset is valid as a PATCH, and decides as its name says.
func TestRegionPresets(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	presets := bannerpkg.RegionPresets()
	if len(presets) != 5 {
		t.Fatalf("%d presets, want 5", len(presets))
	}
	for _, p := range presets {
		in := make([]bannerpkg.RegionRuleInput, len(p.RegionRules))
		for i, r := range p.RegionRules {
			in[i] = bannerpkg.RegionRuleInput{Regions: r.Regions, DefaultBehavior: r.DefaultBehavior,
				HonorGPC: ptr(r.HonorGPC), DoNotSellLink: ptr(r.DoNotSellLink), RejectOnFirstLayer: ptr(r.RejectOnFirstLayer)}
		}
		b, err := m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{RegionRules: &in})
		if err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		if !equalJSON(t, b.RegionRules, p.RegionRules) {
			t.Errorf("%s: stored %+v", p.ID, b.RegionRules)
		}
	}
	want := map[string]map[core.Location]string{
		bannerpkg.PresetGDPRUSLaws: {
			{Country: "FR"}: "gdpr/opt_in", {Country: "CH"}: "gdpr/opt_in", {Country: "US", Region: "US-CO"}: "ccpa/opt_out",
			{Country: "US"}: "ccpa/opt_out", {Country: "JP"}: "none/no_banner", {}: "none/opt_in",
		},
		bannerpkg.PresetOptInEverywhere: {
			{Country: "FR"}: "gdpr/opt_in", {Country: "US", Region: "US-CA"}: "ccpa/opt_in", {Country: "JP"}: "none/opt_in", {}: "none/opt_in",
		},
		bannerpkg.PresetQuebec: {
			{Country: "CA", Region: "CA-QC"}: "none/opt_in", {Country: "CA", Region: "CA-ON"}: "none/no_banner", {Country: "FR"}: "gdpr/no_banner",
		},
		bannerpkg.PresetBrazil: {
			{Country: "BR"}: "none/opt_in", {Country: "AR"}: "none/no_banner",
		},
		bannerpkg.PresetWorldwide: {
			{Country: "FR"}: "gdpr/opt_in", {Country: "CA", Region: "CA-QC"}: "none/opt_in", {Country: "BR"}: "none/opt_in",
			{Country: "US", Region: "US-KY"}: "ccpa/opt_out", {Country: "JP"}: "none/no_banner", {}: "none/opt_in",
		},
	}
	for _, p := range presets {
		b := &bannerpkg.Banner{DefaultBehavior: bannerpkg.BehaviorNoBanner, RegionRules: p.RegionRules}
		for loc, w := range want[p.ID] {
			vr := b.VisitorRule(loc)
			behavior := b.DefaultBehavior
			if vr.Rule != nil {
				if vr.Rule != &b.RegionRules[vr.Index] {
					t.Errorf("%s at %+v: rule %d is not the banner's", p.ID, loc, vr.Index)
				}
				behavior = vr.Rule.DefaultBehavior
			}
			if got := vr.Jurisdiction + "/" + behavior; got != w {
				t.Errorf("%s at %+v: %s, want %s", p.ID, loc, got, w)
			}
		}
	}
}

// TestPatchBannerRegionRules: invalid rules are validation errors naming the field; the
// booleans left out take their defaults; an empty list clears the rules.
func TestPatchBannerRegionRules(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	rules := func(rs ...bannerpkg.RegionRuleInput) *[]bannerpkg.RegionRuleInput { return &rs }
	ok := bannerpkg.RegionRuleInput{Regions: []string{"EU"}, DefaultBehavior: bannerpkg.BehaviorOptIn}
	many := make([]string, bannerpkg.MaxRuleRegions+1)
	for i := range many {
		many[i] = "FR"
	}
	tooMany := make([]bannerpkg.RegionRuleInput, bannerpkg.MaxRegionRules+1)
	for i := range tooMany {
		tooMany[i] = ok
	}
	for want, p := range map[string]*[]bannerpkg.RegionRuleInput{
		`regionRules[1].regions[0]: unknown region code "XX"`:    rules(ok, bannerpkg.RegionRuleInput{Regions: []string{"XX"}, DefaultBehavior: bannerpkg.BehaviorOptIn}),
		`regionRules[0].regions[1]: unknown region code "US-ZZ"`: rules(bannerpkg.RegionRuleInput{Regions: []string{"US", "US-ZZ"}, DefaultBehavior: bannerpkg.BehaviorOptIn}),
		`regionRules[0].regions: must list 1 to`:                 rules(bannerpkg.RegionRuleInput{Regions: []string{}, DefaultBehavior: bannerpkg.BehaviorOptIn}),
		`regionRules[1].regions: must list 1 to`:                 rules(ok, bannerpkg.RegionRuleInput{Regions: many, DefaultBehavior: bannerpkg.BehaviorOptIn}),
		`regionRules[0].defaultBehavior: must be one of`:         rules(bannerpkg.RegionRuleInput{Regions: []string{"FR"}, DefaultBehavior: "gdpr"}),
		`regionRules: must have at most`:                         &tooMany,
	} {
		_, err := m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{RegionRules: p})
		if core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), ": "+want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
	b, err := m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{RegionRules: rules(
		bannerpkg.RegionRuleInput{Regions: []string{" US-CA ", "US-CA", "US-CO"}, DefaultBehavior: bannerpkg.BehaviorOptOut},
		bannerpkg.RegionRuleInput{Regions: []string{"*"}, DefaultBehavior: bannerpkg.BehaviorNoBanner, HonorGPC: ptr(false), RejectOnFirstLayer: ptr(false)},
	)})
	if err != nil {
		t.Fatal(err)
	}
	want := []bannerpkg.RegionRule{
		{Regions: []string{"US-CA", "US-CO"}, DefaultBehavior: bannerpkg.BehaviorOptOut, HonorGPC: true, DoNotSellLink: true, RejectOnFirstLayer: true},
		{Regions: []string{"*"}, DefaultBehavior: bannerpkg.BehaviorNoBanner},
	}
	if !equalJSON(t, b.RegionRules, want) {
		t.Errorf("stored %+v, want %+v", b.RegionRules, want)
	}
	// A patch without regionRules keeps them; an empty list clears them.
	if b, err = m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{Template: ptr("modal")}); err != nil || len(b.RegionRules) != 2 {
		t.Fatalf("untouched: %v %+v", err, b.RegionRules)
	}
	if b, err = m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{RegionRules: rules()}); err != nil || b.RegionRules == nil || len(b.RegionRules) != 0 {
		t.Fatalf("cleared: %v %+v", err, b.RegionRules)
	}
}

// TestRecordConsentRegion: the record keeps the region and the rule that applied, in its
// hash; the configuration says the same; the snapshot holds the rules.
func TestRecordConsentRegion(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	in := []bannerpkg.RegionRuleInput{
		{Regions: []string{"EU", "EEA", "GB", "CH"}, DefaultBehavior: bannerpkg.BehaviorOptIn},
		{Regions: []string{"US-STATE-LAWS"}, DefaultBehavior: bannerpkg.BehaviorOptOut},
		{Regions: []string{"*"}, DefaultBehavior: bannerpkg.BehaviorNoBanner},
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{RegionRules: &in}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		country, region, rule, juri string
		gpc, dns                    bool
	}{
		{"FR", "", "regionRules[0]", "gdpr", false, false},
		{"US", "US-CO", "regionRules[1]", "ccpa", true, true},
		{"US", "US-WY", "regionRules[2]", "ccpa", true, true}, // honorGpc defaults to true
		{"JP", "", "regionRules[2]", "none", false, false},
		{"", "", "defaultBehavior", "none", false, false},
	}
	for _, c := range cases {
		cfg, err := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{Country: c.country, Region: c.region})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Rule != c.rule || cfg.Region != c.region || cfg.Jurisdiction != c.juri {
			t.Errorf("%s %s: config rule %q region %q jurisdiction %q", c.country, c.region, cfg.Rule, cfg.Region, cfg.Jurisdiction)
		}
		r, err := m.PublicBanner.RecordConsent(ctx, s.ProjectKey, consent.ConsentInput{Categories: map[string]bool{"statistics": true, "marketing": true},
			ConsentVersion: 1, Country: c.country, Region: strings.TrimPrefix(c.region, c.country+"-"), GPC: c.gpc})
		if err != nil {
			t.Fatal(err)
		}
		if r.Region != c.region || r.RegionRule != c.rule || r.Jurisdiction != c.juri || r.DoNotSell != c.dns || r.CategoriesConsented["marketing"] == c.dns {
			t.Errorf("%s %s: record %+v", c.country, c.region, r)
		}
		if r.RecordHash != consent.ConsentRecordHash(r) || !strings.HasPrefix(consent.ConsentCanonical(r), consent.ConsentCanonicalVersionRegion+"\t") ||
			!strings.HasSuffix(consent.ConsentCanonical(r), "\t"+c.region+"\t"+c.rule) {
			t.Errorf("%s %s: the region and rule are not sealed: %q", c.country, c.region, consent.ConsentCanonical(r))
		}
		snap, err := m.ConsentLog.ConsentSnapshot(ctx, org, s.ID, r.SnapshotHash)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(snap.Content), `"regionRules":[{"regions":["EU","EEA","GB","CH"],"defaultBehavior":"opt_in"`) {
			t.Errorf("the snapshot lacks the rules: %s", snap.Content)
		}
	}
}

// equalJSON reports whether a and b marshal alike.
func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

// TestConsentCanonicalRegion: a record without region or rule keeps the v1 line (old records
// verify as they did); one with either is sealed with both, and emptying them breaks its hash.
func TestConsentCanonicalRegion(t *testing.T) {
	t.Parallel()
	r := &consent.ConsentRecord{ID: "id1", SiteID: "site1", CreatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), VisitorHash: "vh",
		IPCountry: "US", Jurisdiction: "ccpa", Action: "custom", CategoriesConsented: map[string]bool{"marketing": false}, ConsentVersion: 1}
	v1 := consent.ConsentCanonical(r)
	if !strings.HasPrefix(v1, consent.ConsentCanonicalVersion+"\t") || strings.Count(v1, "\t") != 14 {
		t.Fatalf("v1 line: %q", v1)
	}
	r.Region, r.RegionRule = "US-CO", "regionRules[1]"
	v2 := consent.ConsentCanonical(r)
	if v2 != consent.ConsentCanonicalVersionRegion+strings.TrimPrefix(v1, consent.ConsentCanonicalVersion)+"\tUS-CO\tregionRules[1]" {
		t.Fatalf("v2 line: %q", v2)
	}
	sealed := consent.ConsentRecordHash(r)
	r.RegionRule = "regionRules[0]"
	if consent.ConsentRecordHash(r) == sealed {
		t.Error("changing the rule keeps the hash")
	}
	r.Region, r.RegionRule = "", ""
	if consent.ConsentRecordHash(r) == sealed {
		t.Error("emptying the region and rule keeps the hash")
	}
}

// TestComplianceRegionRules: with regional rules, a European country not under an opt-in rule
// is an error, a US state whose law requires GPC without it honoured an error, and no rule for
// an unknown location a warning; the presets pass all three; a banner without rules none.
func TestComplianceRegionRules(t *testing.T) {
	t.Parallel()
	lib := complianceCatalog(t)
	report := func(rules []bannerpkg.RegionRule) *scan.ComplianceReport {
		in := cleanInput()
		in.Banner.RegionRules = rules
		return scan.EvaluateCompliance(in, nil, "", lib, reportTime)
	}
	for _, rules := range [][]bannerpkg.RegionRule{nil, bannerpkg.RegionPresets()[0].RegionRules, bannerpkg.RegionPresets()[1].RegionRules} {
		r := report(rules)
		for _, id := range []string{"consent.region-europe-opt-in", "consent.region-us-gpc", "consent.region-unknown", "consent.opt-out-eu"} {
			if f := withRule(r, id); len(f) != 0 {
				t.Errorf("rules %v: %s: %+v", rules, id, f)
			}
		}
	}
	r := report([]bannerpkg.RegionRule{
		{Regions: []string{"EU"}, DefaultBehavior: bannerpkg.BehaviorOptIn, RejectOnFirstLayer: true},
		{Regions: []string{"US-CA"}, DefaultBehavior: bannerpkg.BehaviorOptOut, HonorGPC: true},
		{Regions: []string{"US-STATE-LAWS"}, DefaultBehavior: bannerpkg.BehaviorOptOut},
		{Regions: []string{"*"}, DefaultBehavior: bannerpkg.BehaviorNoBanner, HonorGPC: true},
	})
	// Europe outside the EU falls to *, no_banner.
	eu := withRule(r, "consent.region-europe-opt-in")
	if len(eu) != 1 || eu[0].Severity != scan.SeverityError || *eu[0].Evidence.Field != "banner.regionRules[3].defaultBehavior" ||
		!strings.Contains(eu[0].Detail, "CH, GB, IS, LI, NO") || strings.Contains(eu[0].Detail, "FR") {
		t.Errorf("Europe outside the EU under no_banner: %+v", eu)
	}
	us := withRule(r, "consent.region-us-gpc")
	if len(us) != 1 || us[0].Severity != scan.SeverityError || *us[0].Evidence.Field != "banner.regionRules[2].honorGpc" ||
		!strings.Contains(us[0].Detail, "US-CO") || !strings.Contains(us[0].Detail, "Colorado Privacy Act") ||
		strings.Contains(us[0].Detail, "US-CA") || strings.Contains(us[0].Detail, "US-VA") {
		t.Errorf("US states requiring GPC under a rule without it: %+v", us)
	}
	if u := withRule(r, "consent.region-unknown"); len(u) != 1 || u[0].Severity != scan.SeverityWarning {
		t.Errorf("no rule for an unknown location: %+v", u)
	}
	if r.Compliant {
		t.Error("a report with region errors is compliant")
	}
	// An opt-in rule for Europe without reject on its first layer.
	noReject := report([]bannerpkg.RegionRule{{Regions: []string{"EEA", "GB", "CH", "unknown"}, DefaultBehavior: bannerpkg.BehaviorOptIn, HonorGPC: true},
		{Regions: []string{"*"}, DefaultBehavior: bannerpkg.BehaviorOptIn, HonorGPC: true, RejectOnFirstLayer: true}})
	if f := withRule(noReject, "consent.region-europe-opt-in"); len(f) != 1 || *f[0].Evidence.Field != "banner.regionRules[0].rejectOnFirstLayer" ||
		!strings.Contains(f[0].Detail, "rejectOnFirstLayer is false") {
		t.Errorf("Europe without reject on the first layer: %+v", f)
	}
	// A requirement counts from its date: Oregon's from 2026-01-01.
	in := cleanInput()
	in.Banner.RegionRules = []bannerpkg.RegionRule{{Regions: []string{"US-OR"}, DefaultBehavior: bannerpkg.BehaviorOptOut}, {Regions: []string{"unknown", "*"}, DefaultBehavior: bannerpkg.BehaviorOptIn, HonorGPC: true}}
	before := scan.EvaluateCompliance(in, nil, "", lib, time.Date(2025, 12, 31, 12, 0, 0, 0, time.UTC))
	after := scan.EvaluateCompliance(in, nil, "", lib, reportTime)
	if len(withRule(before, "consent.region-us-gpc")) != 0 || len(withRule(after, "consent.region-us-gpc")) != 1 {
		t.Errorf("Oregon's GPC requirement before and after 2026-01-01: %+v / %+v", withRule(before, "consent.region-us-gpc"), withRule(after, "consent.region-us-gpc"))
	}
}

// BenchmarkVisitorRule: what resolving a visitor's rule costs per public request (the cached
// views index the rules once), with the first preset and with the most rules of the most
// regions a banner may have; "uncached" indexes them on each call, as Banner.VisitorRule does.
func BenchmarkVisitorRule(b *testing.B) {
	ca := core.Location{Country: "US", Region: "US-CA"}
	var codes []string
	for a := 'A'; a <= 'Z'; a++ {
		for c := 'A'; c <= 'Z'; c++ {
			if code := string([]rune{a, c}); core.IsCountry(code) && code != "US" {
				codes = append(codes, code)
			}
		}
	}
	rules := make([]bannerpkg.RegionRule, bannerpkg.MaxRegionRules)
	for i := range rules {
		rules[i] = bannerpkg.RegionRule{Regions: codes, DefaultBehavior: bannerpkg.BehaviorOptIn}
	}
	rules[len(rules)-1].Regions = []string{"*"}
	for _, c := range []struct {
		name   string
		banner *bannerpkg.Banner
	}{
		{"preset", &bannerpkg.Banner{DefaultBehavior: bannerpkg.BehaviorOptIn, RegionRules: bannerpkg.RegionPresets()[0].RegionRules}},
		{"largest", &bannerpkg.Banner{DefaultBehavior: bannerpkg.BehaviorOptIn, RegionRules: rules}},
	} {
		b.Run(c.name, func(b *testing.B) {
			rule := visitorRuleCached(c.banner)
			for b.Loop() {
				rule(ca)
			}
		})
		b.Run(c.name+"/uncached", func(b *testing.B) {
			for b.Loop() {
				c.banner.VisitorRule(ca)
			}
		})
	}
}

// TestOptOutWording: under an opt-out rule the notice's body is the opt-out one (built in, in
// the visitor's language; the site's own optOutBody when it wrote one), elsewhere the opt-in
// one; the configuration carries one body, never both.
func TestOptOutWording(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	in := []bannerpkg.RegionRuleInput{
		{Regions: []string{"US-CA"}, DefaultBehavior: bannerpkg.BehaviorOptOut},
		{Regions: []string{"*"}, DefaultBehavior: bannerpkg.BehaviorOptIn},
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{RegionRules: &in}); err != nil {
		t.Fatal(err)
	}
	body := func(lang string, loc core.Location) string {
		t.Helper()
		cfg, err := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, loc, lang)
		if err != nil {
			t.Fatal(err)
		}
		fv := cfg.FirstView()
		if _, ok := cfg.Texts["optOutBody"]; ok {
			t.Errorf("%s %+v: the configuration carries optOutBody beside body", lang, loc)
		}
		if fv.Texts["body"] != cfg.Texts["body"] {
			t.Errorf("%s %+v: the first view's body %q, the configuration's %q", lang, loc, fv.Texts["body"], cfg.Texts["body"])
		}
		return cfg.Texts["body"]
	}
	ca, fr := core.Location{Country: "US", Region: "US-CA"}, core.Location{Country: "FR"}
	for _, lang := range []string{"en", "es"} {
		tx, _ := i18n.Texts(lang)
		if got := body(lang, ca); got != tx["optOutBody"] {
			t.Errorf("%s California: body %q, want the opt-out wording %q", lang, got, tx["optOutBody"])
		}
		if got := body(lang, fr); got != tx["body"] || strings.Contains(tx["optOutBody"], "Choose which") {
			t.Errorf("%s France: body %q, want the opt-in wording %q", lang, got, tx["body"])
		}
	}
	if !strings.Contains(body("en", fr), "Choose which categories you allow") || strings.Contains(body("en", ca), "Choose which categories") {
		t.Errorf("wordings: opt-in %q, opt-out %q", body("en", fr), body("en", ca))
	}
	// The site's own opt-out wording wins over the built-in one.
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{TextOverrides: map[string]string{"optOutBody": "Ours: opt out below."}}); err != nil {
		t.Fatal(err)
	}
	if got := body("en", ca); got != "Ours: opt out below." {
		t.Errorf("site's optOutBody: body %q", got)
	}
	// A draft previewed with another behaviour takes its wording (the console's preview).
	cfg, err := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, fr, "en")
	if err != nil {
		t.Fatal(err)
	}
	draft := *cfg.Banner
	draft.RegionRules = nil
	draft.DefaultBehavior = bannerpkg.BehaviorOptOut
	if got := cfg.WithBanner(&draft).Texts["body"]; got != "Ours: opt out below." {
		t.Errorf("draft opt_out: body %q", got)
	}
	draft.DefaultBehavior = bannerpkg.BehaviorOptIn
	if got := cfg.WithBanner(&draft).Texts["body"]; got != body("en", fr) {
		t.Errorf("draft opt_in: body %q", got)
	}
}

// TestOneRegime: the visitor's regime is decided once (JurisdictionOf). A banner without
// regional rules, one whose rule of any behaviour matches the visitor, and one whose rules do
// not match give every place the same jurisdiction; and the two callers, the public
// configuration and the consent record, record it alike.
func TestOneRegime(t *testing.T) {
	t.Parallel()
	places := []core.Location{{}, {Country: "XX"}}
	for _, c := range core.Countries() {
		places = append(places, core.Location{Country: c})
	}
	for _, s := range core.Subdivisions() {
		places = append(places, core.LocationOf(s[:2], s[3:]))
	}
	for _, behavior := range bannerpkg.DefaultBehaviors() {
		plain := &bannerpkg.Banner{DefaultBehavior: behavior}
		matching := &bannerpkg.Banner{DefaultBehavior: bannerpkg.BehaviorOptIn, RegionRules: []bannerpkg.RegionRule{
			{Regions: []string{core.RegionAny, core.RegionUnknown}, DefaultBehavior: behavior}}}
		missing := &bannerpkg.Banner{DefaultBehavior: behavior, RegionRules: []bannerpkg.RegionRule{
			{Regions: []string{"AQ"}, DefaultBehavior: bannerpkg.BehaviorOptOut}}}
		for _, loc := range places {
			want := core.JurisdictionOf(loc.Country)
			for name, b := range map[string]*bannerpkg.Banner{"no rules": plain, "a matching rule": matching, "no matching rule": missing} {
				if loc.Country == "AQ" && b == missing {
					continue
				}
				if got := b.VisitorRule(loc).Jurisdiction; got != want {
					t.Errorf("%s, %s at %+v: jurisdiction %q, want %q", behavior, name, loc, got, want)
				}
			}
		}
	}

	m, _, _ := newCore(t)
	org, plainSite := mustSite(t, m)
	ruled, err := m.Sites.CreateSite(ctx, org, site.SiteInput{Name: ptr("Ruled"), URL: ptr("https://ruled.example")})
	if err != nil {
		t.Fatal(err)
	}
	rules := []bannerpkg.RegionRuleInput{{Regions: []string{core.RegionAny, core.RegionUnknown}, DefaultBehavior: bannerpkg.BehaviorNoBanner}}
	if _, err := m.Banners.PatchBanner(ctx, org, ruled.ID, bannerpkg.BannerPatch{RegionRules: &rules}); err != nil {
		t.Fatal(err)
	}
	for _, loc := range []core.Location{{Country: "US", Region: "US-TX"}, {Country: "US"}, {Country: "NO"}, {Country: "FR"}, {Country: "JP"}, {}} {
		want := core.JurisdictionOf(loc.Country)
		for _, s := range []*core.Site{plainSite, ruled} {
			cfg, err := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, loc)
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.PublicBanner.RecordConsent(ctx, s.ProjectKey, consent.ConsentInput{Categories: map[string]bool{}, ConsentVersion: 1,
				Country: loc.Country, Region: strings.TrimPrefix(loc.Region, loc.Country+"-")})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Jurisdiction != want || r.Jurisdiction != want {
				t.Errorf("%s at %+v: configuration %q, record %q, want %q", s.Name, loc, cfg.Jurisdiction, r.Jurisdiction, want)
			}
		}
	}
}

// visitorRuleCached returns what the public banner's cached views resolve a visitor's rule
// with: b's rules indexed once.
func visitorRuleCached(b *banner.Banner) func(core.Location) banner.VisitorRule {
	x := banner.NewRegionIndex(b.RegionRules)
	return func(loc core.Location) banner.VisitorRule { return b.VisitorRuleIndexed(x, loc) }
}
