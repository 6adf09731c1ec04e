package bannerjs

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// chromiumPath is where Debian's chromium package installs the browser (.ci/run installs it).
const chromiumPath = "/usr/bin/chromium"

var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserErr    error
	browserCancel = func() {}
	shotsOnce     sync.Once
	shotsDir      string
)

func TestMain(m *testing.M) {
	code := m.Run()
	browserCancel()
	os.Exit(code)
}

// browser returns the shared headless Chromium, starting it on first use. Without Chromium the
// test is skipped loudly, or fails when CI=true.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is missing: install it with apt-get install -y chromium", chromiumPath)
		}
		t.Skipf("!!! SKIPPING BROWSER TEST: %s not found (apt-get update && apt-get install -y chromium) !!!", chromiumPath)
	}
	browserOnce.Do(func() {
		dir, err := os.MkdirTemp("", "consentd-chromium-")
		if err != nil {
			browserErr = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(chromiumPath),
			chromedp.UserDataDir(dir),
			chromedp.Flag("headless", true),
			chromedp.Flag("no-sandbox", true),
			chromedp.Flag("disable-gpu", true),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("no-first-run", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("no-proxy-server", true),
			// tracker.test is a second origin served by the page server; every other name fails
			// to resolve, so the browser cannot reach anything but loopback.
			chromedp.Flag("host-resolver-rules", "MAP tracker.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
			chromedp.WindowSize(1280, 800),
		)
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, cancelBrowser := chromedp.NewContext(actx)
		if err := chromedp.Do(bctx); err != nil {
			browserErr = fmt.Errorf("starting %s: %w", chromiumPath, err)
		}
		browserCtx = bctx
		browserCancel = func() { cancelBrowser(); cancelAlloc(); _ = os.RemoveAll(dir) }
	})
	if browserErr != nil {
		t.Fatal(browserErr)
	}
	return browserCtx
}

// tab opens a tab in a fresh browser context (own cookies and storage) with the init scripts
// installed: a securitypolicyviolation recorder, a shadow-DOM query helper, and extra.
func tab(t *testing.T, extra ...string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser(t), chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 30*time.Second)
	t.Cleanup(cancelT)
	scripts := append([]string{`
window.__violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sourceFile || '') + ':' + e.lineNumber);
});
window.__cd = function (sel) {
  var h = document.querySelector('consentd-ui');
  return h && h.shadowRoot ? h.shadowRoot.querySelector(sel) : null;
};
window.__active = function () {
  var h = document.querySelector('consentd-ui');
  var a = h && h.shadowRoot && h.shadowRoot.activeElement;
  return a ? (a.getAttribute('data-action') || a.getAttribute('data-category') || a.tagName.toLowerCase()) : 'outside';
};`}, extra...)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for _, s := range scripts {
			if _, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: s}); err != nil {
				return err
			}
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// eval evaluates a JavaScript expression in the tab into out (nil: the value is dropped).
func eval(t *testing.T, ctx context.Context, expr string, out any) {
	t.Helper()
	if out == nil {
		expr = "(function () { " + expr + "; return true; })()"
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	if out != nil {
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("evaluating %s: %v (%s)", expr, err, b)
		}
	}
}

// waitFor polls a JavaScript condition until it is true, failing the test after 5 seconds.
func waitFor(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+cond+")"))
		if err != nil {
			t.Fatalf("waiting for %s: %v", cond, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", cond)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settle gives the page time to do what it should not do (run a held script, post twice).
func settle() { time.Sleep(300 * time.Millisecond) }

func navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate %s: %v", url, err)
	}
}

func run(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// noViolations fails the test when the page's CSP reported anything.
func noViolations(t *testing.T, ctx context.Context) {
	t.Helper()
	var v []string
	eval(t, ctx, "window.__violations", &v)
	if len(v) > 0 {
		t.Fatalf("Content-Security-Policy violations: %q", v)
	}
}

// screenshot saves the viewport as name.png in a folder kept after the run, for a human look.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shotsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "consentd-banner-screenshots-")
		if err == nil {
			shotsDir = dir
		}
	})
	if shotsDir == "" {
		t.Fatal("no screenshot folder")
	}
	time.Sleep(350 * time.Millisecond) // let the banner's fade-in finish
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	p := shotsDir + "/" + name + ".png"
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// ---- The consentd side: the runtime's public endpoints, per /work/public-api.md. ----

// consentPost is a consent decision received by the fake public API.
type consentPost struct {
	ProjectKey string
	SecGPC     string
	Body       consentBody
	Record     map[string]any
}

// consentBody is the POST /public/{projectKey}/consent body; unknown fields are refused.
type consentBody struct {
	VisitorID      *string         `json:"visitorId,omitempty"`
	Categories     map[string]bool `json:"categories"`
	ConsentVersion *int            `json:"consentVersion"`
	DoNotSell      *bool           `json:"doNotSell,omitempty"`
	Action         string          `json:"action"`
	GPC            *bool           `json:"gpc,omitempty"`
}

// fakeAPI serves the banner runtime through Handler and the public config and consent endpoints
// from crafted configurations, validating consent posts as the contract describes.
type fakeAPI struct {
	srv     *httptest.Server
	mu      sync.Mutex
	configs map[string]map[string]any
	posts   []consentPost
	nextID  int
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{configs: map[string]map[string]any{}}
	mux := http.NewServeMux()
	mux.Handle("/api/v1/public/banner.js", http.StripPrefix("/api/v1/public", Handler()))
	mux.HandleFunc("/api/v1/public/{pk}/config", f.config)
	mux.HandleFunc("/api/v1/public/{pk}/consent", f.consent)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func cors(w http.ResponseWriter, r *http.Request) bool {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method == http.MethodOptions {
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeAPI) set(pk string, cfg map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.configs[pk] = cfg
}

func (f *fakeAPI) config(w http.ResponseWriter, r *http.Request) {
	if cors(w, r) {
		return
	}
	f.mu.Lock()
	cfg, ok := f.configs[r.PathValue("pk")]
	var b []byte
	if ok {
		b, _ = json.Marshal(cfg)
	}
	f.mu.Unlock()
	if !ok {
		writeJSON(w, 404, map[string]any{"error": map[string]string{"code": "not_found", "message": "site not found"}})
		return
	}
	// No max-age here: the tests change configurations between page loads.
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func (f *fakeAPI) consent(w http.ResponseWriter, r *http.Request) {
	if cors(w, r) {
		return
	}
	bad := func(msg string) {
		writeJSON(w, 400, map[string]any{"error": map[string]string{"code": "validation_error", "message": msg}})
	}
	if r.Method != http.MethodPost {
		bad("method")
		return
	}
	pk := r.PathValue("pk")
	var body consentBody
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		bad(err.Error())
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	cfg, ok := f.configs[pk]
	if !ok {
		writeJSON(w, 404, map[string]any{"error": map[string]string{"code": "not_found", "message": "site not found"}})
		return
	}
	switch body.Action {
	case "accept_all", "reject_all", "custom", "gpc":
	default:
		bad("action")
		return
	}
	if body.ConsentVersion == nil || body.Categories == nil {
		bad("consentVersion and categories are required")
		return
	}
	if body.VisitorID != nil && (len(*body.VisitorID) < 1 || len(*body.VisitorID) > 100) {
		bad("visitorId")
		return
	}
	all := map[string]any{}
	known := map[string]bool{}
	for _, c := range cfg["categories"].([]map[string]any) {
		slug := c["slug"].(string)
		known[slug] = true
		all[slug] = c["isRequired"].(bool) || body.Categories[slug]
	}
	for slug := range body.Categories {
		if !known[slug] {
			bad("categories: unknown category " + slug)
			return
		}
	}
	f.nextID++
	visitor := fmt.Sprintf("visitor-%d", f.nextID)
	if body.VisitorID != nil {
		visitor = *body.VisitorID
	}
	gpc := r.Header.Get("Sec-GPC") == "1" || (body.GPC != nil && *body.GPC)
	jur := cfg["jurisdiction"].(string)
	dns := (body.DoNotSell != nil && *body.DoNotSell) || (gpc && jur == "ccpa")
	rec := map[string]any{
		"id": fmt.Sprintf("rec-%d", f.nextID), "siteId": "site-" + pk, "visitorId": visitor,
		"ipCountry": "", "jurisdiction": jur, "categoriesConsented": all, "gpcSignal": gpc,
		"doNotSell": dns, "consentVersion": *body.ConsentVersion, "action": body.Action,
		"createdAt": time.Now().UTC().Format(time.RFC3339),
	}
	f.posts = append(f.posts, consentPost{ProjectKey: pk, SecGPC: r.Header.Get("Sec-GPC"), Body: body, Record: rec})
	writeJSON(w, 201, rec)
}

// postsFor returns the consent decisions recorded for pk.
func (f *fakeAPI) postsFor(pk string) []consentPost {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []consentPost
	for _, p := range f.posts {
		if p.ProjectKey == pk {
			out = append(out, p)
		}
	}
	return out
}

// waitPosts waits until pk has n recorded decisions and returns them.
func (f *fakeAPI) waitPosts(t *testing.T, pk string, n int) []consentPost {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p := f.postsFor(pk)
		if len(p) >= n {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d consent records, want %d", pk, len(p), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// siteConfig is a crafted public configuration in the exact shape of /work/public-api.md.
func siteConfig(pk string) map[string]any {
	cookie := func(name, dur, desc string) map[string]any {
		return map[string]any{"name": name, "duration": dur, "description": desc}
	}
	svc := func(slug, label, desc string, cookies ...map[string]any) map[string]any {
		return map[string]any{"slug": slug, "label": label, "description": desc, "privacyPolicyUrl": nil, "cookies": cookies}
	}
	return map[string]any{
		"projectKey":   pk,
		"jurisdiction": "gdpr",
		"banner": map[string]any{
			"template": "floating", "position": "bottom_right",
			"colors": map[string]any{"primary": "#0b6e4f", "background": "#ffffff", "text": "#1f2933",
				"acceptButton": "#0b6e4f", "rejectButton": "#0b6e4f"},
			"textOverrides": map[string]any{"headline": "We value your privacy",
				"body":        "Acme Outdoor uses cookies to run the shop, to measure visits and to show you relevant ads. Choose what you allow.",
				"acceptLabel": "Accept all", "rejectLabel": "Reject all", "preferencesLabel": "Preferences", "privacyLabel": "Privacy policy"},
			"textTranslations": map[string]any{"de": map[string]any{"headline": "Wir respektieren Ihre Privatsphäre",
				"acceptLabel": "Alle akzeptieren", "rejectLabel": "Alle ablehnen"}},
			"logoUrl": nil, "privacyPolicyUrl": "https://acme.example/privacy", "cookiePolicyUrl": nil,
			"defaultBehavior": "opt_in", "closeButtonBehavior": "dismiss",
			"cookieExpirationDays": 365, "consentVersion": 1,
			"gcmExcludeVendor": false, "storefrontIntegration": false,
		},
		"categories": []map[string]any{
			{"slug": "essential", "name": "Essential", "description": "Needed for the shop to work: cart, checkout, security.",
				"nameTranslations": map[string]any{"de": "Notwendig"}, "descriptionTranslations": map[string]any{},
				"isRequired": true, "sortOrder": 0,
				"services": []map[string]any{svc("stripe", "Stripe", "Payments and fraud prevention.", cookie("__stripe_mid", "1 year", "Fraud prevention."))}},
			{"slug": "statistics", "name": "Statistics", "description": "Helps us understand how visitors use the shop.",
				"nameTranslations": map[string]any{}, "descriptionTranslations": map[string]any{},
				"isRequired": false, "sortOrder": 1,
				"services": []map[string]any{svc("google-analytics", "Google Analytics", "Web analytics by Google.",
					cookie("_ga", "2 years", "Distinguishes users."), cookie("_ga_", "2 years", "Persists session state."))}},
			{"slug": "marketing", "name": "Marketing", "description": "Used to show you relevant ads on other sites.",
				"nameTranslations": map[string]any{}, "descriptionTranslations": map[string]any{},
				"isRequired": false, "sortOrder": 2,
				"services": []map[string]any{svc("meta-pixel", "Meta Pixel", "Conversion tracking by Meta.", cookie("_fbp", "3 months", "Identifies browsers."))}},
		},
		"blockingRules": map[string]any{"siteWide": false, "rules": []map[string]any{
			{"serviceSlug": "google-analytics", "categorySlug": "statistics",
				"patterns": []string{"www.googletagmanager.com/gtag/js?id=G-", "tracker.test/static/track.js?id=ga"}},
			{"serviceSlug": "meta-pixel", "categorySlug": "marketing",
				"patterns": []string{"connect.facebook.net", "tracker.test/static/track.js?id=dyn", "tracker.test/static/frame*"}},
		}},
	}
}

// banner returns the banner settings of a crafted configuration, for tests to adjust.
func banner(cfg map[string]any) map[string]any { return cfg["banner"].(map[string]any) }

// ---- The site side: pages with a strict CSP, a tracker on a second origin. ----

// site serves the test pages at http://127.0.0.1:PORT and the "third party" at
// http://tracker.test:PORT (the same server, another origin).
type site struct {
	srv   *httptest.Server
	api   string
	mu    sync.Mutex
	pages map[string]string
}

var safeID = regexp.MustCompile(`^[a-z0-9-]{1,40}$`)

func newSite(t *testing.T, apiOrigin string) *site {
	s := &site{api: apiOrigin, pages: map[string]string{}}
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
	mux.HandleFunc("/static/track.js", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("id")
		if !safeID.MatchString(id) {
			http.Error(w, "bad id", 400)
			return
		}
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, "(window.__ran = window.__ran || []).push(%q);\n", id)
	})
	mux.HandleFunc("/static/frame.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!doctype html><title>video</title><p>embedded video</p>"))
	})
	mux.HandleFunc("/static/", func(w http.ResponseWriter, r *http.Request) {
		body, ok := staticFiles[strings.TrimPrefix(r.URL.Path, "/static/")]
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
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) port() string {
	_, p, _ := net.SplitHostPort(strings.TrimPrefix(s.srv.URL, "http://"))
	return p
}

// tracker is the third-party origin.
func (s *site) tracker() string { return "http://tracker.test:" + s.port() }

// csp is strict: no 'unsafe-inline', no 'unsafe-eval'; consentd's origin is allowed for
// scripts and fetches, as the setup documentation asks of site owners.
func (s *site) csp() string {
	return "default-src 'none'; script-src 'self' " + s.api + " " + s.tracker() +
		"; connect-src 'self' " + s.api + "; style-src 'self'; img-src 'self' data:; frame-src " + s.tracker() +
		"; base-uri 'none'; form-action 'none'"
}

// page registers a page whose <head> starts with the given snippet and returns its URL.
func (s *site) page(name, lang, snippet, head, body string) string {
	html := `<!doctype html>
<html lang="` + lang + `"><head><meta charset="utf-8">
` + snippet + `
<script src="/static/page.js"></script>
` + head + `
<title>Acme Outdoor</title>
<link rel="stylesheet" href="/static/site.css">
</head><body>
<header><strong>Acme Outdoor</strong><nav><a href="#">Tents</a> <a href="#">Boots</a> <a href="#">Jackets</a></nav></header>
<main>
<h1>Gear for every trail</h1>
<p>Lightweight tents, waterproof boots and warm jackets, tested on real trails by our team. Free shipping over 50 €.</p>
<p><button id="before" type="button">Shop now</button> <button id="open" type="button" data-consentd-open>Cookie settings</button></p>
` + body + `
</main></body></html>`
	s.mu.Lock()
	s.pages[name] = html
	s.mu.Unlock()
	return s.srv.URL + "/p/" + name
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
	// inject.js inserts scripts at once, as a tag manager does, before the configuration is known.
	"inject.js": `
(function () {
  var base = 'http://tracker.test:' + location.port + '/static/track.js?id=';
  var held = document.createElement('script');
  held.src = base + 'dyn';
  held.onload = function () { window.__onload = true; };
  document.head.appendChild(held);
  var free = document.createElement('script');
  free.src = base + 'free';
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
