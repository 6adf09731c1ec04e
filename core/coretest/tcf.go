package coretest

import (
	"reflect"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	tcfpkg "github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/usecases"
)

// testBannerTCF: a banner's TCF settings are stored and read back whole, a new banner's are
// off with empty lists (never null), and the banner returned is a copy.
func testBannerTCF(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	b, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if b.TCF.Enabled || b.TCF.VendorIDs == nil || len(b.TCF.VendorIDs) != 0 || b.TCF.PublisherRestrictions == nil ||
		b.TCF.SpecialFeatures == nil || b.TCF.GoogleATPIDs == nil {
		t.Fatalf("a new banner's tcf = %#v, want off with empty lists", b.TCF)
	}
	tcf := tcfpkg.TCFSettings{
		Enabled: true, VendorIDs: []int{755, 1, 28}, PublisherCountryCode: "FR", SpecialFeatures: []int{1},
		PublisherRestrictions: []tcfpkg.PublisherRestriction{{PurposeID: 2, RestrictionType: tcfpkg.RestrictionRequireConsent, VendorIDs: []int{755}}},
		GoogleATPIDs:          []int{89, 2822},
	}
	b.TCF = tcf
	must(t, s.UpdateBanner(ctx, b))
	got, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if !reflect.DeepEqual(got.TCF, tcf) {
		t.Fatalf("tcf round trip:\n got %+v\nwant %+v", got.TCF, tcf)
	}
	got.TCF.VendorIDs[0] = 9
	got.TCF.PublisherRestrictions[0].VendorIDs[0] = 9
	again, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if again.TCF.VendorIDs[0] != 755 || again.TCF.PublisherRestrictions[0].VendorIDs[0] != 755 {
		t.Fatal("the returned banner shares its tcf settings with the store")
	}
}

// testGVLVersions: every GVL version and translation is kept byte for byte, the first copy of
// a version stays, the latest is found per language, and a resource's fetch state round-trips.
func testGVLVersions(t *testing.T, s usecases.Store) {
	if _, err := s.LatestGVLVersion(ctx, ""); !core.IsNotFound(err) {
		t.Fatalf("LatestGVLVersion of an empty store: %v, want not_found", err)
	}
	at := time.Date(2026, 11, 19, 16, 5, 0, 0, time.UTC)
	body := []byte("{\"vendorListVersion\": 17,\n \"purposes\": {\"1\": {\"name\": \"Stocker et/ou accéder\"}}}")
	for _, v := range []tcfpkg.StoredGVL{
		{Version: 17, LastUpdated: at, FetchedAt: at.Add(time.Hour), Body: body},
		{Version: 18, LastUpdated: at.AddDate(0, 0, 7), FetchedAt: at.AddDate(0, 0, 7), Body: []byte(`{"vendorListVersion":18}`)},
		{Version: 17, Language: "fr", LastUpdated: at, FetchedAt: at, Body: []byte(`{"fr":1}`)},
		{Version: 17, LastUpdated: at, FetchedAt: at, Body: []byte(`{"second copy":true}`)},
	} {
		must(t, s.SaveGVL(ctx, &v))
	}
	got, err := s.StoredGVL(ctx, 17, "")
	must(t, err)
	if string(got.Body) != string(body) || !got.LastUpdated.Equal(at) || !got.FetchedAt.Equal(at.Add(time.Hour)) || got.Language != "" {
		t.Fatalf("StoredGVL(17) = %+v %q", got, got.Body)
	}
	if v, err := s.LatestGVLVersion(ctx, ""); err != nil || v != 18 {
		t.Fatalf("LatestGVLVersion = %d, %v, want 18", v, err)
	}
	if v, err := s.LatestGVLVersion(ctx, "fr"); err != nil || v != 17 {
		t.Fatalf("LatestGVLVersion(fr) = %d, %v, want 17", v, err)
	}
	if _, err := s.StoredGVL(ctx, 18, "fr"); !core.IsNotFound(err) {
		t.Fatalf("StoredGVL(18, fr): %v, want not_found", err)
	}
	if _, err := s.GVLFetchState(ctx, tcfpkg.GVLResourceList); !core.IsNotFound(err) {
		t.Fatalf("GVLFetchState of an empty store: %v, want not_found", err)
	}
	f := &tcfpkg.GVLFetch{Body: body, ETag: `"abc"`, LastModified: "Thu, 19 Nov 2026 16:05:00 GMT", Expires: at.Add(time.Hour), CheckedAt: at}
	must(t, s.SaveGVLFetchState(ctx, tcfpkg.GVLResourceList, f))
	f.ETag, f.Expires = `"def"`, at.Add(2*time.Hour)
	must(t, s.SaveGVLFetchState(ctx, tcfpkg.GVLResourceList, f))
	st, err := s.GVLFetchState(ctx, tcfpkg.GVLResourceList)
	must(t, err)
	if st.ETag != `"def"` || st.LastModified != f.LastModified || !st.Expires.Equal(at.Add(2*time.Hour)) || !st.CheckedAt.Equal(at) || st.Body != nil {
		t.Fatalf("GVLFetchState = %+v", st)
	}
}

// testConsentTCF: a record's TC string, AC string and GVL version are stored and listed and
// exported as written, its hash still matching; a record without them lists them empty.
func testConsentTCF(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	r := consentAt(f.site.ID, at, "v-tcf")
	r.TCString = "CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.IDKQA4AAgAKAGQAygAAA"
	r.ACString, r.GVLVersion = "2~89.2822~dv.89.2822", 17
	byID, plain := storeBesidePlain(t, s, r)
	if g := byID[r.ID]; g == nil || g.TCString != r.TCString || g.ACString != r.ACString || g.GVLVersion != 17 || consent.ConsentRecordHash(g) != r.RecordHash {
		t.Fatalf("record with TCF strings round trip: %+v", g)
	}
	if g := byID[plain.ID]; g == nil || g.TCString != "" || g.ACString != "" || g.GVLVersion != 0 {
		t.Fatalf("record without TCF strings round trip: %+v", g)
	}
}
