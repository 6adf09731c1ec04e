package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core/i18n"
)

// firstViewServices are the library services of the first-view benchmark site: 15 common ones,
// with about 90 documented cookies between them.
var firstViewServices = []string{"google-analytics", "hotjar", "microsoft-clarity", "microsoft-uet", "linkedin-insight",
	"hubspot", "youtube", "meta-pixel", "google-ads", "intercom", "stripe", "pinterest-tag", "x-pixel", "snap-pixel", "tiktok-pixel"}

// BenchmarkFirstViewBytes measures everything the browser fetches from consentd before the
// banner is visible, for a site with the 15 library services of firstViewServices and site-wide
// blocking on, in each built-in language: the loader (runtime, styles and the configuration
// inlined), gzipped as served. It reports the largest language's figure (#28's budget: 12,288
// bytes) and logs the services' and cookies' count.
//
// Run: go test ./adapters/httpapi/ -run '^$' -bench FirstViewBytes -benchtime 1x
func BenchmarkFirstViewBytes(b *testing.B) {
	e := newEnvWith(b, "sqlite://"+filepath.Join(b.TempDir(), "api.db"), bannerjs.Script())
	id, pk := e.site()
	for _, slug := range firstViewServices {
		e.want(e.do("POST", "/api/v1/sites/"+id+"/services/import", map[string]any{"slug": slug}), 201)
	}
	var cfg struct {
		Categories []struct {
			Services []struct {
				Cookies []json.RawMessage `json:"cookies"`
			} `json:"services"`
		} `json:"categories"`
	}
	if err := json.Unmarshal(e.want(e.raw("GET", "/api/v1/public/"+pk+"/config", "", ""), 200).body, &cfg); err != nil {
		b.Fatal(err)
	}
	services, cookies := 0, 0
	for _, c := range cfg.Categories {
		for _, s := range c.Services {
			services++
			cookies += len(s.Cookies)
		}
	}
	fetch := func(lang string) int {
		req, _ := http.NewRequest("GET", e.srv.URL+"/api/v1/public/"+pk+"/loader.js?lang="+lang, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" {
			b.Fatalf("loader %s: %d %q %v", lang, res.StatusCode, res.Header.Get("Content-Encoding"), err)
		}
		return len(body)
	}
	largest, lang := 0, ""
	for _, l := range i18n.Languages() {
		if n := fetch(l); n > largest {
			largest, lang = n, l
		}
	}
	for b.Loop() {
		fetch(lang)
	}
	b.ReportMetric(float64(largest), "bytes-gz")
	b.ReportMetric(0, "ns/op")
	b.Logf("first view of a site with %d services and %d cookies, site-wide blocking on: the loader is %d bytes gzipped in %s, its largest language (budget 12288)",
		services, cookies, largest, lang)
}
