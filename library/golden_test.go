package library

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// top40 are the 40 most prevalent services; the golden file pins what the catalog says about
// them so that a change to any of them is a reviewed diff.
var top40 = []string{
	"google-tag-manager", "google-analytics", "google-ads", "google-ad-manager", "google-adsense",
	"google-funding-choices", "google-fonts", "google-maps", "youtube", "recaptcha",
	"meta-pixel", "facebook-sdk", "microsoft-clarity", "microsoft-uet", "yandex-metrica",
	"hotjar", "tiktok-pixel", "linkedin-insight", "x-pixel", "pinterest-tag",
	"snap-pixel", "reddit-pixel", "criteo", "amazon-ads", "hubspot",
	"klaviyo", "cookiebot", "onetrust", "usercentrics", "didomi",
	"cloudflare", "vimeo", "stripe", "paypal", "tawk-to",
	"intercom", "zendesk", "matomo", "adobe-analytics", "tealium",
}

type goldenCookie struct {
	Name     string `json:"name"`
	Match    string `json:"match"`
	Duration string `json:"duration"`
}

type goldenService struct {
	Slug        string         `json:"slug"`
	Category    string         `json:"category"`
	Cookies     []goldenCookie `json:"cookies"`
	Scripts     []string       `json:"scripts"`
	Resources   []string       `json:"resources"`
	TrackingIDs []string       `json:"trackingIds"`
}

// TestTopServicesGolden compares the 40 most prevalent services with testdata/top40.golden.json.
// Run `go test ./library -run TestTopServicesGolden -update` to rewrite it after a reviewed change.
func TestTopServicesGolden(t *testing.T) {
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]goldenService, 0, len(top40))
	var missing []string
	for _, slug := range top40 {
		s, ok := c.Service(slug)
		if !ok {
			missing = append(missing, slug)
			continue
		}
		g := goldenService{Slug: s.Slug, Category: s.Category, Cookies: []goldenCookie{},
			Scripts: nonNil(s.Scripts), Resources: nonNil(s.Resources), TrackingIDs: []string{}}
		for _, ck := range s.Cookies {
			g.Cookies = append(g.Cookies, goldenCookie{Name: ck.Name, Match: ck.Match, Duration: ck.Duration})
		}
		for _, id := range s.TrackingIDs {
			g.TrackingIDs = append(g.TrackingIDs, id.Pattern)
		}
		out = append(out, g)
	}
	if len(missing) > 0 {
		t.Fatalf("%d of the top 40 services are missing from the catalog: %v", len(missing), missing)
	}
	got, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "top40.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("top 40 services differ from %s; review the change and rerun with -update.\n%s", golden, firstDiff(want, got))
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// firstDiff shows the first differing line of two texts with its line number.
func firstDiff(want, got []byte) string {
	w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl []byte
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if !bytes.Equal(wl, gl) {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + string(wl) + "\n  got:  " + string(gl)
		}
	}
	return ""
}
