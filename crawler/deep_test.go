package crawler

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/crawler/browser/browsertest"
	"github.com/consentd/consentd/crawler/crawlertest"
	"github.com/consentd/consentd/library"
	"github.com/consentd/consentd/library/librarytest"
)

// testBrowsers is the test binary's browser pool. Without Chromium the test is skipped loudly,
// or fails when CI=true.
func testBrowsers(t testing.TB) *browser.Pool {
	t.Helper()
	return browsertest.Pool(t, browser.Options{UserAgent: DefaultUserAgent})
}

// TestMain gives the package's parallel tests two slots more than go test's default
// (GOMAXPROCS): many wait (a hung browser's timeout, a page's quiet time), and with two slots
// on two cores the package took 52 s alone, with four 38-40 s.
func TestMain(m *testing.M) {
	browsertest.Parallel(2)
	browsertest.Main(m)
}

func deepSiteDirs(t testing.TB) []string {
	return crawlertest.DeepSiteDirs(t, filepath.Join("..", "testdata", "deep"))
}

// deepScanSite scans a recorded site in the browser, every host routed to the replay servers
// as in scanSite.
func deepScanSite(t testing.TB, dir string, ix *library.Index, b *browser.Pool, mutate func(*Options)) (*Result, error) {
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

// facts are a result's items for scoring against an expected file.
func facts(t testing.TB, r *Result, site string) map[string]bool {
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := crawlertest.Facts(t, data, site)
	return f
}

// TestDeepRecordedSites scans each recorded deep site in the browser and requires 100%
// precision and recall against its expected file: services, tracking IDs, cookies with their
// durations, storage keys, unrecognized ones, pre-consent findings. The static engine's
// figures on the same expectations are logged beside them. The sites are parallel subtests on
// a pool of two browsers of their own.
func TestDeepRecordedSites(t *testing.T) {
	t.Parallel()
	b := ownBrowsers(t, 2)
	ix := librarytest.Index(t)
	for _, dir := range deepSiteDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			want := crawlertest.LoadDeepExpectation(t, dir)
			site := crawlertest.SiteHost(loadSiteConfig(t, dir))
			start := time.Now()
			res, err := deepScanSite(t, dir, ix, b, nil)
			if err != nil {
				t.Fatalf("deep scan: %v", err)
			}
			took := time.Since(start)
			wf := crawlertest.ExpectedFacts(want)
			tp, fp, fn := crawlertest.Score(facts(t, res, site), wf)
			static, err := scanSite(t, dir, ix, nil)
			if err != nil {
				t.Fatalf("static scan: %v", err)
			}
			stp, sfp, sfn := crawlertest.Score(facts(t, static, site), wf)
			t.Logf("deep:   %s (%d pages in %v)", crawlertest.Figures(tp, len(fp), len(fn)), len(res.Pages), took.Round(time.Millisecond))
			t.Logf("static: %s (missed %d of %d facts)", crawlertest.Figures(stp, len(sfp), len(sfn)), len(sfn), len(wf))
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
			if res.Mode != core.ScanDeep {
				t.Errorf("mode %q", res.Mode)
			}
			if t.Failed() {
				out, _ := json.MarshalIndent(res, "", "  ")
				t.Logf("result:\n%s", out)
			}
		})
	}
}

// siteHandler serves a recorded site, with consentd's banner runtime where it has one.
func siteHandler(dir string, cfg siteConfig) http.Handler {
	return crawlertest.Handler(dir, cfg, bannerjs.Handler())
}

// testBrowserPath is the Chromium tests use, after the same skip-or-fail rule as testBrowsers.
func testBrowserPath(t testing.TB) string {
	t.Helper()
	return browsertest.Require(t)
}
