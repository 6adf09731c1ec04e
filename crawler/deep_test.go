package crawler

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/library"
)

// chromiumPath is where Debian's chromium package installs the browser (.ci/run installs it).
const chromiumPath = "/usr/bin/chromium"

var (
	poolOnce sync.Once
	pool     *Browsers
)

// testBrowsers is the test binary's browser pool. Without Chromium the test is skipped loudly,
// or fails when CI=true.
func testBrowsers(t testing.TB) *Browsers {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is missing: install it with apt-get install -y chromium", chromiumPath)
		}
		t.Skipf("!!! SKIPPING DEEP SCAN TEST: %s not found (apt-get update && apt-get install -y chromium) !!!", chromiumPath)
	}
	poolOnce.Do(func() { pool = NewBrowsers(BrowserOptions{Path: chromiumPath, Size: 1}) })
	return pool
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pool != nil {
		pool.Close()
	}
	os.Exit(code)
}

// deepExpectation is testdata/deep/<name>/expected.json, written by hand: what a deep scan must
// report, exactly.
type deepExpectation struct {
	// Services maps every detected slug to its exact tracking IDs.
	Services map[string][]string `json:"services"`
	// Cookies maps every cookie the browser held ("name@domain") to "slug duration", the slug
	// empty for an unrecognized one ("@domain" is left out for the site's own host).
	Cookies map[string]string `json:"cookies"`
	// Storage maps every storage key ("localStorage:name") to its slug ("" unrecognized).
	Storage map[string]string `json:"storage"`
	// PreConsent maps every service that acted before consent to what it left ("c:name" for a
	// cookie, "s:name" for a storage key) and "loaded" when it loaded something.
	PreConsent map[string][]string `json:"preConsent"`
	// Unrecognized is the exact set of unrecognized script srcs.
	Unrecognized []string `json:"unrecognized"`
	// Pages is the number of pages fetched.
	Pages int `json:"pages"`
	// PageErrors lists the URLs with a page error.
	PageErrors []string `json:"pageErrors"`
}

func deepSiteDirs(t testing.TB) []string {
	dirs, err := filepath.Glob(filepath.Join("..", "testdata", "deep", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no recorded deep sites: %v", err)
	}
	return dirs
}

// deepScanSite scans a recorded site in the browser, every host routed to the replay servers
// as in scanSite.
func deepScanSite(t testing.TB, dir string, ix *library.Index, b *Browsers, mutate func(*Options)) (*Result, error) {
	cfg := loadSiteConfig(t, dir)
	tb := newTestbed(t, siteHandler(dir, cfg))
	e := New(ix)
	tb.install(e, cfg.DNS)
	opts := Options{StartURLs: cfg.Start, MaxPages: cfg.MaxPages, MaxDepth: cfg.MaxDepth, MaxBodyBytes: cfg.MaxBodyBytes,
		StorefrontPassword: cfg.Password, IgnoreRobots: cfg.IgnoreRobots, Concurrency: 4, Timeout: 60 * time.Second}
	if mutate != nil {
		mutate(&opts)
	}
	return e.DeepCrawl(context.Background(), opts, b)
}

// facts turns a result into the items of deepExpectation, for precision and recall.
func facts(r *Result, site string) map[string]bool {
	out := map[string]bool{}
	for _, s := range r.Services {
		out["service "+s.Slug] = true
		for _, id := range s.TrackingIDs {
			out["id "+s.Slug+" "+id] = true
		}
	}
	for _, c := range r.Cookies {
		out["cookie "+cookieKey(c.Name, c.Domain, site)+" = "+strings.TrimSpace(c.Service+" "+durationWords(c.MaxAge))] = true
	}
	for _, k := range r.Storage {
		out["storage "+k.Kind+":"+k.Name+" = "+k.Service] = true
	}
	for _, p := range r.PreConsent {
		out["pre-consent "+p.Slug] = true
		for _, c := range p.Cookies {
			out["pre-consent "+p.Slug+" c:"+c] = true
		}
		for _, s := range p.Storage {
			out["pre-consent "+p.Slug+" s:"+s] = true
		}
		if len(p.Requests) > 0 {
			out["pre-consent "+p.Slug+" loaded"] = true
		}
	}
	for _, u := range r.Unrecognized {
		out["unrecognized "+u.Src] = true
	}
	return out
}

func cookieKey(name, domain, site string) string {
	if domain == site {
		return name
	}
	return name + "@" + domain
}

// durationWords is core.DescribeDuration's wording, which the crawler cannot import: the
// expected files say what a site owner reads.
func durationWords(d time.Duration) string {
	if d <= 0 {
		return "session"
	}
	day := 24 * time.Hour
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{365 * day, "year"}, {30 * day, "month"}, {day, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}} {
		if d >= u.d {
			n := int64((d + u.d/2) / u.d)
			if n == 1 {
				return "1 " + u.name
			}
			return fmt.Sprintf("%d %ss", n, u.name)
		}
	}
	return fmt.Sprintf("%d seconds", int64(d/time.Second))
}

func expectedFacts(want deepExpectation) map[string]bool {
	out := map[string]bool{}
	for slug, ids := range want.Services {
		out["service "+slug] = true
		for _, id := range ids {
			out["id "+slug+" "+id] = true
		}
	}
	for k, v := range want.Cookies {
		out["cookie "+k+" = "+v] = true
	}
	for k, v := range want.Storage {
		out["storage "+k+" = "+v] = true
	}
	for slug, items := range want.PreConsent {
		out["pre-consent "+slug] = true
		for _, it := range items {
			out["pre-consent "+slug+" "+it] = true
		}
	}
	for _, u := range want.Unrecognized {
		out["unrecognized "+u] = true
	}
	return out
}

func loadDeepExpectation(t testing.TB, dir string) deepExpectation {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want deepExpectation
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("%s/expected.json: %v", dir, err)
	}
	return want
}

// score counts the facts got that were wanted (true positives), not wanted, and missed.
func score(got, want map[string]bool) (tp int, fp, fn []string) {
	for k := range got {
		if want[k] {
			tp++
		} else {
			fp = append(fp, k)
		}
	}
	for k := range want {
		if !got[k] {
			fn = append(fn, k)
		}
	}
	sort.Strings(fp)
	sort.Strings(fn)
	return tp, fp, fn
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// TestDeepRecordedSites scans each recorded deep site in the browser and requires 100%
// precision and recall against its expected file: services, tracking IDs, cookies with their
// durations, storage keys, unrecognized ones, pre-consent findings. The static engine's
// figures on the same expectations are logged beside them.
func TestDeepRecordedSites(t *testing.T) {
	b := testBrowsers(t)
	ix := catalogIndex(t)
	for _, dir := range deepSiteDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want := loadDeepExpectation(t, dir)
			cfg := loadSiteConfig(t, dir)
			site := strings.TrimPrefix(strings.TrimPrefix(cfg.Start[0], "https://"), "http://")
			site = strings.TrimSuffix(strings.SplitN(site, "/", 2)[0], "/")
			start := time.Now()
			res, err := deepScanSite(t, dir, ix, b, nil)
			if err != nil {
				t.Fatalf("deep scan: %v", err)
			}
			took := time.Since(start)
			wf := expectedFacts(want)
			tp, fp, fn := score(facts(res, site), wf)
			static, err := scanSite(t, dir, ix, nil)
			if err != nil {
				t.Fatalf("static scan: %v", err)
			}
			stp, sfp, sfn := score(facts(static, site), wf)
			t.Logf("deep:   precision %5.1f%% recall %5.1f%% (%d pages in %v)", pct(tp, tp+len(fp)), pct(tp, tp+len(fn)), len(res.Pages), took.Round(time.Millisecond))
			t.Logf("static: precision %5.1f%% recall %5.1f%% (missed %d of %d facts)", pct(stp, stp+len(sfp)), pct(stp, stp+len(sfn)), len(sfn), len(wf))
			for _, f := range fp {
				t.Errorf("unexpected (precision): %s", f)
			}
			for _, f := range fn {
				t.Errorf("missed (recall): %s", f)
			}
			if want.Pages != 0 && len(res.Pages) != want.Pages {
				t.Errorf("%d pages, want %d", len(res.Pages), want.Pages)
			}
			var errURLs []string
			for _, e := range res.Errors {
				errURLs = append(errURLs, e.URL)
			}
			if fmt.Sprint(errURLs) != fmt.Sprint(sorted(want.PageErrors)) {
				t.Errorf("page errors %+v, want errors for %v", res.Errors, want.PageErrors)
			}
			if res.Mode != ModeDeep {
				t.Errorf("mode %q", res.Mode)
			}
			if t.Failed() {
				out, _ := json.MarshalIndent(res, "", "  ")
				t.Logf("result:\n%s", out)
			}
		})
	}
}

// siteHandler serves a recorded site, and consentd's banner runtime on the site's consentd
// host.
func siteHandler(dir string, cfg siteConfig) http.Handler {
	rp := &replay{dir: dir, gate: cfg.Gate}
	if cfg.Consentd == "" {
		return rp
	}
	runtime := bannerjs.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if strings.EqualFold(host, cfg.Consentd) && r.URL.Path == "/api/v1/public/banner.js" {
			runtime.ServeHTTP(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	})
}

// testBrowserPath is the Chromium tests use, after the same skip-or-fail rule as testBrowsers.
func testBrowserPath(t testing.TB) string {
	t.Helper()
	testBrowsers(t)
	return chromiumPath
}
