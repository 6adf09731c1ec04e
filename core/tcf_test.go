package core_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/scan"
	tcfpkg "github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// fixtureGVL reads the IAB's GVL v3 fixture (testdata/tcf: vendorListVersion 17, 692 vendors).
func fixtureGVL(t testing.TB) *tcfpkg.GVL {
	t.Helper()
	data, err := os.ReadFile("../testdata/tcf/vendor-list-v17.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := tcfpkg.ParseGVL(data)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// gvlLists is core's tests' VendorLists: one GVL, its translations and Google's provider list
// (none when ac is nil).
type gvlLists struct {
	gvl *tcfpkg.GVL
	tr  map[string]*tcfpkg.GVLTranslation
	ac  *tcfpkg.ACProviderList
}

func (l *gvlLists) ACProviders(context.Context) (*tcfpkg.ACProviderList, error) {
	if l.ac == nil {
		return nil, core.Errorf(core.CodeNotFound, "no provider list")
	}
	return l.ac, nil
}

func (l *gvlLists) CurrentGVL(context.Context) (*tcfpkg.GVL, error) {
	if l.gvl == nil {
		return nil, core.Errorf(core.CodeNotFound, "no GVL")
	}
	return l.gvl, nil
}

func (l *gvlLists) GVL(_ context.Context, version int) (*tcfpkg.GVL, error) {
	if l.gvl == nil || l.gvl.VendorListVersion != version {
		return nil, core.Errorf(core.CodeNotFound, "no GVL %d", version)
	}
	return l.gvl, nil
}

func (l *gvlLists) GVLTranslation(_ context.Context, lang string) (*tcfpkg.GVLTranslation, error) {
	if t, ok := l.tr[lang]; ok {
		return t, nil
	}
	return nil, core.Errorf(core.CodeNotFound, "no translation")
}

func newTCFCore(t *testing.T, lists tcfpkg.VendorLists, cmp tcfpkg.TCFDeployment) *testCore {
	t.Helper()
	cat, err := library.FromServices([]*library.Service{svc("ads", "marketing", false, "ads.example/a.js")})
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	store := memstore.New()
	newID := func() string { return fmt.Sprintf("00000000-0000-7000-8000-%012d", n.Add(1)) }
	now := func() time.Time {
		return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC).Add(time.Duration(n.Load()) * time.Second)
	}
	uc, err := usecases.New(usecases.Deps{Store: store, Catalog: cat, Now: now, NewID: newID, VendorLists: lists, TCF: cmp})
	if err != nil {
		t.Fatal(err)
	}
	return &testCore{UseCases: uc, store: store, newID: newID}
}

// TestParseGVLFixture: the IAB's fixture reads whole, with Google Advertising Products and the
// one deleted vendor; another format is refused saying why.
func TestParseGVLFixture(t *testing.T) {
	g := fixtureGVL(t)
	if g.VendorListVersion != 17 || g.TCFPolicyVersion != 4 || len(g.Vendors) != 692 || len(g.Purposes) != 11 || len(g.Stacks) != 43 ||
		len(g.SpecialFeatures) != 2 || len(g.DataCategories) == 0 || !g.LastUpdated.Equal(time.Date(2023, 9, 7, 16, 7, 28, 0, time.UTC)) {
		t.Fatalf("GVL: version %d policy %d, %d vendors, %d purposes, %d stacks, updated %s", g.VendorListVersion, g.TCFPolicyVersion,
			len(g.Vendors), len(g.Purposes), len(g.Stacks), g.LastUpdated)
	}
	v := g.Vendors[755]
	if v.Name != "Google Advertising Products" || !slices.Equal(v.Purposes, []int{1, 3, 4}) || !slices.Equal(v.LegIntPurposes, []int{2, 7, 9, 10}) ||
		v.DataRetention == nil || *v.DataRetention.StdRetention != 548 || v.DataRetention.Purposes[3] != 180 || v.CookieMaxAgeSeconds == nil ||
		*v.CookieMaxAgeSeconds != 34190000 || !v.UsesNonCookieAccess || v.DeviceStorageDisclosureURL == "" || len(v.URLs) == 0 || v.DeletedDate != nil {
		t.Fatalf("vendor 755 = %+v", v)
	}
	if d := g.Vendors[468].DeletedDate; d == nil || d.Format(time.DateOnly) != "2023-09-04" {
		t.Fatalf("vendor 468's deletedDate = %v", d)
	}
	for in, want := range map[string]string{
		`{"gvlSpecificationVersion":2,"vendorListVersion":3,"purposes":{},"vendors":{}}`: "gvlSpecificationVersion is 2",
		`{"gvlSpecificationVersion":3,"vendorListVersion":0}`:                            "no vendorListVersion",
		`[]`: "not valid JSON",
	} {
		if _, err := tcfpkg.ParseGVL([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseGVL(%s) = %v, want %q", in, err, want)
		}
	}
	// A vendor's URLs are links in the second layer: only http(s) ones are kept, trimmed (the
	// IAB's own list has one with a leading space).
	if u := g.Vendors[21].DeviceStorageDisclosureURL; u != "https://ttd-misc-public-assets.s3.us-west-2.amazonaws.com/deviceStorageDisclosureURL.json" {
		t.Errorf("vendor 21's deviceStorageDisclosureUrl = %q, want it trimmed", u)
	}
	tampered, err := tcfpkg.ParseGVL([]byte(`{"gvlSpecificationVersion":3,"vendorListVersion":3,"purposes":{"1":{"id":1}},"vendors":{"7":{"id":7,"name":"Seven",
		"deviceStorageDisclosureUrl":"javascript:alert(1)","urls":[{"langId":"en","privacy":"JavaScript:alert(2)","legIntClaim":"data:text/html,x"},
		{"langId":"de","privacy":" https://seven.example/datenschutz ","legIntClaim":"https://seven.example/li"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if v := tampered.Vendors[7]; v.Name != "Seven" || v.DeviceStorageDisclosureURL != "" ||
		!slices.Equal(v.URLs, []tcfpkg.GVLVendorURL{{LangID: "en"}, {LangID: "de", Privacy: "https://seven.example/datenschutz", LegIntClaim: "https://seven.example/li"}}) {
		t.Errorf("vendor links kept from a tampered list: %+v", v)
	}
}

// TestTCFSettingsChecked: the banner's tcf object is checked against the GVL and the
// deployment, each refusal a validation error naming the field; a valid one is stored whole.
func TestTCFSettingsChecked(t *testing.T) {
	lists := &gvlLists{gvl: fixtureGVL(t)}
	m := newTCFCore(t, lists, tcfpkg.TCFDeployment{CMPID: 300, CMPVersion: 2})
	org, s := mustSite(t, m)
	patch := func(tcf tcfpkg.TCFSettings) error {
		_, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{TCF: &tcf})
		return err
	}
	five := []int{755, 1, 2, 6, 8}
	for _, c := range []struct {
		name string
		tcf  tcfpkg.TCFSettings
		want string
	}{
		{"unknown vendor", tcfpkg.TCFSettings{VendorIDs: []int{755, 1, 2, 9999}}, "tcf.vendorIds[3]: unknown vendor 9999"},
		{"deleted vendor", tcfpkg.TCFSettings{VendorIDs: []int{468}}, "tcf.vendorIds[0]: vendor 468 (Neustar, Inc., a TransUnion company) was deleted from the Global Vendor List on 2023-09-04"},
		{"twice", tcfpkg.TCFSettings{VendorIDs: []int{755, 755}}, "tcf.vendorIds[1]: vendor 755 is listed twice"},
		{"lower-case country", tcfpkg.TCFSettings{PublisherCountryCode: "fr"}, "tcf.publisherCountryCode"},
		{"no such country", tcfpkg.TCFSettings{PublisherCountryCode: "ZZ"}, "tcf.publisherCountryCode"},
		{"special feature", tcfpkg.TCFSettings{SpecialFeatures: []int{3}}, "tcf.specialFeatures[0]"},
		{"restriction purpose", tcfpkg.TCFSettings{VendorIDs: five, PublisherRestrictions: []tcfpkg.PublisherRestriction{{PurposeID: 12, VendorIDs: []int{755}}}}, "tcf.publisherRestrictions[0].purposeId"},
		{"restriction type", tcfpkg.TCFSettings{VendorIDs: five, PublisherRestrictions: []tcfpkg.PublisherRestriction{{PurposeID: 2, RestrictionType: 3, VendorIDs: []int{755}}}}, "tcf.publisherRestrictions[0].restrictionType"},
		{"LI for purpose 4", tcfpkg.TCFSettings{VendorIDs: five, PublisherRestrictions: []tcfpkg.PublisherRestriction{{PurposeID: 4, RestrictionType: 2, VendorIDs: []int{755}}}}, "purpose 4 never rests on legitimate interest"},
		{"restriction vendor", tcfpkg.TCFSettings{VendorIDs: five, PublisherRestrictions: []tcfpkg.PublisherRestriction{{PurposeID: 2, RestrictionType: 1, VendorIDs: []int{28}}}}, "tcf.publisherRestrictions[0].vendorIds[0]: vendor 28 is not one of the site's vendors"},
		{"atp", tcfpkg.TCFSettings{GoogleATPIDs: []int{0}}, "tcf.googleAtpIds[0]"},
	} {
		err := patch(c.tcf)
		if core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a validation error with %q", c.name, err, c.want)
		}
	}
	want := tcfpkg.TCFSettings{Enabled: true, VendorIDs: five, PublisherCountryCode: "FR", SpecialFeatures: []int{1},
		PublisherRestrictions: []tcfpkg.PublisherRestriction{{PurposeID: 2, RestrictionType: tcfpkg.RestrictionRequireConsent, VendorIDs: []int{755}}},
		GoogleATPIDs:          []int{89}}
	if err := patch(want); err != nil {
		t.Fatal(err)
	}
	b, err := m.Banners.Banner(ctx, org, s.ID)
	if err != nil || !slices.Equal(b.TCF.VendorIDs, five) || !b.TCF.Enabled || b.TCF.PublisherCountryCode != "FR" || len(b.TCF.PublisherRestrictions) != 1 {
		t.Fatalf("stored tcf = %+v, %v", b.TCF, err)
	}

	// Without a CMP ID, TCF cannot be turned on; without a GVL, no vendor can be checked.
	noCMP := newTCFCore(t, lists, tcfpkg.TCFDeployment{})
	org, s = mustSite(t, noCMP)
	_, err = noCMP.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{TCF: &tcfpkg.TCFSettings{Enabled: true, VendorIDs: []int{755}}})
	if core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), "tcf.enabled") || !strings.Contains(err.Error(), "CONSENTD_TCF_CMP_ID") {
		t.Errorf("enabled without a CMP ID: %v", err)
	}
	noGVL := newTCFCore(t, nil, tcfpkg.TCFDeployment{CMPID: 300})
	org, s = mustSite(t, noGVL)
	_, err = noGVL.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{TCF: &tcfpkg.TCFSettings{Enabled: true, VendorIDs: []int{755}}})
	if core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), "no Global Vendor List") {
		t.Errorf("enabled without a GVL: %v", err)
	}
	if _, err := usecases.New(usecases.Deps{Store: memstore.New(), Catalog: mustCatalog(t), Now: time.Now, NewID: func() string { return "x" },
		TCF: tcfpkg.TCFDeployment{CMPID: 1}}); err == nil || !strings.Contains(err.Error(), "CONSENTD_TCF_CMP_ID") {
		t.Errorf("CMP ID 1 accepted: %v", err)
	}
}

// TestTCFApplies: the TCF applies where the visitor's rule is opt_in and the visitor is in
// the EEA, GB or CH or of unknown location, on a site with TCF on; the public configuration
// says so.
func TestTCFApplies(t *testing.T) {
	m := newTCFCore(t, &gvlLists{gvl: fixtureGVL(t)}, tcfpkg.TCFDeployment{CMPID: 300, CMPVersion: 2})
	org, s := mustSite(t, m)
	applies := func(country, region string) bool {
		t.Helper()
		cfg, err := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{Country: country, Region: region})
		if err != nil {
			t.Fatal(err)
		}
		return cfg.TCF
	}
	if applies("FR", "") {
		t.Fatal("TCF applies on a site with TCF off")
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{TCF: &tcfpkg.TCFSettings{Enabled: true, VendorIDs: []int{755}}}); err != nil {
		t.Fatal(err)
	}
	for loc, want := range map[string]bool{"FR": true, "DE": true, "NO": true, "GB": true, "CH": true, "": true, "US": false, "JP": false} {
		if got := applies(loc, ""); got != want {
			t.Errorf("opt_in banner, visitor from %q: TCF applies %t, want %t", loc, got, want)
		}
	}
	rules := []banner.RegionRuleInput{
		{Regions: []string{"DE"}, DefaultBehavior: banner.BehaviorOptOut},
		{Regions: []string{"EU", "EEA", "GB", "CH"}, DefaultBehavior: banner.BehaviorOptIn},
		{Regions: []string{"US-CA"}, DefaultBehavior: banner.BehaviorOptIn},
		{Regions: []string{"*"}, DefaultBehavior: banner.BehaviorNoBanner},
		{Regions: []string{"unknown"}, DefaultBehavior: banner.BehaviorNoBanner},
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{RegionRules: &rules}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		country, region string
		want            bool
	}{{"FR", "", true}, {"DE", "", false}, {"US", "US-CA", false}, {"JP", "", false}, {"", "", false}} {
		if got := applies(c.country, c.region); got != c.want {
			t.Errorf("regional rules, visitor from %q %q: TCF applies %t, want %t", c.country, c.region, got, c.want)
		}
	}
}

// TestTCFConfig: the TCF module's configuration carries the deployment's CMP, the GVL's
// metadata, the site's vendors alone, and the texts in the visitor's language where the IAB
// translates them, else in English; a site with TCF off has none.
func TestTCFConfig(t *testing.T) {
	g := fixtureGVL(t)
	fr := &tcfpkg.GVLTranslation{Language: "fr", Purposes: map[int]tcfpkg.GVLPurpose{1: {ID: 1, Name: "Stocker et/ou accéder à des informations sur un appareil", Description: "fr"}},
		Stacks: map[int]tcfpkg.GVLStack{2: {ID: 2, Name: "Publicité basée sur des données limitées"}}}
	m := newTCFCore(t, &gvlLists{gvl: g, tr: map[string]*tcfpkg.GVLTranslation{"fr": fr}}, tcfpkg.TCFDeployment{CMPID: 300, CMPVersion: 2})
	org, s := mustSite(t, m)
	if _, err := m.PublicBanner.TCFConfig(ctx, s.ProjectKey, "en"); core.ErrorCode(err) != core.CodeNotFound {
		t.Fatalf("TCF config of a site with TCF off: %v", err)
	}
	five := []int{755, 1, 2, 6, 8}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{TCF: &tcfpkg.TCFSettings{Enabled: true, VendorIDs: five,
		PublisherCountryCode: "FR", SpecialFeatures: []int{1}, GoogleATPIDs: []int{89}}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := m.PublicBanner.TCFConfig(ctx, s.ProjectKey, "en")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CMPID != 300 || cfg.CMPVersion != 2 || cfg.VendorListVersion != 17 || cfg.TCFPolicyVersion != 4 || cfg.GVLSpecificationVersion != 3 ||
		cfg.PublisherCountryCode != "FR" || cfg.Language != "en" || len(cfg.Vendors) != 5 || cfg.Vendors[755].Name != "Google Advertising Products" ||
		!slices.Equal(cfg.VendorIDs, five) || !slices.Equal(cfg.SpecialFeatureIDs, []int{1}) || !slices.Equal(cfg.GoogleATPIDs, []int{89}) ||
		cfg.Purposes[1].Name != g.Purposes[1].Name || len(cfg.Stacks) != 43 || !slices.Equal(cfg.ConsentOnlyPurposes, []int{1, 3, 4, 5, 6}) {
		t.Fatalf("TCF config = %+v", cfg)
	}
	cfg, err = m.PublicBanner.TCFConfig(ctx, s.ProjectKey, "fr")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Language != "fr" || cfg.Purposes[1].Name != fr.Purposes[1].Name || cfg.Purposes[2].Name != g.Purposes[2].Name ||
		cfg.Stacks[2].Name != fr.Stacks[2].Name || !slices.Equal(cfg.Stacks[2].Purposes, g.Stacks[2].Purposes) {
		t.Errorf("French TCF config: language %q, purpose 1 %q, purpose 2 %q, stack 2 %+v", cfg.Language, cfg.Purposes[1].Name, cfg.Purposes[2].Name, cfg.Stacks[2])
	}
	if g.Purposes[1].Name == fr.Purposes[1].Name {
		t.Fatal("the translation changed the shared GVL")
	}
	if cfg, err = m.PublicBanner.TCFConfig(ctx, s.ProjectKey, "ja"); err != nil || cfg.Language != "en" {
		t.Errorf("Japanese (no IAB translation): %v, language %q", err, cfg.Language)
	}
}

func mustCatalog(t *testing.T) *library.Catalog {
	t.Helper()
	cat, err := library.FromServices(nil)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// TestConsentCanonicalTCF: a record with TCF strings is sealed by a v3 line ending with the
// region fields (empty here), the GVL version and both strings; without them the line stays v1.
func TestConsentCanonicalTCF(t *testing.T) {
	r := &consent.ConsentRecord{ID: "i", SiteID: "s", CategoriesConsented: map[string]bool{}, ConsentVersion: 1}
	v1 := consent.ConsentCanonical(r)
	r.TCString, r.ACString, r.GVLVersion = "CQ.IF", "2~89~dv.89", 17
	v3 := consent.ConsentCanonical(r)
	if !strings.HasPrefix(v1, consent.ConsentCanonicalVersion+"\t") ||
		v3 != consent.ConsentCanonicalVersionTCF+strings.TrimPrefix(v1, consent.ConsentCanonicalVersion)+"\t\t\t17\tCQ.IF\t2~89~dv.89" {
		t.Fatalf("v1 %q\nv3 %q", v1, v3)
	}
	r.Region, r.RegionRule = "US-CO", "regionRules[1]"
	if got := consent.ConsentCanonical(r); !strings.HasSuffix(got, "\tUS-CO\tregionRules[1]\t17\tCQ.IF\t2~89~dv.89") || strings.Count(got, "\t") != 19 {
		t.Fatalf("v3 with a region: %q", got)
	}
}

// TestTCFComplianceRules: on a site with TCF on, the report flags a GVL older than 14 days, a
// selected vendor deleted from or gone from the GVL, and a deployment without a CMP ID; a
// fresh list with live vendors passes, and a site with TCF off is not judged.
func TestTCFComplianceRules(t *testing.T) {
	fixture := fixtureGVL(t)
	fresh := *fixture
	fresh.LastUpdated = time.Date(2026, 11, 19, 16, 0, 0, 0, time.UTC) // two days before the test clock
	lists := &gvlLists{gvl: &fresh}
	m := newTCFCore(t, lists, tcfpkg.TCFDeployment{CMPID: 4095, CMPVersion: 1})
	org, s := mustSite(t, m)
	tcfFindings := func() map[string][]string {
		t.Helper()
		rep, err := m.Compliance.Report(ctx, org, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, f := range rep.Findings {
			if strings.HasPrefix(f.RuleID, "consent.tcf-") {
				out[f.RuleID] = append(out[f.RuleID], f.Detail)
			}
		}
		return out
	}
	if f := tcfFindings(); len(f) != 0 {
		t.Fatalf("a site with TCF off: %v", f)
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{TCF: &tcfpkg.TCFSettings{Enabled: true, VendorIDs: []int{755, 1, 2}}}); err != nil {
		t.Fatal(err)
	}
	if f := tcfFindings(); len(f) != 0 {
		t.Fatalf("a fresh GVL with live vendors: %v", f)
	}
	// The next list is a fortnight old, deletes vendor 1 and drops vendor 2.
	old := fresh
	old.LastUpdated = time.Date(2026, 11, 5, 16, 0, 0, 0, time.UTC)
	old.Vendors = maps.Clone(fresh.Vendors)
	v1 := old.Vendors[1]
	deleted := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	v1.DeletedDate = &deleted
	old.Vendors[1] = v1
	delete(old.Vendors, 2)
	lists.gvl = &old
	f := tcfFindings()
	if len(f["consent.tcf-gvl-age"]) != 1 || !strings.Contains(f["consent.tcf-gvl-age"][0], "version 17 of 2026-11-05, 15 days old") {
		t.Errorf("GVL age: %v", f["consent.tcf-gvl-age"])
	}
	if d := strings.Join(f["consent.tcf-vendor-deleted"], " | "); len(f["consent.tcf-vendor-deleted"]) != 2 ||
		!strings.Contains(d, "deleted from the Global Vendor List on 2026-11-01") || !strings.Contains(d, "Vendor 2 of tcf.vendorIds is no longer in the Global Vendor List version 17") {
		t.Errorf("deleted vendors: %v", d)
	}
	if len(f["consent.tcf-cmp-id"]) != 0 {
		t.Errorf("CMP ID flagged on a deployment that has one: %v", f["consent.tcf-cmp-id"])
	}

	// The same site on a deployment whose CMP ID was removed since.
	noCMP := newTCFCore(t, lists, tcfpkg.TCFDeployment{})
	org2, s2 := mustSite(t, noCMP)
	b, err := noCMP.store.Banner(ctx, s2.ID)
	if err != nil {
		t.Fatal(err)
	}
	b.TCF = tcfpkg.TCFSettings{Enabled: true, VendorIDs: []int{755}}
	if err := noCMP.store.UpdateBanner(ctx, b); err != nil {
		t.Fatal(err)
	}
	rep, err := noCMP.Compliance.Report(ctx, org2, s2.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		found = found || (f.RuleID == "consent.tcf-cmp-id" && f.Severity == scan.SeverityError && strings.Contains(f.Detail, "CONSENTD_TCF_CMP_ID"))
	}
	if !found {
		t.Errorf("no CMP ID: %+v", rep.Findings)
	}
}

// TestSearchVendors: the console's vendor search finds by name or ID, sorted by name, bounded,
// without deleted vendors.
func TestSearchVendors(t *testing.T) {
	g := fixtureGVL(t)
	got := g.SearchVendors("GOOGLE", 10)
	if len(got) == 0 || !slices.ContainsFunc(got, func(v tcfpkg.GVLVendor) bool { return v.ID == 755 }) {
		t.Fatalf("google: %v", got)
	}
	for i := 1; i < len(got); i++ {
		if strings.ToLower(got[i-1].Name) > strings.ToLower(got[i].Name) {
			t.Fatalf("not sorted by name: %q before %q", got[i-1].Name, got[i].Name)
		}
	}
	if got := g.SearchVendors("755", 10); len(got) != 1 || got[0].ID != 755 {
		t.Fatalf("755: %v", got)
	}
	if got := g.SearchVendors("Neustar", 10); len(got) != 0 {
		t.Fatalf("the deleted vendor 468 was found: %v", got)
	}
	if got := g.SearchVendors("a", 5); len(got) != 5 {
		t.Fatalf("limit: %d", len(got))
	}
	if g.SearchVendors("  ", 5) != nil {
		t.Fatal("an empty query found vendors")
	}
}

// TestTCFNoVendorIsAComplianceError: a site saved with TCF on and neither a vendor nor an
// Additional Consent provider (before PatchBanner refused it) gets consent.tcf-no-vendor;
// with one vendor it does not.
func TestTCFNoVendorIsAComplianceError(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Banner.TCF.Enabled = true
	r := scan.EvaluateCompliance(in, nil, "", complianceCatalog(t), reportTime)
	got := withRule(r, "consent.tcf-no-vendor")
	if len(got) != 1 || got[0].Severity != scan.SeverityError || *got[0].Evidence.Field != "tcf.vendorIds" {
		t.Fatalf("TCF with no vendor: %+v", r.Findings)
	}
	in.Banner.TCF.GoogleATPIDs = []int{89}
	if got := withRule(scan.EvaluateCompliance(in, nil, "", complianceCatalog(t), reportTime), "consent.tcf-no-vendor"); len(got) != 0 {
		t.Fatalf("TCF with an AC provider: %+v", got)
	}
}
