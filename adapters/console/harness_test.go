package console_test

// The browser tests' world: headless Chromium with every name but loopback unresolvable, the
// real consentd (package app on SQLite, with the console, scan workers and private scanning),
// and a recorded site (testdata/sites/blog) served on loopback for the scanner.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/app"
	chromium "github.com/consentd/consentd/crawler/browser"
)

const chromiumPath = "/usr/bin/chromium"

// apiKey is the bootstrap key of the test server's organization.
const apiKey = "console-test-key-0123456789"

var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserErr    error
	browserCancel = func() {}
	shotsOnce     sync.Once
	shotsDir      string
)

// browser returns the shared headless Chromium. Without Chromium the test is skipped loudly,
// or fails when CI=true.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is missing", chromiumPath)
		}
		t.Skipf("!!! SKIPPING BROWSER TEST: %s not found !!!", chromiumPath)
	}
	browserOnce.Do(func() {
		dir, err := os.MkdirTemp("", "consentd-console-chromium-")
		if err != nil {
			browserErr = err
			return
		}
		opts := append(chromium.Flags(),
			chromedp.ExecPath(chromiumPath),
			chromedp.UserDataDir(dir),
			chromedp.Flag("no-proxy-server", true),
			// All external network is blocked: every name but loopback fails to resolve.
			chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
			chromedp.WindowSize(1280, 900),
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

func TestMain(m *testing.M) {
	code := m.Run()
	browserCancel()
	if shotsDir != "" {
		fmt.Printf("console screenshots: %s\n", shotsDir)
	}
	os.Exit(code)
}

// tab opens a tab in a fresh browser context (own cookies) that records CSP violations.
func tab(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser(t), chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancelT)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
window.__violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sourceFile || '') + ':' + e.lineNumber);
});`})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// eval evaluates a JavaScript expression into out (nil: dropped).
func eval(t *testing.T, ctx context.Context, expr string, out any) {
	t.Helper()
	if out == nil {
		expr = "(function () { " + expr + "; return true; })()"
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %.200s: %v", expr, err)
	}
	if out != nil {
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("evaluating %.200s: %v (%s)", expr, err, b)
		}
	}
}

const patience = 20 * time.Second

// waitFor polls a JavaScript condition until it holds.
func waitFor(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	waitForWithin(t, ctx, cond, patience)
}

func waitForWithin(t *testing.T, ctx context.Context, cond string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("(function () { try { return !!("+cond+"); } catch (e) { return false; } })()"))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			var where string
			eval(t, ctx, "location.href + ' ' + document.title + ' ' + ((document.querySelector('main')||{}).innerText||'').slice(0, 600)", &where)
			t.Fatalf("timed out waiting for %s (err %v) on %s", cond, err, where)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate %s: %v", url, err)
	}
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

// screenshot saves the page (whole length) as name.png in a folder kept after the run.
// Chromium draws out-of-process frames (the banner preview's sandboxed frame) only in the
// viewport: a page with a frame is photographed as the viewport shows it.
func screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	shotsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "consentd-console-screenshots-")
		if err == nil {
			shotsDir = dir
		}
	})
	if shotsDir == "" {
		t.Fatal("no screenshot folder")
	}
	var frames bool
	eval(t, ctx, "document.querySelectorAll('iframe').length > 0", &frames)
	shot := chromedp.FullScreenshot(100)
	if frames {
		shot = chromedp.CaptureScreenshot()
	}
	buf, err := chromedp.Run(ctx, shot)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(shotsDir, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	return p
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
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "testdata", "sites", "blog", "blog.example"))))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// ---- What every page must do. ----

var (
	axeOnce   sync.Once
	axeSource string
)

// checkPage checks that the page loaded completely with nothing from outside (every
// resource from the console's origin, stylesheets and scripts live, images decoded), that the
// Content-Security-Policy reported nothing, that axe-core finds no WCAG 2.1 A/AA violation,
// and saves a screenshot.
func checkPage(t *testing.T, ctx context.Context, base, name string) {
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
	var v []string
	eval(t, ctx, "window.__violations", &v)
	if len(v) > 0 {
		t.Fatalf("%s: Content-Security-Policy violations: %q", name, v)
	}
	axeOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join("testdata", "axe", "axe.min.js"))
		if err == nil {
			axeSource = string(b)
		}
	})
	if axeSource == "" {
		t.Fatal("testdata/axe/axe.min.js missing")
	}
	eval(t, ctx, "if (!window.axe) { "+axeSource+"\n}", nil)
	res, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}, resultTypes: ['violations'], iframes: false})
  .then(function (r) { return JSON.stringify(r.violations.map(function (v) {
    return {id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(function (n) { return n.target.join(' ') + ': ' + n.failureSummary; })};
  })); })`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe on %s: %v", name, err)
	}
	if res != "[]" {
		t.Errorf("axe-core found accessibility violations on %s: %s", name, res)
	}
	screenshot(t, ctx, name)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
