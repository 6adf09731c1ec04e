package tcstring_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/iabgvl"
	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/adapters/tcstring"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// Test vectors: TC strings published by the IAB, with the values the IAB's reference decoder
// (@iabtechlabtcf/core 1.5.21, TCString.decode) gives for them.
const (
	// specExample is the example of the TC string's segments in the IAB's "Consent string and
	// vendor list formats v2" (core, disclosed vendors, publisher TC).
	specExample = "CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.IDKQA4AAgAKAGQAygAAA.YAAAAAAAAAAA"
	// issue201 is iabtcf-es's test "201 unable to decode valid TCF2 String"
	// (modules/core/test/ReportedIssues.test.ts), whose publisher restrictions it checks.
	issue201 = "CO4VGswO4VGswAfZCBDEAzCsAP_AAH_AAAigGUNf_X9fb2vj-_599_t0eY1f9_63t-wzjheMs-8NyZ-X_J4Wv2MyvB34JqQKGRgkunLBAQdtHGncTQgBwIlViTLMY02MjzNKJrJEilsbe2dYGH9vn8XT_ZKZ70-_v__7v3___33_5Ayhr_6_r7e18f3_Pvv9ujzGr_v_W9v2GccLxln3huTPy_5PC1-xmV4O_BNSBQyMEl05YICDto407iaEAOBEqsSZZjGmxkeZpRNZIkUtjb2zrAw_t8_i6f7JTPen39___d-___--__ICgKAOAAcAA4AFAAjgB6AEYALcGACAW0AtoJAHAAOAAcACgARwA9ACMAFuFABALaAW0GgDgAHAAOABQAI4AegBGAC3DgAgFtALaEQBwADgAHAAoAEcAPQAjABbiQAQC2gFtCoA4ABwADgAUACOAHoARgAtxYAIBbQC2hkAcAA4ABwAKABHAD0AIwAW40AEAtoBbQ6AOAAcAA4AFAAjgB6AEYALceACAW0AtohAHAAOAAcACgARwA9ACMAFuRABALaAW0SgDgAHAAOABQAI4AegBGAC3JgAgFtALaKQBwADgAHAAoAEcAPQAjABblQAQC2gFtA"
)

// TestIABVectors: the decoder gives the reference decoder's values for the IAB's vectors.
func TestIABVectors(t *testing.T) {
	d := tcstring.Decoder{}
	s, err := d.DecodeTCString(specExample)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC)
	if s.Version != 2 || !s.Created.Equal(day) || !s.LastUpdated.Equal(day) || s.CMPID != 880 || s.CMPVersion != 0 || s.ConsentScreen != 0 ||
		s.ConsentLanguage != "EN" || s.VendorListVersion != 48 || s.TCFPolicyVersion != 2 || !s.IsServiceSpecific || s.PublisherCC != "DE" ||
		len(s.SpecialFeatures) != 0 || len(s.PurposesConsent) != 0 || len(s.PurposesLI) != 0 || !slices.Equal(s.VendorsConsent, []int{1, 2, 3, 4}) ||
		len(s.VendorsLI) != 0 || !slices.Equal(s.VendorsDisclosed, []int{1, 2, 3, 4, 5, 100, 404}) || len(s.PublisherRestrictions) != 0 {
		t.Errorf("spec example: %+v", s)
	}

	s, err = d.DecodeTCString(issue201)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 2 || s.CMPID != 31 || s.CMPVersion != 1602 || s.ConsentScreen != 1 || s.ConsentLanguage != "DE" || s.VendorListVersion != 51 ||
		s.TCFPolicyVersion != 2 || !s.IsServiceSpecific || s.PublisherCC != "EU" || !slices.Equal(s.SpecialFeatures, []int{1, 2}) ||
		!slices.Equal(s.PurposesConsent, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) || !slices.Equal(s.PurposesLI, []int{2, 3, 4, 5, 6, 7, 8, 9, 10}) ||
		len(s.VendorsConsent) != 479 || !slices.Equal(s.VendorsConsent[:8], []int{1, 2, 4, 6, 7, 8, 9, 10}) || len(s.VendorsLI) != 479 ||
		s.VendorsDisclosed != nil || !s.Created.Equal(time.Date(2020, 8, 18, 9, 50, 9, 600_000_000, time.UTC)) {
		t.Errorf("issue 201: %+v", s)
	}
	want := map[[2]int][]int{}
	for p := 1; p <= 10; p++ {
		want[[2]int{p, 1}] = []int{7, 20, 71, 122, 140, 183}
		want[[2]int{p, 2}] = []int{730}
	}
	if len(s.PublisherRestrictions) != len(want) {
		t.Fatalf("issue 201: %d restrictions, want %d: %+v", len(s.PublisherRestrictions), len(want), s.PublisherRestrictions)
	}
	for _, r := range s.PublisherRestrictions {
		if !slices.Equal(r.VendorIDs, want[[2]int{r.PurposeID, r.RestrictionType}]) {
			t.Errorf("issue 201: restriction %d/%d on %v", r.PurposeID, r.RestrictionType, r.VendorIDs)
		}
	}
}

// TestRefused: what is not a TC string v2 is a validation error, also a segment cut short
// that other segments follow (the decoder once kept only the last segment's reading error).
func TestRefused(t *testing.T) {
	coreString, segments, _ := strings.Cut(specExample, ".")
	disclosed, _, _ := strings.Cut(segments, ".")
	for _, s := range []string{
		"", " " + specExample, "not a tc string", "BOhwdphOxFC7tAHABBFRC--AAAAuhr_7__7-_9_-_f__9uj3Or_v_f__32ccL59v_h_7v-_7fi_20nV4u_1vft9yfk1-5ctDztp507iakivXmqdeb9v_nz3_5pxP78k89r7337Ew_v8_v-b7BCON_YxEiA", // TCF v1
		specExample[:20], strings.Replace(specExample, ".IDKQ", ".!!KQ", 1), specExample + ".ZZZZ",
		coreString[:20] + "." + segments, coreString[:30] + "." + disclosed, coreString + ".YA." + disclosed, coreString + "." + disclosed[:4] + ".YAAAAAAAAAAA",
	} {
		if _, err := (tcstring.Decoder{}).DecodeTCString(s); core.ErrorCode(err) != core.CodeInvalid {
			t.Errorf("%.40q: %v, want a validation error", s, err)
		}
	}
}

// FuzzDecode: no input makes the decoder panic (a consent POST would answer 500).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{specExample, issue201, "CQ", "CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.", "C.I.Y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = tcstring.Decoder{}.DecodeTCString(s)
	})
}

// TestTCStringOfAnUnknownGVL: a TC string decided under a GVL version this server never had is
// refused (the IAB's own example string, vendorListVersion 48, for its CMP 880).
func TestTCStringOfAnUnknownGVL(t *testing.T) {
	ctx := core.WithActor(context.Background(), core.System("tests"))
	gvl, err := iabgvl.OpenFile("../../testdata/tcf/vendor-list-v17.json")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := library.FromServices(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := usecases.New(usecases.Deps{Store: memstore.New(), Catalog: cat, Now: time.Now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() },
		VendorLists: gvl, TCF: tcf.TCFDeployment{CMPID: 880}, TCStrings: tcstring.Decoder{}})
	if err != nil {
		t.Fatal(err)
	}
	org, err := m.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	name, url := "Shop", "https://shop.example"
	s, err := m.Sites.CreateSite(ctx, org.ID, site.SiteInput{Name: &name, URL: &url})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Banners.PatchBanner(ctx, org.ID, s.ID, banner.BannerPatch{TCF: &tcf.TCFSettings{Enabled: true, VendorIDs: []int{1, 2}}}); err != nil {
		t.Fatal(err)
	}
	_, err = m.PublicBanner.RecordConsent(ctx, s.ProjectKey, consent.ConsentInput{ConsentVersion: 1,
		TCString: "CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.IDKQA4AAgAKAGQAygAAA.YAAAAAAAAAAA"})
	if core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), "vendorListVersion 48 is not a Global Vendor List this server has served") {
		t.Fatalf("TC string of GVL 48: %v", err)
	}
}
