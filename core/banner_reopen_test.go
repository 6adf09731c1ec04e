package core_test

import (
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

func TestCookieDomainFor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		site, domain, want string
	}{
		{"https://shop.example.com", ".example.com", "example.com"},
		{"https://shop.example.com", "Example.COM", "example.com"},
		{"https://shop.example.com/path", "shop.example.com", "shop.example.com"},
		{"https://a.b.example.co.uk", ".b.example.co.uk", "b.example.co.uk"},
		{"https://a.b.example.co.uk", "example.co.uk", "example.co.uk"},
		{"https://a.test.example", ".test.example", "test.example"},
		{"https://shop.example.com", ".com", ""},
		{"https://a.example.co.uk", "co.uk", ""},
		{"https://shop.example.com", "other.com", ""},
		{"https://shop.example.com", "hop.example.com", ""},
		{"https://shop.example.com", "ample.com", ""},
		{"https://127.0.0.1:8080", "0.0.1", ""},
		{"https://shop.example.com", "", ""},
		{"https://shop.example.com", "example.com/x", ""},
		{"https://shop.example.com", "*.example.com", ""},
	}
	for _, c := range cases {
		got, err := banner.CookieDomainFor(c.site, c.domain)
		if c.want == "" {
			if core.ErrorCode(err) != core.CodeInvalid {
				t.Errorf("CookieDomainFor(%q, %q) = %q, %v; want a validation error", c.site, c.domain, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("CookieDomainFor(%q, %q) = %q, %v; want %q", c.site, c.domain, got, err, c.want)
		}
	}
}

func TestPatchBannerReopenAndCookieDomain(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	b, err := m.Banners.Banner(ctx, org, s.ID)
	if err != nil || !b.ReopenButton || b.ReopenPosition != "bottom_left" || b.ReopenLabel != nil || b.CookieDomain != nil {
		t.Fatalf("defaults: %+v %v", b, err)
	}
	b, err = m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{
		ReopenButton: ptr(false), ReopenPosition: ptr("top_right"),
		ReopenLabel:  banner.Optional[string]{Set: true, Value: "Cookies"},
		CookieDomain: banner.Optional[string]{Set: true, Value: ".Shop.Example"},
	})
	if err != nil || b.ReopenButton || b.ReopenPosition != "top_right" || *b.ReopenLabel != "Cookies" || *b.CookieDomain != "shop.example" {
		t.Fatalf("patched: %+v %v", b, err)
	}
	b, err = m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{
		ReopenLabel: banner.Optional[string]{Set: true, Null: true}, CookieDomain: banner.Optional[string]{Set: true, Null: true},
	})
	if err != nil || b.ReopenLabel != nil || b.CookieDomain != nil {
		t.Fatalf("cleared: %+v %v", b, err)
	}
	for name, p := range map[string]banner.BannerPatch{
		"corner":      {ReopenPosition: ptr("center")},
		"empty label": {ReopenLabel: banner.Optional[string]{Set: true, Value: "  "}},
		"long label":  {ReopenLabel: banner.Optional[string]{Set: true, Value: string(make([]byte, 61))}},
		"control":     {ReopenLabel: banner.Optional[string]{Set: true, Value: "a\x00b"}},
		"other site":  {CookieDomain: banner.Optional[string]{Set: true, Value: "other.example"}},
		"suffix":      {CookieDomain: banner.Optional[string]{Set: true, Value: "example"}},
	} {
		_, err := m.Banners.PatchBanner(ctx, org, s.ID, p)
		if core.ErrorCode(err) != core.CodeInvalid {
			t.Errorf("%s: %v, want validation_error", name, err)
		}
	}
}
