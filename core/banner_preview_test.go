package core_test

import (
	"reflect"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/gpp"
	"github.com/consentd/consentd/core/site"
)

// TestPreviewBanner: the preview of a patch is the banner the patch stores, the preview stores
// nothing, a draft the patch refuses the preview refuses alike, and a viewer may preview.
func TestPreviewBanner(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, _ := m.Orgs.CreateOrganization(ctx, "acme")
	_, ownerKey, _ := m.Orgs.CreateAPIKey(ctx, org.ID, "ci", "")
	owner := asKey(t, m, ownerKey)
	s, err := m.Sites.CreateSite(owner, org.ID, site.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
	if err != nil {
		t.Fatal(err)
	}
	rules := []banner.RegionRuleInput{{Regions: []string{" FR", "FR", "US-CA"}, DefaultBehavior: banner.BehaviorOptOut}}
	patch := banner.BannerPatch{Template: ptr("modal"), Colors: map[string]string{"primary": "#123456"},
		TextOverrides: map[string]string{"headline": "Cookies?"}, TextTranslations: map[string]map[string]string{"fr": {"headline": "Cookies ?"}},
		ConsentMode: ptr(banner.ConsentModeAdvanced), RegionRules: &rules, CookieDomain: banner.Optional[string]{Set: true, Value: "Shop.Example"},
		GPP: &gpp.GPPSettings{Enabled: true}}
	before, err := m.Banners.Banner(owner, org.ID, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	viewer := asKey(t, m, mustViewer(t, m, owner, org.ID))
	preview, err := m.Banners.PreviewBanner(viewer, org.ID, s.ID, patch)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := m.Banners.Banner(owner, org.ID, s.ID); !reflect.DeepEqual(after, before) {
		t.Fatalf("the preview changed the stored banner:\n%+v\n%+v", after, before)
	}
	if preview.ConsentMode != banner.ConsentModeAdvanced || !preview.GCMExcludeVendor || preview.Template != "modal" {
		t.Errorf("preview %+v", preview)
	}
	stored, err := m.Banners.PatchBanner(owner, org.ID, s.ID, patch)
	if err != nil {
		t.Fatal(err)
	}
	preview.UpdatedAt = stored.UpdatedAt
	if !reflect.DeepEqual(preview, stored) {
		t.Errorf("preview and patch differ:\n%+v\n%+v", preview, stored)
	}
	for _, bad := range []banner.BannerPatch{
		{Template: ptr("nope")},
		{CookieDomain: banner.Optional[string]{Set: true, Value: "other.example"}},
		{ConsentMode: ptr(banner.ConsentModeBasic), GCMExcludeVendor: ptr(true)},
		{GPP: &gpp.GPPSettings{Enabled: true, MSPAMode: "sometimes"}},
	} {
		_, perr := m.Banners.PreviewBanner(owner, org.ID, s.ID, bad)
		_, err := m.Banners.PatchBanner(owner, org.ID, s.ID, bad)
		if err == nil || core.ErrorCode(perr) != core.ErrorCode(err) || core.ErrorMessage(perr) != core.ErrorMessage(err) || core.ErrorField(perr) != core.ErrorField(err) {
			t.Errorf("%+v: preview %v, patch %v", bad, perr, err)
		}
	}
	if _, err := m.Banners.PreviewBanner(ctx, "other", s.ID, patch); core.ErrorCode(err) != core.CodeNotFound && core.ErrorCode(err) != core.CodeForbidden {
		t.Errorf("another organization's banner: %v", err)
	}
}
