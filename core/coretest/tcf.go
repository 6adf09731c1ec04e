package coretest

import (
	"reflect"
	"testing"

	"github.com/consentd/consentd/core"
)

// testBannerTCF: a banner's TCF settings are stored and read back whole, a new banner's are
// off with empty lists (never null), and the banner returned is a copy.
func testBannerTCF(t *testing.T, s core.Store) {
	f := seed(t, s)
	b, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if b.TCF.Enabled || b.TCF.VendorIDs == nil || len(b.TCF.VendorIDs) != 0 || b.TCF.PublisherRestrictions == nil ||
		b.TCF.SpecialFeatures == nil || b.TCF.GoogleATPIDs == nil {
		t.Fatalf("a new banner's tcf = %#v, want off with empty lists", b.TCF)
	}
	tcf := core.TCFSettings{
		Enabled: true, VendorIDs: []int{755, 1, 28}, PublisherCountryCode: "FR", SpecialFeatures: []int{1},
		PublisherRestrictions: []core.PublisherRestriction{{PurposeID: 2, RestrictionType: core.RestrictionRequireConsent, VendorIDs: []int{755}}},
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
