package core_test

import (
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	bannerpkg "github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/scan"
)

// TestReaskAfterRejectDays: how long a refusal keeps the banner away follows the visitor's rule
// (#45): the rule's own reaskAfterRejectDays, else the banner's, else the default of the rule's
// behaviour (opt_in 180 days, opt_out 365); out-of-range values are refused naming the field,
// and null returns the banner to the defaults.
func TestReaskAfterRejectDays(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	days := func(p *int) *int { return p }
	n := func(v int) *int { return &v }
	in := []bannerpkg.RegionRuleInput{
		{Regions: []string{"EU"}, DefaultBehavior: bannerpkg.BehaviorOptIn},
		{Regions: []string{"US"}, DefaultBehavior: bannerpkg.BehaviorOptOut},
		{Regions: []string{"GB"}, DefaultBehavior: bannerpkg.BehaviorOptIn, ReaskAfterRejectDays: days(n(200))},
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{RegionRules: &in}); err != nil {
		t.Fatal(err)
	}
	reask := func(country string) int {
		t.Helper()
		cfg, err := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{Country: country})
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Policy.ReaskAfterRejectDays
	}
	for c, want := range map[string]int{"FR": 180, "US": 365, "GB": 200, "JP": 180} {
		if got := reask(c); got != want {
			t.Errorf("defaults: %s gets %d days, want %d", c, got, want)
		}
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{ReaskAfterRejectDays: bannerpkg.Optional[int]{Set: true, Value: 90}}); err != nil {
		t.Fatal(err)
	}
	for c, want := range map[string]int{"FR": 90, "US": 90, "GB": 200} {
		if got := reask(c); got != want {
			t.Errorf("banner 90: %s gets %d days, want %d", c, got, want)
		}
	}
	if _, err := m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{ReaskAfterRejectDays: bannerpkg.Optional[int]{Set: true, Null: true}}); err != nil {
		t.Fatal(err)
	}
	if got := reask("FR"); got != 180 {
		t.Errorf("after null: %d, want the default 180", got)
	}
	for _, v := range []int{0, 731} {
		if _, err := m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{ReaskAfterRejectDays: bannerpkg.Optional[int]{Set: true, Value: v}}); core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), "reaskAfterRejectDays") {
			t.Errorf("%d days: %v, want invalid naming reaskAfterRejectDays", v, err)
		}
		bad := []bannerpkg.RegionRuleInput{{Regions: []string{"EU"}, DefaultBehavior: bannerpkg.BehaviorOptIn, ReaskAfterRejectDays: n(v)}}
		if _, err := m.Banners.PatchBanner(ctx, org, s.ID, bannerpkg.BannerPatch{RegionRules: &bad}); core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), "regionRules[0].reaskAfterRejectDays") {
			t.Errorf("rule with %d days: %v, want invalid naming regionRules[0].reaskAfterRejectDays", v, err)
		}
	}
}

// TestComplianceReaskShort: consent.reask-short flags an opt-in rule in Europe whose refusals
// last under 180 days, naming the rule's field, and nothing with the defaults.
func TestComplianceReaskShort(t *testing.T) {
	t.Parallel()
	lib := complianceCatalog(t)
	ninety := 90
	report := func(b func(*bannerpkg.Banner)) []scan.Finding {
		in := cleanInput()
		in.Banner.RegionRules = bannerpkg.RegionPresets()[0].RegionRules
		b(in.Banner)
		return withRule(scan.EvaluateCompliance(in, nil, "", lib, reportTime), "consent.reask-short")
	}
	if f := report(func(*bannerpkg.Banner) {}); len(f) != 0 {
		t.Errorf("defaults: %+v", f)
	}
	f := report(func(b *bannerpkg.Banner) { b.ReaskAfterRejectDays = &ninety })
	if len(f) != 1 || f[0].Severity != scan.SeverityWarning || *f[0].Evidence.Field != "banner.reaskAfterRejectDays" || !strings.Contains(f[0].Detail, "90 days") || !strings.Contains(f[0].Detail, "AT, BE") {
		t.Errorf("banner 90 days: %+v", f)
	}
	f = report(func(b *bannerpkg.Banner) { b.RegionRules[0].ReaskAfterRejectDays = &ninety })
	if len(f) != 1 || *f[0].Evidence.Field != "banner.regionRules[0].reaskAfterRejectDays" {
		t.Errorf("rule 90 days: %+v", f)
	}
}
