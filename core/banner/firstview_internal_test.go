package banner

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestCompactRules: the first view's rules keep each rule, in order, with its patterns joined
// by a space, less those another pattern of the same rule covers (#43) and those that do not
// parse; a rule with a pattern on an unheld host keeps them all.
func TestCompactRules(t *testing.T) {
	br := &BlockingRules{SiteWide: true, Rules: []BlockingRule{
		{ServiceSlug: "hubspot", CategorySlug: "marketing", Patterns: []string{"js.hs-analytics.net/", "*.hs-analytics.net", "js.hs-scripts.com/", "bad pattern"}},
		{ServiceSlug: "maps", CategorySlug: "marketing", Patterns: []string{"maps.googleapis.com/maps/api/js", "maps.googleapis.com/maps/api/", "maps.googleapis.com/maps/api/"}},
		{ServiceSlug: "gtm", CategorySlug: "statistics", Patterns: []string{"www.googletagmanager.com/gtm.js", "www.googletagmanager.com/gtm.js?id=GTM-", "www.googletagmanager.com/gtag/js?id=G-"}},
		{ServiceSlug: "glob", CategorySlug: "marketing", Patterns: []string{"connect.facebook.net/*/fbevents.js", "connect.facebook.net/en_US/fbevents.js", "connect.facebook.net/signals/"}},
		{ServiceSlug: "param", CategorySlug: "marketing", Patterns: []string{"x.example/js?id=AB", "x.example/js?id=A", "x.example/js?v=A"}},
		{ServiceSlug: "sub", CategorySlug: "marketing", Patterns: []string{"*.a.example", "*.b.a.example/x", "a.example/y"}},
		{ServiceSlug: "empty", CategorySlug: "marketing", Patterns: nil},
	}}
	got := CompactRules(br, nil)
	want := &FirstViewRules{SiteWide: true, Rules: [][3]string{
		{"hubspot", "marketing", "*.hs-analytics.net js.hs-scripts.com/"},
		{"maps", "marketing", "maps.googleapis.com/maps/api/"},
		{"gtm", "statistics", "www.googletagmanager.com/gtm.js www.googletagmanager.com/gtag/js?id=G-"},
		{"glob", "marketing", "connect.facebook.net/*/fbevents.js connect.facebook.net/en_US/fbevents.js connect.facebook.net/signals/"},
		{"param", "marketing", "x.example/js?id=A x.example/js?v=A"},
		{"sub", "marketing", "*.a.example"},
		{"empty", "marketing", ""},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CompactRules:\n got %q\nwant %q", got.Rules, want.Rules)
	}
	// Unheld hosts: which pattern matches first decides, so nothing is left out.
	got = CompactRules(&BlockingRules{Rules: br.Rules[:1]}, []string{"js.hs-analytics.net"})
	if r := got.Rules[0][2]; r != "js.hs-analytics.net/ *.hs-analytics.net js.hs-scripts.com/" {
		t.Errorf("with an unheld host: %q", r)
	}
	if CompactRules(nil, nil) != nil {
		t.Error("CompactRules(nil) is not nil")
	}
}

// TestFirstViewLeavesOut: the first view's configuration leaves out the services, the default
// vendors, the GPC notice where the signal changes nothing and the banner's unset URLs, and
// keeps vendors that are not the defaults (even none).
func TestFirstViewLeavesOut(t *testing.T) {
	cfg := &PublicConfig{
		Texts:  map[string]string{"body": "b", "gpcNotice": "g", "blockedText": "x", "preferencesTitle": "p"},
		Banner: &Banner{CookieExpirationDays: 365, Colors: map[string]string{}},
		Categories: []PublicCategory{{Category: &Category{Slug: "marketing", Name: "Marketing"},
			Services: []*Service{{Slug: "youtube", Label: "YouTube"}}}},
		BlockingRules: &BlockingRules{SiteWide: true, Rules: []BlockingRule{{ServiceSlug: "youtube", CategorySlug: "marketing", Patterns: []string{"www.youtube.com/embed"}}}},
		Policy:        &Policy{Vendors: VendorConsents(), GPC: GPCPolicy{Off: []string{}}},
	}
	b, err := json.Marshal(cfg.FirstView())
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, no := range []string{"youtube\",\"label", "YouTube", "vendors", "gpcNotice", "blockedText", "preferencesTitle", "logoUrl", "cookieDomain", "serviceSlug"} {
		if strings.Contains(s, no) {
			t.Errorf("the first view carries %q: %s", no, s)
		}
	}
	if !strings.Contains(s, `"rules":[["youtube","marketing","www.youtube.com/embed"]]`) {
		t.Errorf("the first view's rules are not in the compact form: %s", s)
	}
	cfg.Policy = &Policy{Vendors: []VendorConsent{}, GPC: GPCPolicy{Honored: true, Off: []string{"marketing"}}}
	b, _ = json.Marshal(cfg.FirstView())
	if s := string(b); !strings.Contains(s, `"vendors":[]`) || !strings.Contains(s, "gpcNotice") {
		t.Errorf("no vendors and an honoured signal: %s", s)
	}
}
