package banner_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/library"
)

// TestBrowserPatternParity checks the runtime's matcher against library.Pattern on one table.
//
// This is the one browser test that does not run on the real server, and why: it feeds the
// runtime crafted blocking patterns, malformed ones included ("bad pattern", "noperiod/x",
// "a..example.com"), to check that the runtime refuses exactly what library.ParsePattern
// refuses. The real server only serves patterns of library services, which the library has
// already validated, so it cannot produce these. A minimal config endpoint stands in for it;
// banner.js itself is served by the package's Handler.
func TestBrowserPatternParity(t *testing.T) {
	t.Parallel()
	patterns := []string{
		"www.googletagmanager.com/gtag/js?id=G-", "*.hotjar.com", "connect.facebook.net/en_US/fbevents.js",
		"cdn.example.com/a/*/b.js", "Static.Example.org/x", "tags.example.net?k=v w", "bad pattern",
		"https://scheme.example/x", "noperiod/x", "q.example.com/p?id=a+b", "g.example.com/[ab]*.js",
		"frag.example.com/x#y", "under_score.example.com", "xn--bcher-kva.example/b", "a..example.com", "ümlaut.example",
	}
	urls := []string{
		"https://www.googletagmanager.com/gtag/js?id=G-ABC", "https://www.googletagmanager.com/gtag/js?id=AW-1",
		"http://www.googletagmanager.com:8080/gtag/js?x=1&id=G-Z#f", "https://WWW.GoogleTagManager.com/gtag/js/x?id=G-1",
		"https://static.hotjar.com/c/hotjar.js", "https://hotjar.com/", "https://nothotjar.com/", "https://hotjar.com.evil.io/",
		"https://connect.facebook.net/en_US/fbevents.js?v=2", "https://connect.facebook.net/de_DE/fbevents.js",
		"https://cdn.example.com/a/v1/b.js", "https://cdn.example.com/a/v1/v2/b.js", "https://static.example.org/x/y",
		"https://static.example.org/xy", "https://tags.example.net/?k=v%20w", "https://tags.example.net/?k=v+wx",
		"https://tags.example.net/?k=v;w", "https://scheme.example/x", "https://q.example.com/p?id=a%2Bb",
		"https://q.example.com/p?id=a+b", "https://g.example.com/a1.js", "https://g.example.com/c1.js",
		"https://g.example.com/a/1.js", "https://frag.example.com/x#y", "https://under_score.example.com/",
		"https://bücher.example/b", "https://xn--bcher-kva.example/b/c", "https://ümlaut.example/",
	}
	// browserOnly lists where the runtime rightly differs from library.Pattern.MatchString: the
	// browser fetches an internationalised host in punycode (which is how patterns spell it),
	// while the Go matcher compares the Unicode host of the string as written.
	browserOnly := map[string]string{"https://bücher.example/b": "r13"}
	var rules []map[string]any
	var compiled []library.Pattern
	var slugs []string
	for i, p := range patterns {
		slug := fmt.Sprintf("r%d", i)
		rules = append(rules, map[string]any{"serviceSlug": slug, "categorySlug": "marketing", "patterns": []string{p}})
		if cp, err := library.ParsePattern(p); err == nil {
			compiled = append(compiled, cp)
			slugs = append(slugs, slug)
		}
	}
	const pk = "pk_parity"
	cfg, err := json.Marshal(map[string]any{
		"projectKey": pk, "jurisdiction": "gdpr",
		"banner": map[string]any{"template": "floating", "position": "bottom_right", "colors": map[string]any{},
			"textOverrides": map[string]any{}, "textTranslations": map[string]any{}, "defaultBehavior": "opt_in",
			"closeButtonBehavior": "dismiss", "cookieExpirationDays": 365, "consentVersion": 1},
		"categories": []map[string]any{
			{"slug": "essential", "name": "Essential", "isRequired": true, "sortOrder": 0, "services": []any{}},
			{"slug": "marketing", "name": "Marketing", "isRequired": false, "sortOrder": 1, "services": []any{}},
		},
		"blockingRules": map[string]any{"siteWide": true, "rules": rules},
		"policy":        standInPolicy(),
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api/v1/public/banner.js", http.StripPrefix("/api/v1/public", bannerjs.Handler()))
	mux.HandleFunc("GET /api/v1/public/"+pk+"/config", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(cfg)
	})
	api := httptest.NewServer(mux)
	t.Cleanup(api.Close)

	s := newSite(t, api.URL)
	ctx := tab(t)
	snippet := `<script src="` + api.URL + `/api/v1/public/banner.js?v=` + bannerjs.Version() + `" data-project-key="` + pk + `"></script>`
	navigate(t, ctx, s.page("parity", "en", snippet, "", ""))
	waitFor(t, ctx, ready)
	b, _ := json.Marshal(urls)
	var got []string
	eval(t, ctx, `(`+string(b)+`).map(function (u) { var r = window.consentd.blockingRuleFor(u); return r ? r.service : ''; })`, &got)
	for i, u := range urls {
		want := ""
		for j, p := range compiled {
			if p.MatchString(u) {
				want = slugs[j]
				break
			}
		}
		if w, ok := browserOnly[u]; ok {
			want = w
		}
		if got[i] != want {
			t.Errorf("%s: runtime rule %q, library %q", u, got[i], want)
		}
	}
	noViolations(t, ctx)
}

// TestRuntimeDecidesNothing: the runtime applies the configuration's policy and reads none of
// what the server decides it from (the banner's default behaviour and vendor exclusions, the
// jurisdiction, which categories are required, Consent Mode basic or advanced): a runtime that reads them again recomputes a
// rule the server computes (core.DecidePolicy).
func TestRuntimeDecidesNothing(t *testing.T) {
	t.Parallel()
	js := string(bannerjs.Script()) + string(bannerjs.MoreScript()) // the first view and what loads later
	for _, input := range []string{"defaultBehavior", "jurisdiction", "gcmExcludeVendor", "consentMode", "storefrontIntegration",
		"isRequired", core.JurisdictionCCPA, core.JurisdictionGDPR} {
		if strings.Contains(js, input) {
			t.Errorf("the runtime reads %q: the decision it makes from it belongs in core.DecidePolicy", input)
		}
	}
}

// standInPolicy is the policy the server decides for the stand-in configurations of the tests
// that do not run on the real server: an opt_in banner with an essential and a marketing
// category, for an EU visitor.
func standInPolicy() *banner.Policy {
	cats := []*banner.Category{{Slug: library.CategoryEssential, IsRequired: true}, {Slug: library.CategoryMarketing, SortOrder: 1}}
	return banner.DecidePolicy(&banner.Banner{DefaultBehavior: banner.BehaviorOptIn}, cats, banner.VisitorRule{Jurisdiction: core.JurisdictionGDPR})
}
