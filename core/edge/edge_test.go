package edge_test

import (
	"net/url"
	"os"
	"regexp"
	"sync"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/edge"
	"github.com/consentd/consentd/library"
)

var (
	catalogOnce sync.Once
	catalog     *library.Catalog
)

func lib(t testing.TB) *library.Catalog {
	catalogOnce.Do(func() {
		var err error
		if catalog, err = library.Load(""); err != nil {
			t.Fatal(err)
		}
	})
	return catalog
}

// shop is a site with the preset "GDPR in Europe, US state laws, nothing elsewhere", site-wide
// blocking, and a YouTube service in marketing.
func shop(t testing.TB) *edge.RuleSet {
	cats := []*banner.Category{{ID: "c1", Slug: "essential", IsRequired: true}, {ID: "c2", Slug: "statistics"}, {ID: "c3", Slug: "marketing"}}
	var rules []banner.RegionRule
	for _, p := range banner.RegionPresets() {
		if p.ID == banner.PresetGDPRUSLaws {
			rules = p.RegionRules
		}
	}
	b := &banner.Banner{DefaultBehavior: banner.BehaviorOptIn, SiteWideBlocking: true, ConsentVersion: 2, RegionRules: rules}
	svcs := []*banner.Service{{Slug: "my-widget", CategoryID: "c3", BlockingPatterns: []string{"widget.example.net/embed"}}}
	return edge.RuleSetOf(lib(t), &core.Site{ProjectKey: "pk_test"}, b, cats, svcs)
}

func TestPlacesFollowTheRegionalRules(t *testing.T) {
	t.Parallel()
	rs := shop(t)
	for _, c := range []struct {
		loc      core.Location
		behavior string
	}{
		{core.Location{Country: "FR"}, banner.BehaviorOptIn},
		{core.Location{Country: "CH"}, banner.BehaviorOptIn},
		{core.Location{Country: "JP"}, banner.BehaviorNoBanner},
		{core.Location{Country: "US", Region: "US-CA"}, banner.BehaviorOptOut},
		{core.Location{Country: "US"}, banner.BehaviorOptOut},
		{core.Location{}, banner.BehaviorOptIn},
		{core.Location{Country: "XX"}, banner.BehaviorOptIn},
	} {
		if p := rs.PolicyAt(c.loc); p == nil || p.Behavior != c.behavior {
			t.Errorf("%+v: policy %+v, want behaviour %s", c.loc, p, c.behavior)
		}
	}
	// The table agrees with the banner's own resolution everywhere.
	b := &banner.Banner{RegionRules: banner.RegionPresets()[0].RegionRules, DefaultBehavior: banner.BehaviorOptIn}
	for _, c := range core.Countries() {
		want := b.BehaviorFor(b.VisitorRule(core.Location{Country: c}))
		if got := rs.PolicyAt(core.Location{Country: c}).Behavior; got != want {
			t.Errorf("%s: %s, want %s", c, got, want)
		}
	}
}

func TestDecisionFromTheCookie(t *testing.T) {
	t.Parallel()
	rs := shop(t)
	m := rs.Compile()
	gtag, _ := url.Parse("https://www.googletagmanager.com/gtag/js?id=G-ABC123")
	yt, _ := url.Parse("https://connect.facebook.net/en_US/fbevents.js")
	widget, _ := url.Parse("https://widget.example.net/embed/1")
	accept := "a=b; consentd=" + url.PathEscape(`{"v":2,"id":"x","c":{"essential":true,"statistics":true,"marketing":false},"a":"custom"}`) + "; z=1"
	old := "consentd=" + url.PathEscape(`{"v":1,"c":{"essential":true,"statistics":true,"marketing":true}}`)
	partial := "consentd=" + url.PathEscape(`{"v":2,"c":{"essential":true,"statistics":true}}`)
	fr, jp, ca := core.Location{Country: "FR"}, core.Location{Country: "JP"}, core.Location{Country: "US", Region: "US-CA"}
	for _, c := range []struct {
		name        string
		loc         core.Location
		cookie      string
		gpc         bool
		gtag, yt, w bool // held
	}{
		{"opt-in, no decision", fr, "", false, true, true, true},
		{"opt-in, statistics accepted", fr, accept, false, false, true, true},
		{"opt-in, decision of an older version", fr, old, false, true, true, true},
		{"opt-in, decision missing a category", fr, partial, false, true, true, true},
		{"opt-in, malformed cookie", fr, "consentd=%7Bnot json", false, true, true, true},
		{"no banner", jp, "", false, false, false, false},
		{"no banner, refusal stored", jp, "consentd=" + url.PathEscape(`{"v":2,"c":{"essential":true,"statistics":false,"marketing":false}}`), false, true, true, true},
		{"opt-out", ca, "", false, false, false, false},
		{"opt-out with GPC", ca, "", true, false, true, true},
	} {
		v := m.Visitor(c.loc, c.cookie, c.gpc)
		for _, e := range []struct {
			u    *url.URL
			want bool
		}{{gtag, c.gtag}, {yt, c.yt}, {widget, c.w}} {
			if got := v.Hold(e.u) != nil; got != e.want {
				t.Errorf("%s: %s held %v, want %v (allowed %v)", c.name, e.u, got, e.want, v.Allowed)
			}
		}
		if v.HoldsAny() != (c.gtag || c.yt || c.w) {
			t.Errorf("%s: HoldsAny %v", c.name, v.HoldsAny())
		}
	}
	v := m.Visitor(fr, "", false)
	if r := v.HoldHost("www.googletagmanager.com"); r == nil {
		t.Error("preconnect host of a held tag not held")
	}
	pixel, _ := url.Parse("https://www.facebook.com/tr?id=1234567890123456&ev=PageView&noscript=1")
	if v.Hold(pixel) != nil || v.HoldResource(pixel) == nil {
		t.Error("the Meta pixel's image is not held as a resource (or is as a script)")
	}
	if r := v.HoldHost("cdn.shop.example"); r != nil {
		t.Errorf("a host no rule names is held: %+v", r)
	}
}

func TestCookieValue(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]string{
		"consentd=abc":              "abc",
		"x=1;consentd=abc; y=2":     "abc",
		"x=1;   consentd=a%20b;":    "a%20b",
		"notconsentd=1; consentd=2": "2",
		"consentd=1; consentd=2":    "1",
		"x=consentd=3":              "",
		"":                          "",
	} {
		if got := edge.CookieValue(h); got != want {
			t.Errorf("CookieValue(%q) = %q, want %q", h, got, want)
		}
	}
}

// TestCookieNameIsTheRuntimes pins the cookie's name to the runtime's (bannerjs/site.js).
func TestCookieNameIsTheRuntimes(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../../adapters/httpapi/bannerjs/site.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`export var COOKIE = '([^']*)'`).FindSubmatch(src)
	if m == nil || string(m[1]) != edge.CookieName {
		t.Fatalf("site.js COOKIE %q, core/edge CookieName %q", m, edge.CookieName)
	}
}

func TestUnheldHostsAreNeverHeld(t *testing.T) {
	t.Parallel()
	cats := []*banner.Category{{ID: "c1", Slug: "essential", IsRequired: true}, {ID: "c2", Slug: "statistics"}, {ID: "c3", Slug: "marketing"}}
	b := &banner.Banner{DefaultBehavior: banner.BehaviorOptIn, SiteWideBlocking: true, ConsentVersion: 1, GCMExcludeVendor: true}
	rs := edge.RuleSetOf(lib(t), &core.Site{ProjectKey: "pk"}, b, cats, nil)
	if len(rs.UnheldHosts) == 0 {
		t.Fatal("no unheld hosts under Consent Mode advanced")
	}
	u, _ := url.Parse("https://www.googletagmanager.com/gtag/js?id=G-ABC123")
	if r := rs.Compile().Visitor(core.Location{Country: "DE"}, "", false).Hold(u); r != nil {
		t.Fatalf("gtag held under Consent Mode advanced: %+v", r)
	}
	b.SiteWideBlocking = false
	rs = edge.RuleSetOf(lib(t), &core.Site{ProjectKey: "pk"}, b, cats, nil)
	if rs.Compile().Visitor(core.Location{Country: "DE"}, "", false).HoldsAny() {
		t.Fatal("something held without site-wide blocking")
	}
}
