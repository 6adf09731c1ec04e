package core_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
)

// TestErrorField: a validation error that names a field carries its path as a value, the
// message still starts with it, and the path survives wrapping.
func TestErrorField(t *testing.T) {
	t.Parallel()
	err := core.FieldErrorf("regionRules[2].regions[0]", "unknown region code %q", "XX")
	if err.Code != core.CodeInvalid || err.Field != "regionRules[2].regions[0]" || err.Message != `regionRules[2].regions[0]: unknown region code "XX"` {
		t.Errorf("FieldErrorf: %+v", err)
	}
	if got := core.ErrorField(fmt.Errorf("patch: %w", err)); got != "regionRules[2].regions[0]" {
		t.Errorf("ErrorField through a wrap = %q", got)
	}
	if got := core.ErrorField(core.Errorf(core.CodeInvalid, "name and url are required")); got != "" {
		t.Errorf("an error naming no field has field %q", got)
	}
	if got := core.ErrorField(errors.New("plain")); got != "" {
		t.Errorf("a plain error has field %q", got)
	}
}

// TestErrorFieldFromUseCases: the use cases' validation errors carry the path of the field they
// name, the same path their message starts with.
func TestErrorFieldFromUseCases(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	str := func(s string) *string { return &s }
	days := 0
	rules := func(r ...banner.RegionRuleInput) *[]banner.RegionRuleInput { return &r }
	for _, c := range []struct {
		patch banner.BannerPatch
		field string
	}{
		{banner.BannerPatch{Position: str("sideways")}, "position"},
		{banner.BannerPatch{Colors: map[string]string{"nope": "#fff"}}, "colors.nope"},
		{banner.BannerPatch{TextOverrides: map[string]string{"nope": "x"}}, "textOverrides.nope"},
		{banner.BannerPatch{CookieExpirationDays: &days}, "cookieExpirationDays"},
		{banner.BannerPatch{RegionRules: rules(banner.RegionRuleInput{Regions: []string{"FR"}, DefaultBehavior: banner.BehaviorOptIn},
			banner.RegionRuleInput{Regions: []string{"US", "XX"}, DefaultBehavior: banner.BehaviorOptOut})}, "regionRules[1].regions[1]"},
		{banner.BannerPatch{RegionRules: rules(banner.RegionRuleInput{Regions: []string{"FR"}, DefaultBehavior: "maybe"})}, "regionRules[0].defaultBehavior"},
		{banner.BannerPatch{RegionRules: rules(banner.RegionRuleInput{DefaultBehavior: banner.BehaviorOptIn})}, "regionRules[0].regions"},
	} {
		_, err := m.Banners.PatchBanner(ctx, org, s.ID, c.patch)
		var e *core.Error
		if !errors.As(err, &e) || e.Code != core.CodeInvalid {
			t.Errorf("%+v: %v, want a validation error", c.patch, err)
			continue
		}
		if e.Field != c.field || !strings.HasPrefix(e.Message, c.field+": ") {
			t.Errorf("%+v: field %q message %q, want field %q", c.patch, e.Field, e.Message, c.field)
		}
	}
	_, err := m.PublicBanner.RecordConsent(ctx, s.ProjectKey, consent.ConsentInput{Categories: map[string]bool{"nope": true}, ConsentVersion: 1})
	if got := core.ErrorField(err); got != "categories.nope" {
		t.Errorf("unknown category: field %q (%v)", got, err)
	}
}
