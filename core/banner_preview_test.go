package core_test

import (
	"reflect"
	"testing"

	"github.com/consentd/consentd/core"
)

// TestPreviewBanner: the preview of a patch is the banner the patch stores, the preview stores
// nothing, a draft the patch refuses the preview refuses alike, and a viewer may preview.
func TestPreviewBanner(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, _ := m.Orgs.CreateOrganization(ctx, "acme")
	_, ownerKey, _ := m.Orgs.CreateAPIKey(ctx, org.ID, "ci", "")
	owner := asKey(t, m, ownerKey)
	s, err := m.Sites.CreateSite(owner, org.ID, core.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
	if err != nil {
		t.Fatal(err)
	}
	rules := []core.RegionRuleInput{{Regions: []string{" FR", "FR", "US-CA"}, DefaultBehavior: core.BehaviorOptOut}}
	patch := core.BannerPatch{Template: ptr("modal"), Colors: map[string]string{"primary": "#123456"},
		TextOverrides: map[string]string{"headline": "Cookies?"}, TextTranslations: map[string]map[string]string{"fr": {"headline": "Cookies ?"}},
		ConsentMode: ptr(core.ConsentModeAdvanced), RegionRules: &rules, CookieDomain: core.Optional[string]{Set: true, Value: "Shop.Example"},
		GPP: &core.GPPSettings{Enabled: true}}
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
	if preview.ConsentMode != core.ConsentModeAdvanced || !preview.GCMExcludeVendor || preview.Template != "modal" {
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
	for _, bad := range []core.BannerPatch{
		{Template: ptr("nope")},
		{CookieDomain: core.Optional[string]{Set: true, Value: "other.example"}},
		{ConsentMode: ptr(core.ConsentModeBasic), GCMExcludeVendor: ptr(true)},
		{GPP: &core.GPPSettings{Enabled: true, MSPAMode: "sometimes"}},
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
