package crawler

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
)

// TestReport: the kernel's report of a result lists each service's cookies under it, with the
// lifetime in words and seconds; the cookies and storage keys no service claims only for the
// browser's scans (a static scan's Set-Cookie headers are not what a browser held); mentions
// apart from detections; a page error's status null when none came; the verification as it
// is; and never a null list.
func TestReport(t *testing.T) {
	ver := &core.Verification{Banner: core.BannerNone, States: []core.VerifiedState{}, Unreached: []core.UnreachedState{}}
	res := &Result{Mode: core.ScanDeep,
		Pages: []Page{{URL: "https://shop.example/", Status: 200}, {URL: "https://shop.example/old", Status: 404}},
		Services: []DetectedService{{Slug: "google-analytics", Name: "Google Analytics", Category: "statistics",
			TrackingIDs: []string{"G-REPORT1"}, Pages: []string{"https://shop.example/"}}},
		Mentions: []Mention{
			{Slug: "hotjar", Name: "Hotjar", Category: "statistics", TrackingIDs: []string{"7654321"}, Pages: []string{"https://shop.example/old"}},
			{Slug: "google-analytics", Name: "Google Analytics", Category: "statistics", Detected: true, TrackingIDs: []string{"G-RETIRED9"}},
		},
		Cookies: []ObservedCookie{
			{Name: "_ga", Domain: "shop.example", Path: "/", MaxAge: 400 * 24 * time.Hour, Service: "google-analytics", Pages: []string{"https://shop.example/"}, Secure: true},
			{Name: "mystery", Domain: "tracker.example", Session: true, ThirdParty: true, Pages: []string{"https://shop.example/"}},
		},
		Storage: []StorageKey{
			{Kind: core.StorageSession, Name: "_hjSession", Host: "shop.example", Service: "hotjar"},
			{Kind: core.StorageLocal, Name: "cart", Host: "shop.example", Pages: []string{"https://shop.example/"}},
		},
		Errors: []PageError{{URL: "https://shop.example/old", Status: 404, Message: "answered 404 Not Found"},
			{URL: "https://shop.example/gone", Message: "refused"}},
		Verification: ver,
	}
	out := res.Report()
	if out.ModeUsed != core.ScanDeep || out.PagesScanned != 2 || out.Verification != ver {
		t.Errorf("mode %s, %d pages, verification %p", out.ModeUsed, out.PagesScanned, out.Verification)
	}
	if len(out.DetectedServices) != 1 || len(out.DetectedServices[0].Cookies) != 1 {
		t.Fatalf("services %+v", out.DetectedServices)
	}
	if c := out.DetectedServices[0].Cookies[0]; c.Name != "_ga" || c.MaxAgeSeconds != 400*24*3600 || c.Duration == "" || !c.Secure || len(c.SeenAt) != 1 {
		t.Errorf("the service's cookie %+v", c)
	}
	if u := out.UnrecognizedCookies; len(u) != 2 || u[0].Kind != core.StorageCookie || u[0].Name != "mystery" || !u[0].ThirdParty ||
		u[1].Kind != core.StorageLocal || u[1].Name != "cart" || u[1].Domain != "shop.example" {
		t.Errorf("unrecognized cookies %+v", u)
	}
	if m := out.Mentions; len(m) != 2 || m[0].Slug != "hotjar" || m[0].TrackingIDs[0] != "7654321" || !m[1].Detected || m[1].Pages == nil {
		t.Errorf("mentions %+v", m)
	}
	if e := out.PageErrors; len(e) != 2 || e[0].Status == nil || *e[0].Status != 404 || e[1].Status != nil {
		t.Errorf("page errors %+v", e)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.NewReplacer(`"status":null`, "", `"projectKey":null`, "").Replace(string(b)), "null") {
		t.Errorf("a null list in %s", b)
	}
	for _, c := range []string{`"PreConsent":[]`, `"UnrecognizedScripts":[]`} {
		if !strings.Contains(string(b), c) {
			t.Errorf("no %s in %s", c, b)
		}
	}

	res.Mode = core.ScanStatic
	if out := res.Report(); out.ModeUsed != core.ScanStatic || len(out.UnrecognizedCookies) != 0 || out.UnrecognizedCookies == nil {
		t.Errorf("static scan: mode %s, unrecognized cookies %+v", out.ModeUsed, out.UnrecognizedCookies)
	}
}
