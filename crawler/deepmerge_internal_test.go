package crawler

import (
	"net/url"
	"testing"
)

// TestConsentdOwnResources: every public resource of consentd is its own on any host and under
// a path prefix, the runtime and a site's loader are no unrecognized script, and nothing else is.
func TestConsentdOwnResources(t *testing.T) {
	for _, c := range []struct {
		url          string
		own, runtime bool
	}{
		{"https://cmp.elsewhere.example/api/v1/public/banner.js?v=abc", true, true},
		{"https://cmp.elsewhere.example/api/v1/public/pk_k1/loader.js", true, true},
		{"https://www.shop.example/consent/api/v1/public/pk_k1/loader.js#x", true, true},
		{"https://cmp.elsewhere.example/api/v1/public/pk_k1/config?lang=en", true, false},
		{"https://cmp.elsewhere.example/api/v1/public/pk_k1/consent", true, false},
		{"https://cmp.elsewhere.example/api/v1/public/pk_k1/declaration", true, false},
		{"https://cmp.elsewhere.example/api/v1/public/pk_k1/cookies", true, false},
		{"https://cdn.vendor.example/js/banner.js", false, false},
		{"https://cdn.vendor.example/api/v1/public/pk_k1/tracker.js", false, false},
		{"https://cdn.vendor.example/api/v1/sites", false, false},
	} {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := consentdOwn(u); got != c.own {
			t.Errorf("consentdOwn(%s) = %v, want %v", c.url, got, c.own)
		}
		if got := consentdRuntime(c.url); got != c.runtime {
			t.Errorf("consentdRuntime(%s) = %v, want %v", c.url, got, c.runtime)
		}
	}
}

// TestPublicBase: the verifier finds the public endpoints of the runtime a page loads, from
// banner.js or a site's loader, on any host and under a prefix, as the runtime does.
func TestPublicBase(t *testing.T) {
	for src, want := range map[string]string{
		"https://consent.example/api/v1/public/banner.js?v=1":            "https://consent.example/api/v1/public",
		"https://consent.example/api/v1/public/pk_k1/loader.js":          "https://consent.example/api/v1/public",
		"https://www.shop.example/cmp/api/v1/public/pk_k1/loader.js#top": "https://www.shop.example/cmp/api/v1/public",
		"https://www.shop.example/static/consent.js":                     "https://www.shop.example/static",
		"": "",
	} {
		if got := publicBase(src); got != want {
			t.Errorf("publicBase(%q) = %q, want %q", src, got, want)
		}
	}
}
