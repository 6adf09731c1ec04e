package console_test

// The browser tests' world: headless Chromium with every name but loopback unresolvable, the
// real consentd (package app on SQLite, with the console, scan workers and private scanning),
// and a recorded site (testdata/sites/blog) served on loopback for the scanner.

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/crawler/browser/browsertest"
)

// apiKey is the bootstrap key of the test server's organization.
const apiKey = "console-test-key-0123456789"

// chrome is the shared headless Chromium: every name but loopback fails to resolve.
var chrome = browsertest.New(browsertest.Options{Width: 1280, Height: 900})

func TestMain(m *testing.M) {
	// The console's tests sign in, set up two-step sign-in and hit the sign-in limit many
	// times: with argon2id at its production cost, hashing was most of their CPU. The hash
	// records its parameters, so the cheap ones are checked as they were made.
	identity.ArgonTime, identity.ArgonMemory = 1, 1024
	browsertest.Main(m)
}

// tab opens a tab in a fresh browser context (own cookies) that records CSP violations.
func tab(t *testing.T) context.Context {
	t.Helper()
	return chrome.Tab(t, 4*time.Minute)
}

// eval evaluates a JavaScript expression into out (nil: dropped).
func eval(t *testing.T, ctx context.Context, expr string, out any) {
	t.Helper()
	browsertest.Eval(t, ctx, expr, out)
}

// patience bounds a wait for the page; it is a ceiling for a machine under load (CI runs
// several browser packages at once), not a timing check.
const patience = 60 * time.Second

// waitFor polls a JavaScript condition until it holds.
func waitFor(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	browsertest.WaitFor(t, ctx, cond, patience)
}

func waitForWithin(t *testing.T, ctx context.Context, cond string, d time.Duration) {
	t.Helper()
	browsertest.WaitFor(t, ctx, cond, d)
}

func navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	browsertest.Navigate(t, ctx, url)
	waitFor(t, ctx, "document.readyState === 'complete'")
}

// submit runs a page action that navigates (clicking a submit button, following a link) and
// waits for the next page to load.
func submit(t *testing.T, ctx context.Context, action string) {
	t.Helper()
	eval(t, ctx, "window.__stale = true; "+action, nil)
	waitFor(t, ctx, "!window.__stale && document.readyState === 'complete'")
}

// fill sets form fields by CSS selector, firing input and change events as typing would.
func fill(t *testing.T, ctx context.Context, fields map[string]string) {
	t.Helper()
	b, _ := json.Marshal(fields)
	eval(t, ctx, `var f = `+string(b)+`; Object.keys(f).forEach(function (s) {
  var el = document.querySelector(s);
  if (!el) throw new Error('no field ' + s);
  el.value = f[s];
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
})`, nil)
}

func text(t *testing.T, ctx context.Context) string {
	t.Helper()
	var s string
	eval(t, ctx, "document.querySelector('main').innerText", &s)
	return s
}

func mustContain(t *testing.T, ctx context.Context, want ...string) {
	t.Helper()
	s := text(t, ctx)
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Fatalf("page %q lacks %q:\n%.1500s", pageURL(t, ctx), w, s)
		}
	}
}

func pageURL(t *testing.T, ctx context.Context) string {
	t.Helper()
	var s string
	eval(t, ctx, "location.href", &s)
	return s
}

// screenshot saves the page (whole length) as name.png in the screenshot folder.
func screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	return browsertest.Screenshot(t, ctx, name, true)
}

// ---- The server. ----

// consentd is the real service on a loopback port: the console, the API and scan workers.
type consentd struct {
	base string
	app  *app.App
}

func startServer(t *testing.T, opts ...func(*app.Config)) *consentd {
	t.Helper()
	dir := t.TempDir()
	cfg := app.Config{
		Addr: "127.0.0.1:0", DatabaseURL: "sqlite://" + filepath.Join(dir, "c.db"), BootstrapAPIKey: apiKey,
		Workers: 1, ScanAllowPrivate: true, ScanPoll: 100 * time.Millisecond, Console: true, CountryHeader: "X-Country", RegionHeader: "X-Region",
		Logger: slog.New(templateFailures{t}),
	}
	for _, o := range opts {
		o(&cfg)
	}
	a, err := app.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := a.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.RunServer(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = a.Close()
	})
	return &consentd{base: "http://" + ln.Addr().String(), app: a}
}

// templateFailures is the test server's log: silent, but a page whose template fails to render
// fails the test, so that a broken page cannot hide behind a test that waits for something else.
type templateFailures struct{ t *testing.T }

func (templateFailures) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (h templateFailures) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "console template failed" {
		var attrs []string
		r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a.String()); return true })
		h.t.Errorf("console template failed: %s", strings.Join(attrs, " "))
	}
	return nil
}
func (h templateFailures) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h templateFailures) WithGroup(string) slog.Handler      { return h }

// blogSite serves the recorded blog (testdata/sites/blog) on loopback.
func blogSite(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "..", "testdata", "sites", "blog", "blog.example"))))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// ---- What every page must do. ----

// checkPage checks that the page loaded completely with nothing from outside (every
// resource from the console's origin, stylesheets and scripts live, images decoded), that the
// Content-Security-Policy reported nothing, that axe-core finds no WCAG 2.1 A/AA violation,
// and saves a screenshot.
func checkPage(t *testing.T, ctx context.Context, base, name string) {
	t.Helper()
	checkLoaded(t, ctx, base, name)
	screenshot(t, ctx, name)
}

// checkLoaded is checkPage without the screenshot.
func checkLoaded(t *testing.T, ctx context.Context, base, name string) {
	t.Helper()
	waitFor(t, ctx, "document.readyState === 'complete' && window.htmx && document.styleSheets.length > 0")
	var foreign []string
	eval(t, ctx, `performance.getEntriesByType('resource').map(function (e) { return e.name; })
  .concat([].map.call(document.querySelectorAll('[src],[href]'), function (e) { return e.src || e.href; }))
  .filter(function (u) { return u && !/^(about:|data:|mailto:|javascript:)/.test(u) && u.indexOf(`+jsString(base)+`) !== 0; })`, &foreign)
	if len(foreign) > 0 {
		t.Fatalf("%s refers to other origins: %q", name, foreign)
	}
	var broken []string
	eval(t, ctx, `[].concat(
  [].filter.call(document.images, function (i) { return !i.complete || i.naturalWidth === 0; }).map(function (i) { return 'image ' + i.src; }),
  [].filter.call(document.styleSheets, function (s) { try { return s.cssRules.length === 0; } catch (e) { return true; } }).map(function (s) { return 'stylesheet ' + s.href; }),
  performance.getEntriesByType('resource').filter(function (e) { return e.responseStatus && e.responseStatus >= 400; }).map(function (e) { return 'HTTP ' + e.responseStatus + ' ' + e.name; }))`, &broken)
	if len(broken) > 0 {
		t.Fatalf("%s did not load completely: %q", name, broken)
	}
	// Keyboard: the skip link comes first, nothing jumps the focus order.
	var keyboard string
	eval(t, ctx, `(function () {
  var first = document.querySelector('a[href], button, input, select, textarea, [tabindex]');
  if (!first || first.className !== 'skip' || first.getAttribute('href') !== '#main') return 'the skip link is not first';
  if (document.querySelector('[tabindex]:not([tabindex="0"]):not([tabindex="-1"])')) return 'a positive tabindex';
  return '';
})()`, &keyboard)
	if keyboard != "" {
		t.Fatalf("%s: %s", name, keyboard)
	}
	browsertest.NoViolations(t, ctx, name)
	browsertest.Axe(t, ctx, name, browsertest.AxeOptions{
		Tags: []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"}, NoFrames: true})
}

func jsString(s string) string { return browsertest.JSString(s) }
