package banner_test

// The browser tests' world: headless Chromium, the real consentd server (package app on SQLite),
// and a site served by the test with a strict Content-Security-Policy and third-party tags.
//
// These tests live in the external test package because package app imports bannerjs.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/crawler/browser/browsertest"
)

// thirdParties are the hosts of third-party tags in the test pages. Chromium resolves them to
// loopback (where the site's third-party server answers, over TLS: some of these names are on
// Chromium's HSTS preload list), so that the scripts load from the very hosts the service
// library's blocking patterns name; every other name fails to resolve, so the browser cannot
// reach anything but loopback.
var thirdParties = []string{"tracker.test", "www.googletagmanager.com", "connect.facebook.net",
	"www.google-analytics.com", "www.facebook.com", "static.hotjar.com", "www.youtube.com", "fonts.googleapis.com"}

// siteHosts are names of the test site itself (two subdomains of one registrable domain),
// which Chromium resolves to loopback too, for the cross-subdomain consent tests.
var siteHosts = []string{"a.test.example", "b.test.example"}

// chrome is the shared headless Chromium. The third parties and the site's own names resolve
// to loopback; the third-party server's certificate is httptest's own, for 127.0.0.1 only.
var chrome = browsertest.New(browsertest.Options{
	Hosts: append(append([]string{}, thirdParties...), siteHosts...), Width: 1280, Height: 800,
	Flags: []chromedp.ExecAllocatorOption{chromedp.Flag("ignore-certificate-errors", true)},
})

var (
	serverOnce sync.Once
	server     *consentd
	serverErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Close()
	if server != nil {
		server.close()
	}
	os.Exit(code)
}

// browser returns the shared headless Chromium, starting it on first use. Without Chromium the
// test is skipped loudly, or fails when CI=true.
func browser(t testing.TB) context.Context {
	t.Helper()
	return chrome.Context(t)
}

// tab opens a tab in a fresh browser context (own cookies, storage and HTTP cache) with the init
// scripts installed: a securitypolicyviolation recorder, a shadow-DOM query helper, and extra.
func tab(t testing.TB, extra ...string) context.Context {
	t.Helper()
	return chrome.Tab(t, 90*time.Second, append([]string{`
window.__cd = function (sel) {
  var h = document.querySelector('consentd-ui');
  return h && h.shadowRoot ? h.shadowRoot.querySelector(sel) : null;
};
window.__choice = function (scope) {
  var h = scope && scope.querySelector('consentd-choice');
  return h && h.shadowRoot;
};
window.__active = function () {
  var h = document.querySelector('consentd-ui');
  var a = h && h.shadowRoot && h.shadowRoot.activeElement;
  return a ? (a.getAttribute('data-action') || a.getAttribute('data-category') || a.tagName.toLowerCase()) : 'outside';
};`}, extra...)...)
}

// clearHTTPCache empties the tab's HTTP cache. The server lets browsers keep a site's public
// configuration for a minute (Cache-Control: max-age=60); a test that changes the configuration
// and reloads at once stands for a visitor who comes back after that minute.
func clearHTTPCache(t testing.TB, ctx context.Context) {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.ClearBrowserCache, cdp.Empty{})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the tab into out (nil: the value is dropped).
func eval(t testing.TB, ctx context.Context, expr string, out any) {
	t.Helper()
	browsertest.Eval(t, ctx, expr, out)
}

// patience bounds every wait for something that should happen: a ceiling for a machine under
// load (CI runs two browser packages at once on two cores, each with tests in parallel), not a
// timing check; a wait only takes long when the test fails (20 s was too little for the
// console's waits there).
const patience = 30 * time.Second

// waitFor polls a JavaScript condition until it is true, failing the test after patience.
func waitFor(t testing.TB, ctx context.Context, cond string) {
	t.Helper()
	browsertest.WaitFor(t, ctx, cond, patience)
}

// settle gives the page time to do what it should not do (run a held script, post twice).
func settle() { time.Sleep(300 * time.Millisecond) }

func navigate(t testing.TB, ctx context.Context, url string) {
	t.Helper()
	browsertest.Navigate(t, ctx, url)
}

func run(t testing.TB, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// noViolations fails the test when the page's CSP reported anything.
func noViolations(t testing.TB, ctx context.Context) {
	t.Helper()
	browsertest.NoViolations(t, ctx, "the page")
}

// screenshot saves the viewport as name.png in the screenshot folder, once the banner's
// fade-in has finished, for a human look.
func screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	browsertest.Screenshot(t, ctx, name, false)
}

// ---- The consentd side: the real server. ----

// apiKey is the bootstrap key of the test server's organization.
const apiKey = "test-key-0123456789"

// countryHeader is the trusted header carrying the visitor's country.
const countryHeader = "X-Country"

// consentd is the real service (package app on SQLite), shared by the tests of the package:
// every test creates its own site in it.
type consentd struct {
	app     *app.App
	dir     string
	mu      sync.Mutex
	servers []*httptest.Server
}

// theServer returns the shared consentd, starting it on first use.
func theServer(t testing.TB) *consentd {
	t.Helper()
	serverOnce.Do(func() {
		dir, err := os.MkdirTemp("", "consentd-bannerjs-test-")
		if err != nil {
			serverErr = err
			return
		}
		a, err := app.New(context.Background(), app.Config{
			DatabaseURL: "sqlite://" + filepath.Join(dir, "c.db"), BootstrapAPIKey: apiKey, Workers: 0,
			PublicRateLimit: 0, CountryHeader: countryHeader, Logger: slog.New(slog.DiscardHandler),
			// The IAB's GVL fixture, and a CMP ID for tests only (never a real one: docs/tcf.md).
			TCFGVLFile: gvlFile, TCFCMPID: testCMPID, TCFCMPVersion: testCMPVersion,
		})
		if err != nil {
			serverErr = err
			_ = os.RemoveAll(dir)
			return
		}
		server = &consentd{app: a, dir: dir}
	})
	if serverErr != nil {
		t.Fatalf("starting consentd: %v", serverErr)
	}
	return server
}

func (c *consentd) close() {
	c.mu.Lock()
	for _, s := range c.servers {
		s.Close()
	}
	c.mu.Unlock()
	_ = c.app.Close()
	_ = os.RemoveAll(c.dir)
}

// edge serves consentd at a new origin behind a trusted front (a CDN or reverse proxy) that
// puts the visitor's country in countryHeader, replacing whatever the client sent, as
// deployments do (CONSENTD_COUNTRY_HEADER in README.md: the country comes from a trusted
// header). An empty country removes the header. The browser itself never sends it.
func (c *consentd) edge(t testing.TB, country string) string {
	t.Helper()
	h := c.app.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if country == "" {
			r.Header.Del(countryHeader)
		} else {
			r.Header.Set(countryHeader, country)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// regionalEdge starts consentd on SQLite reading the visitor's place from the country and
// region headers of a trusted proxy (tune, when not nil, adjusts its settings) and returns
// edgeFor of it: the front a regional test visits as a visitor from a chosen place.
func regionalEdge(t testing.TB, tune func(*app.Config)) func(hdr map[string]string) string {
	t.Helper()
	return edgeFor(t, regionalApp(t, tune).Handler())
}

// regionalApp is regionalEdge's consentd, for a test that puts a handler of its own between
// it and the front.
func regionalApp(t testing.TB, tune func(*app.Config)) *app.App {
	t.Helper()
	cfg := app.Config{
		DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "consentd.db"), BootstrapAPIKey: apiKey, Workers: 0,
		CountryHeader: countryHeader, RegionHeader: regionHeader, TrustedProxies: []string{"127.0.0.1/32"},
		Logger: slog.New(slog.DiscardHandler),
	}
	if tune != nil {
		tune(&cfg)
	}
	a, err := app.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// edgeFor returns a front for h: each call serves h at a new origin on 127.0.0.1 (a trusted
// proxy) that forwards the visitor's address in X-Forwarded-For or, as a CDN does, the country
// and region headers, as given in hdr, replacing whatever the client sent.
func edgeFor(t testing.TB, h http.Handler) func(hdr map[string]string) string {
	return func(hdr map[string]string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for _, k := range []string{countryHeader, regionHeader, "X-Forwarded-For"} {
				r.Header.Del(k)
			}
			for k, v := range hdr {
				r.Header.Set(k, v)
			}
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
}

// mgmt calls the management API at base with the bearer key and decodes the answer into out
// (nil: dropped), failing the test unless the status is want.
func mgmt(t testing.TB, base, method, path string, body any, want int, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+"/api/v1"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, res.StatusCode, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v (%s)", method, path, err, b)
		}
	}
}

// record is a consent record as GET /sites/{id}/consent-records returns it.
type record struct {
	ID                  string          `json:"id"`
	VisitorID           string          `json:"visitorId"`
	IPCountry           string          `json:"ipCountry"`
	Jurisdiction        string          `json:"jurisdiction"`
	CategoriesConsented map[string]bool `json:"categoriesConsented"`
	GPCSignal           bool            `json:"gpcSignal"`
	DoNotSell           bool            `json:"doNotSell"`
	ConsentVersion      int             `json:"consentVersion"`
	Action              string          `json:"action"`
	TCString            string          `json:"tcString"`
	ACString            string          `json:"acString"`
	GVLVersion          int             `json:"gvlVersion"`
}

// ---- The site side: pages with a strict CSP, trackers on third-party origins. ----

// site serves the test pages at http://127.0.0.1:PORT and the third parties at
// https://HOST:PORT2 for every host in thirdParties.
type site struct {
	srv   *httptest.Server
	third *httptest.Server
	api   string
	mu    sync.Mutex
	pages map[string]string
	files map[string]string // test-specific /static/ files, before staticFiles
	hits  []string          // vendor collection requests (GA collect, Meta pixel) received
	// collected are the requests the page's analytics libraries sent to the site's own
	// /collect/ endpoint (same origin, so the strict CSP's connect-src 'self' allows them).
	collected []collected
}

// collected is one request an analytics library sent to /collect/.
type collected struct {
	Path string
	Body []byte
}

// collectedUnder returns the bodies of the requests received under /collect/+prefix.
func (s *site) collectedUnder(prefix string) []collected {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []collected
	for _, c := range s.collected {
		if strings.HasPrefix(c.Path, "/collect/"+prefix) {
			out = append(out, c)
		}
	}
	return out
}

// nonce is the CSP nonce of the test pages' inline scripts (vendors' standard snippets).
const nonce = "cdtestnonce"

// vendorHits returns the vendor collection requests the third-party server received.
func (s *site) vendorHits() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.hits...)
}

var safeID = regexp.MustCompile(`^[A-Za-z0-9-]{1,40}$`)

func newSite(t testing.TB, apiOrigin string) *site {
	s := &site{api: apiOrigin, pages: map[string]string{}, files: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/p/{name}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		html, ok := s.pages[r.PathValue("name")]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Security-Policy", s.csp())
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(html))
	})
	mux.HandleFunc("/collect/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if r.Method == http.MethodPost {
			s.mu.Lock()
			s.collected = append(s.collected, collected{Path: r.URL.Path, Body: body})
			s.mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	})
	mux.HandleFunc("/static/", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/static/")
		s.mu.Lock()
		body, ok := s.files[name]
		s.mu.Unlock()
		if !ok {
			body, ok = staticFiles[name]
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".css") {
			w.Header().Set("Content-Type", "text/css")
		} else {
			w.Header().Set("Content-Type", "text/javascript")
		}
		_, _ = w.Write([]byte(body))
	})
	third := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/g/collect" || r.URL.Path == "/tr" || r.URL.Path == "/tr/" {
			s.mu.Lock()
			s.hits = append(s.hits, r.Host+r.URL.Path+"?"+r.URL.RawQuery)
			s.mu.Unlock()
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Content-Type", "image/gif")
			_, _ = w.Write(gif)
			return
		}
		if vendor, ok := vendorScripts[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "text/javascript")
			w.Header().Set("Cache-Control", "no-store")
			id := r.URL.Query().Get("id")
			if !safeID.MatchString(id) {
				id = "vendor"
			}
			fmt.Fprintf(w, "(window.__ran = window.__ran || []).push(%q);\n%s", id, vendor)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".html") {
			w.Header().Set("Content-Type", "text/html")
			s.mu.Lock()
			page, ok := s.files["third:"+r.URL.Path] // a test's own third-party page
			s.mu.Unlock()
			if ok {
				_, _ = w.Write([]byte(page))
				return
			}
			_, _ = w.Write([]byte("<!doctype html><title>video</title><p>embedded video</p>"))
			return
		}
		// Every other third-party URL is a tag that records that it ran, under its id.
		id := r.URL.Query().Get("id")
		if !safeID.MatchString(id) {
			http.Error(w, "bad id", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, "(window.__ran = window.__ran || []).push(%q);\n", id)
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	s.third = httptest.NewTLSServer(third)
	t.Cleanup(s.third.Close)
	return s
}

// thirdPort is the port of the third-party server.
func (s *site) thirdPort() string {
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.third.URL, "https://"))
	return port
}

// origin returns the origin of a third-party host.
func (s *site) origin(host string) string { return "https://" + host + ":" + s.thirdPort() }

// tracker is a generic third-party origin matched by no blocking rule.
func (s *site) tracker() string { return s.origin("tracker.test") }

// csp is strict: no 'unsafe-inline', no 'unsafe-eval'; consentd's origin is allowed for
// scripts and fetches, as the setup documentation asks of site owners.
func (s *site) csp() string {
	var thirds []string
	for _, h := range thirdParties {
		thirds = append(thirds, s.origin(h))
	}
	th := strings.Join(thirds, " ")
	return "default-src 'none'; script-src 'self' 'nonce-" + nonce + "' " + s.api + " " + th +
		"; connect-src 'self' " + s.api + " " + th + "; style-src 'self'; img-src 'self' data: " + th + "; frame-src " + th +
		"; base-uri 'none'; form-action 'none'"
}

// file registers a /static/ file for this site.
func (s *site) file(name, body string) {
	s.mu.Lock()
	s.files[name] = body
	s.mu.Unlock()
}

// raw registers a page served with the strict CSP and returns its URL.
func (s *site) raw(name, html string) string {
	s.mu.Lock()
	s.pages[name] = html
	s.mu.Unlock()
	return s.srv.URL + "/p/" + name
}

// page registers a shop page whose <head> starts with the given snippet and returns its URL.
func (s *site) page(name, lang, snippet, head, body string) string {
	return s.raw(name, `<!doctype html>
<html lang="`+lang+`"><head><meta charset="utf-8">
`+snippet+`
<script src="/static/page.js"></script>
`+head+`
<title>Acme Outdoor</title>
<link rel="stylesheet" href="/static/site.css">
</head><body>
<header><strong>Acme Outdoor</strong><nav><a href="#">Tents</a> <a href="#">Boots</a> <a href="#">Jackets</a></nav></header>
<main>
<h1>Gear for every trail</h1>
<p>Lightweight tents, waterproof boots and warm jackets, tested on real trails by our team. Free shipping over 50 €.</p>
<p><button id="before" type="button">Shop now</button> <button id="open" type="button" data-consentd-open>Cookie settings</button></p>
`+body+`
</main></body></html>`)
}

var staticFiles = map[string]string{
	// page.js is the page's own first script: it records the consentd:change events and pushes a
	// tag command, as a site's gtag snippet would, to check Consent Mode ordering.
	"page.js": `
window.__events = [];
document.addEventListener('consentd:change', function (e) { window.__events.push(e.detail); });
window.dataLayer = window.dataLayer || [];
window.dataLayer.push(['js', 'page-tag']);
`,
	// inject.js inserts tags at once, as a tag manager does, before the configuration is known:
	// a Meta Pixel and a Google Analytics tag (both matched by the library's blocking patterns)
	// and a tag no rule matches.
	// The page learns the third-party port from its own ?third= parameter.
	"inject.js": `
(function () {
  var port = new URLSearchParams(location.search).get('third');
  var held = document.createElement('script');
  held.src = 'https://connect.facebook.net:' + port + '/en_US/fbevents.js?id=dyn';
  held.onload = function () { window.__onload = true; };
  document.head.appendChild(held);
  var ga = document.createElement('script');
  ga.src = 'https://www.googletagmanager.com:' + port + '/gtag/js?id=G-DYN';
  document.head.appendChild(ga);
  var free = document.createElement('script');
  free.src = 'https://tracker.test:' + port + '/static/track.js?id=free';
  document.head.appendChild(free);
})();
`,
	// An aggressive site stylesheet: none of it may reach the banner, and the banner's may not
	// reach the page.
	"site.css": `
body { font: 16px/1.6 Georgia, serif; margin: 0; background: #f4f1ea; color: #2d2a26; }
header { display: flex; justify-content: space-between; padding: 18px 40px; background: #2d2a26; color: #fff; }
header a { color: #f4d58d; margin-left: 16px; }
main { padding: 40px; max-width: 760px; }
h1 { font-size: 40px; margin: 0 0 12px; }
button { background: red !important; color: yellow; font-size: 21px; padding: 8px 14px; border: 0; }
div, p, h2 { letter-spacing: 3px; }
`,
}

// ---- One test's world. ----

// env is one test's world: a site on the real consentd, reached through an edge for the
// visitor's country, and the site's pages.
type env struct {
	srv     *consentd
	api     string // the edge's origin: management API, public endpoints and banner.js
	site    *site
	id, pk  string
	snippet string // the setup snippet's code (framework=script), as served
}

// newEnv creates a site for a visitor from country: the management API configures its banner
// (brand colors, texts, a German translation, a privacy policy link) and imports Stripe
// (essential), Google Analytics (statistics) and Meta Pixel (marketing) from the library.
func newEnv(t testing.TB, country string) *env {
	t.Helper()
	srv := theServer(t)
	e := &env{srv: srv, api: srv.edge(t, country)}
	var created struct {
		ID         string `json:"id"`
		ProjectKey string `json:"projectKey"`
	}
	e.post(t, "/sites", map[string]any{"name": "Acme Outdoor " + t.Name(), "url": "https://acme.example"}, 201, &created)
	e.id, e.pk = created.ID, created.ProjectKey
	e.patchBanner(t, map[string]any{
		"colors": map[string]any{"primary": "#0b6e4f", "background": "#ffffff", "text": "#1f2933",
			"acceptButton": "#0b6e4f", "rejectButton": "#0b6e4f"},
		"textOverrides": map[string]any{"headline": "We value your privacy",
			"body":        "Acme Outdoor uses cookies to run the shop, to measure visits and to show you relevant ads. Choose what you allow.",
			"acceptLabel": "Accept all", "rejectLabel": "Reject all", "preferencesLabel": "Preferences", "privacyLabel": "Privacy policy"},
		"textTranslations": map[string]any{"de": map[string]any{"headline": "Wir respektieren Ihre Privatsphäre",
			"acceptLabel": "Alle akzeptieren", "rejectLabel": "Alle ablehnen"}},
		"privacyPolicyUrl": "https://acme.example/privacy",
	})
	for _, slug := range []string{"stripe", "google-analytics", "meta-pixel"} {
		e.post(t, "/sites/"+e.id+"/services/import", map[string]any{"slug": slug}, 201, nil)
	}
	var sn struct {
		Framework, Code string
	}
	mgmt(t, e.api, "GET", "/sites/"+e.id+"/setup-snippet?framework=script", nil, 200, &sn)
	e.snippet = sn.Code
	e.site = newSite(t, e.api)
	return e
}

func (e *env) post(t testing.TB, path string, body any, want int, out any) {
	t.Helper()
	mgmt(t, e.api, "POST", path, body, want, out)
}

// patchBanner changes the site's banner configuration.
func (e *env) patchBanner(t testing.TB, patch map[string]any) {
	t.Helper()
	mgmt(t, e.api, "PATCH", "/sites/"+e.id+"/banner", patch, 200, nil)
}

// setBlocking turns site-wide script blocking on or off (which raises consentVersion).
func (e *env) setBlocking(t testing.TB, on bool) {
	t.Helper()
	mgmt(t, e.api, "PUT", "/sites/"+e.id+"/script-blocking", map[string]any{"enabled": on}, 200, nil)
}

// records returns the site's consent records, oldest first.
func (e *env) records(t testing.TB) []record {
	t.Helper()
	var pg struct {
		Records []record `json:"records"`
		Total   int      `json:"total"`
	}
	mgmt(t, e.api, "GET", "/sites/"+e.id+"/consent-records?limit=100", nil, 200, &pg)
	for i, j := 0, len(pg.Records)-1; i < j; i, j = i+1, j-1 {
		pg.Records[i], pg.Records[j] = pg.Records[j], pg.Records[i]
	}
	return pg.Records
}

// waitRecords waits until the server holds n consent records for the site and returns them,
// oldest first.
func (e *env) waitRecords(t testing.TB, n int) []record {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		r := e.records(t)
		if len(r) >= n {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d consent records on the server, want %d", len(r), n)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// page registers a shop page starting with the site's setup snippet.
func (e *env) page(name, lang, head, body string) string {
	return e.site.page(name, lang, e.snippet, head, body)
}

// marked are tracker scripts marked for consent, one per category.
func (e *env) marked() string {
	return `<script type="text/plain" data-category="statistics" src="` + e.site.tracker() + `/static/track.js?id=stat"></script>
<script type="text/plain" data-category="marketing" src="` + e.site.tracker() + `/static/track.js?id=mkt"></script>`
}

// gif is a 1x1 transparent GIF, the answer of the stand-in collection endpoints.
var gif = []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")

// vendorScripts are stand-ins for Google's gtag.js and Meta's fbevents.js, served at the vendors'
// paths on the vendors' hosts: like the real ones they process the commands the page queued
// (window.dataLayer, fbq.queue) and later ones, set their first-party cookies and send
// collection requests (www.google-analytics.com/g/collect, www.facebook.com/tr), which the
// test server records. window.__vendor counts the commands each processed.
var vendorScripts = map[string]string{
	// Like gtag.js, the stand-in reads Consent Mode: while analytics_storage is denied a
	// 'config' sends a cookieless ping (gcs=G1<ad><analytics>, here G100) and sets no cookie; once
	// an update grants it, the configured tags set their cookies and send again.
	"/gtag/js": `(function () {
  var port = new URL(document.currentScript.src).port;
  var v = window.__vendor = window.__vendor || {gtag: 0, fbq: 0};
  var dl = window.dataLayer = window.dataLayer || [];
  var consent = {}, ids = [];
  function on(k) { return consent[k] === 'granted'; }
  function send(id) {
    var granted = on('analytics_storage');
    if (granted) {
      document.cookie = '_ga=GA1.1.42.1700000000;path=/;max-age=63072000';
      document.cookie = '_ga_' + String(id).replace(/^G-/, '') + '=GS1.1.1700000000.1.0;path=/;max-age=63072000';
    }
    new Image().src = 'https://www.google-analytics.com:' + port + '/g/collect?v=2&tid=' + encodeURIComponent(id) +
      '&gcs=G1' + (on('ad_storage') ? 1 : 0) + (granted ? 1 : 0);
  }
  function run(a) {
    if (!a) return;
    if (a[0] === 'consent' && a[2]) {
      var before = on('analytics_storage');
      for (var k in a[2]) consent[k] = a[2][k];
      if (!before && on('analytics_storage')) ids.forEach(send);
      return;
    }
    if (a[0] !== 'config') return;
    v.gtag++;
    ids.push(a[1]);
    send(a[1]);
  }
  dl.forEach(run);
  var push = dl.push;
  dl.push = function (a) { run(a); return push.apply(dl, arguments); };
})();
`,
	"/en_US/fbevents.js": `(function () {
  var port = new URL(document.currentScript.src).port;
  var v = window.__vendor = window.__vendor || {gtag: 0, fbq: 0};
  var f = window.fbq;
  if (!f) return;
  var pixel = '';
  function run(args) {
    v.fbq++;
    if (args[0] === 'init') pixel = args[1];
    if (args[0] === 'track') {
      document.cookie = '_fbp=fb.1.1700000000.42;path=/;max-age=7776000';
      new Image().src = 'https://www.facebook.com:' + port + '/tr?id=' + encodeURIComponent(pixel) + '&ev=' + encodeURIComponent(args[1]);
    }
  }
  f.callMethod = function () { run(arguments); };
  (f.queue || []).forEach(run);
  f.queue = [];
})();
`,
}

// unmarkedTags are Google Analytics 4 and the Meta Pixel as their vendors tell site owners to
// paste them into the HTML, unmarked: gtag.js as a parser-inserted script tag with its inline
// configuration, and the pixel's inline base code, which inserts fbevents.js. (The inline parts
// carry the page's CSP nonce.) port is the third-party server's.
func unmarkedTags(port string) string {
	return `<script async src="https://www.googletagmanager.com:` + port + `/gtag/js?id=G-UNMARKED"></script>
<script nonce="` + nonce + `">
  window.dataLayer = window.dataLayer || [];
  function gtag(){dataLayer.push(arguments);}
  gtag('js', new Date());
  gtag('config', 'G-UNMARKED');
</script>
` + pixelTag(port)
}

// pixelTag is the Meta Pixel's inline base code alone: it inserts fbevents.js from script.
func pixelTag(port string) string {
	return `<script nonce="` + nonce + `">
!function(f,b,e,v,n,t,s){if(f.fbq)return;n=f.fbq=function(){n.callMethod?
n.callMethod.apply(n,arguments):n.queue.push(arguments)};if(!f._fbq)f._fbq=n;
n.push=n;n.loaded=!0;n.version='2.0';n.queue=[];t=b.createElement(e);t.async=!0;
t.src=v;s=b.getElementsByTagName(e)[0];s.parentNode.insertBefore(t,s)}(window,
document,'script','https://connect.facebook.net:` + port + `/en_US/fbevents.js?id=pixel');
fbq('init', '1234567890');
fbq('track', 'PageView');
</script>`
}

// axeCheck runs axe-core's WCAG 2.1 A and AA rules in the tab on the elements the selectors
// name (their shadow trees included; none: the whole document) and fails the test on any
// violation.
func axeCheck(t testing.TB, ctx context.Context, what string, selectors ...string) {
	t.Helper()
	browsertest.Axe(t, ctx, what, browsertest.AxeOptions{Include: selectors})
}

// failingEdge serves e's consentd to a visitor from country, as its edge does, but answers 503
// to every request fail picks (an outage of one resource), until the test ends.
func failingEdge(t testing.TB, e *env, country string, fail func(*http.Request) bool) *httptest.Server {
	t.Helper()
	h := e.srv.app.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail(r) {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		r.Header.Set(countryHeader, country)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}
