// Package browsertest is the one harness of the tests that drive headless Chromium: where the
// browser is and what a test does without it (Require), a browser shared by a test binary
// (Browser, started on first use with its host rules, window size and flags), tabs that record
// Content-Security-Policy violations, eval, waitFor, navigate, screenshots kept in a folder
// printed at the end, the vendored axe-core runner, and the crawler's browser pool for tests.
//
// What a test's world is (its servers, sites, pages) stays in its package; this package only
// drives the browser. Call Close from TestMain after m.Run (or use Main).
package browsertest

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/core/coretest"
	"github.com/consentd/consentd/crawler/browser"
)

// Path is the browser the tests drive: the one the crawler's pool would pick (browser.Find:
// Chromium's headless shell when installed, which .ci/run installs), else where Debian's
// chromium-headless-shell package puts it, for the message that says it is missing.
var Path = func() string {
	if p := browser.Find(); p != "" {
		return p
	}
	return "/usr/bin/chromium-headless-shell"
}()

// Require returns the Chromium executable, or skips the test loudly when it is missing (or is
// no executable file), or fails it when CI=true (CI must run every browser test).
func Require(t testing.TB) string {
	t.Helper()
	return require(t, Path)
}

// require is Require for the browser at path (coretest.Missing when it is none).
func require(t testing.TB, path string) string {
	t.Helper()
	if fi, err := os.Stat(path); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		coretest.Missing(t, "the browser tests' Chromium "+path+" is missing or no executable file (apt-get update && apt-get install -y chromium-headless-shell)")
		return ""
	}
	return path
}

// Options configure a shared Browser.
type Options struct {
	// Hosts are names the browser resolves to 127.0.0.1. Every other name but 127.0.0.1 fails
	// to resolve and no proxy is used: the browser reaches nothing but loopback.
	Hosts []string
	// Width and Height are the window's size; 1280×800 when zero.
	Width, Height int
	// Flags are further Chromium options (after browser.Flags and the ones above).
	Flags []chromedp.ExecAllocatorOption
}

// Browser is a headless Chromium shared by the tests of a binary, started by the first test
// that needs it and stopped by Close.
type Browser struct {
	opts Options

	once   sync.Once
	ctx    context.Context
	err    error
	cancel func()
}

var (
	mu       sync.Mutex
	browsers []*Browser
	pool     *browser.Pool
	shotsDir string
)

// New returns a Browser with opts; it starts on first use.
func New(opts Options) *Browser {
	if opts.Width == 0 || opts.Height == 0 {
		opts.Width, opts.Height = 1280, 800
	}
	b := &Browser{opts: opts, cancel: func() {}}
	mu.Lock()
	browsers = append(browsers, b)
	mu.Unlock()
	return b
}

// Context returns the browser's context, starting Chromium on first use (after Require).
func (b *Browser) Context(t testing.TB) context.Context {
	t.Helper()
	path := Require(t)
	b.once.Do(func() { b.start(path) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.ctx
}

func (b *Browser) start(path string) {
	dir, err := os.MkdirTemp("", "consentd-chromium-")
	if err != nil {
		b.err = err
		return
	}
	var rules string
	for _, h := range b.opts.Hosts {
		rules += "MAP " + h + " 127.0.0.1, "
	}
	opts := append(browser.Flags(),
		chromedp.ExecPath(path),
		chromedp.UserDataDir(dir),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("host-resolver-rules", rules+"MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.WindowSize(b.opts.Width, b.opts.Height),
		// No optimizing compilers (TurboFan, Maglev): a test's page runs its scripts for a
		// moment, not long enough for their optimized code to repay compiling it on every
		// new renderer, and what a script does is the same in every tier. Most of the test
		// browsers' renderer CPU was V8's background compilation (axe-core on every console page,
		// the runtime on every banner page): TestEveryPageFitsEveryScreen alone, 67.5-71.6
		// machine CPU-s with them, 48.1-51.5 without (alternating runs). The crawler's pool,
		// which is the product's, keeps V8's defaults.
		chromedp.Flag("js-flags", "--no-opt --no-maglev"),
	)
	opts = append(opts, b.opts.Flags...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		b.err = fmt.Errorf("starting %s: %w", path, err)
	}
	b.ctx = bctx
	b.cancel = func() { cancelBrowser(); cancelAlloc(); _ = os.RemoveAll(dir) }
}

// violationRecorder collects the page's securitypolicyviolation events in window.__violations.
const violationRecorder = `
window.__violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sourceFile || '') + ':' + e.lineNumber);
});`

// Tab opens a tab in a fresh browser context (its own cookies, storage and HTTP cache), closed
// when the test ends, that fails after timeout. Every document it loads first runs the CSP
// violation recorder (see Violations), then scripts. The tab behaves as the focused one even
// while parallel tests' tabs are open, so that focus and keyboard events reach its page.
func (b *Browser) Tab(t testing.TB, timeout time.Duration, scripts ...string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.Context(t), chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelT)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
			return err
		}
		for _, s := range append([]string{violationRecorder}, scripts...) {
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

// Close stops the browser (a later test may start it again).
func (b *Browser) Close() {
	mu.Lock()
	defer mu.Unlock()
	b.cancel()
	b.cancel, b.once, b.err = func() {}, sync.Once{}, nil
}

// Close stops every Browser and the Pool, and prints where the screenshots are.
func Close() {
	mu.Lock()
	bs, p, dir := browsers, pool, shotsDir
	browsers, pool = nil, nil
	mu.Unlock()
	for _, b := range bs {
		b.Close()
	}
	if p != nil {
		_ = p.Close()
	}
	if dir != "" {
		fmt.Printf("screenshots: %s\n", dir)
	}
}

// Parallel sets go test's -parallel to GOMAXPROCS plus extra, unless the command line sets it:
// for a package whose tests mostly wait (on child processes, timers, a page that hangs), which
// with the default (GOMAXPROCS) hold both slots of a two-core machine while its cores idle.
// Call it from TestMain, before m.Run.
func Parallel(extra int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(runtime.GOMAXPROCS(0)+extra)); err != nil {
			panic(err)
		}
	}
}

// Main runs the tests, then Close, and exits: func TestMain(m *testing.M) { browsertest.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	Close()
	os.Exit(code)
}

// Pool returns the test binary's crawler browser pool (one browser), created on first use
// with opts (Path and Size are set here) after Require.
func Pool(t testing.TB, opts browser.Options) *browser.Pool {
	t.Helper()
	opts.Path, opts.Size = Require(t), 1
	mu.Lock()
	defer mu.Unlock()
	if pool == nil {
		pool = browser.NewPool(opts)
	}
	return pool
}

// Eval evaluates a JavaScript expression in the tab, awaiting a promise, into out (nil: the
// value is dropped and expr may be statements).
func Eval(t testing.TB, ctx context.Context, expr string, out any) {
	t.Helper()
	if out == nil {
		expr = "(function () { " + expr + "; return true; })()"
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %.300s: %v", expr, err)
	}
	if out != nil {
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("evaluating %.300s: %v (%s)", expr, err, b)
		}
	}
}

// WaitFor polls a JavaScript condition until it is true, failing the test after within. A
// condition that throws, or a page between two documents, counts as not yet (the last error
// is in the failure). A wait costs only as long as the page takes; within only matters when
// the test fails.
func WaitFor(t testing.TB, ctx context.Context, cond string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+cond+")"))
		if err == nil && ok {
			return
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			where, _ := chromedp.Run(ctx, chromedp.Evaluate[string](
				"location.href + ' ' + document.title + ' ' + ((document.querySelector('main') || document.body || {}).innerText || '').slice(0, 600)"))
			t.Fatalf("timed out after %v waiting for %s (last error %v) on %s", within, cond, err, where)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Navigate loads url in the tab and waits for the load event.
func Navigate(t testing.TB, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate %s: %v", url, err)
	}
}

// Violations returns the Content-Security-Policy violations the page reported so far.
func Violations(t testing.TB, ctx context.Context) []string {
	t.Helper()
	var v []string
	Eval(t, ctx, "window.__violations", &v)
	return v
}

// NoViolations fails the test when the page's Content-Security-Policy reported anything.
func NoViolations(t testing.TB, ctx context.Context, what string) {
	t.Helper()
	if v := Violations(t, ctx); len(v) > 0 {
		t.Fatalf("%s: Content-Security-Policy violations: %q", what, v)
	}
}

// animationsDone resolves once every animation and transition in the document, its shadow
// trees included, has finished (a banner's fade-in), so that a screenshot shows the end state.
const animationsDone = `Promise.all(document.getAnimations().map(function (a) { return a.finished.catch(function () {}); })).then(function () { return true; })`

// Screenshot saves the tab as name.png in the binary's screenshot folder (kept after the run;
// Close prints it) once its animations have finished, and returns the file. full photographs
// the page's whole length, except a page with frames: Chromium draws out-of-process frames
// only in the viewport, so such a page is photographed as the viewport shows it.
func Screenshot(t testing.TB, ctx context.Context, name string, full bool) string {
	t.Helper()
	dir := screenshots(t)
	Eval(t, ctx, animationsDone, new(bool))
	if full {
		var frames bool
		Eval(t, ctx, "document.querySelectorAll('iframe').length > 0", &frames)
		full = !frames
	}
	buf, err := chromedp.Run(ctx, chromedp.Action[[]byte](func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
		fast := true
		r, err := cdp.Call(ctx, tg, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format: page.CaptureScreenshotFormatPng, FromSurface: &fast, CaptureBeyondViewport: &full, OptimizeForSpeed: &fast})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	return p
}

// screenshots is the binary's screenshot folder, consentd-screenshots-<package>-*.
func screenshots(t testing.TB) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if shotsDir == "" {
		wd, _ := os.Getwd() // a test binary runs in its package's folder
		dir, err := os.MkdirTemp("", "consentd-screenshots-"+filepath.Base(wd)+"-")
		if err != nil {
			t.Fatal(err)
		}
		shotsDir = dir
	}
	return shotsDir
}

// axeSource is axe-core 4.14.1, vendored in axe/ (see axe/VERSION); test binaries only.
//
//go:embed axe/axe.min.js
var axeSource string

// AxePreload is axe-core as a script for Tab, for a tab that runs axe-core on (nearly) every
// page it loads: Chromium then runs it as each document starts, instead of AxeViolations
// sending its 650 kB over the DevTools connection to be parsed again after each navigation
// (on this machine about 60 ms of a page's load against about 120 ms per page sent).
// AxeViolations sends it only to a document that does not have it.
var AxePreload = axeSource

// AxeOptions choose what axe-core checks.
type AxeOptions struct {
	// Tags are the axe-core rule tags to run; WCAG 2.1 A and AA when empty.
	Tags []string
	// Include are CSS selectors of the elements to check (their shadow trees included); the
	// whole document when empty.
	Include []string
	// NoFrames leaves the page's frames out.
	NoFrames bool
}

// wcag21 are axe-core's tags of WCAG 2.0 and 2.1, levels A and AA.
var wcag21 = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa"}

// AxeViolations runs axe-core in the tab and returns its violations as JSON ("[]": none).
func AxeViolations(t testing.TB, ctx context.Context, o AxeOptions) string {
	t.Helper()
	var loaded bool
	Eval(t, ctx, "!!window.axe", &loaded)
	if !loaded {
		Eval(t, ctx, axeSource, nil)
	}
	if len(o.Tags) == 0 {
		o.Tags = wcag21
	}
	tags, _ := json.Marshal(o.Tags)
	target := "document"
	if len(o.Include) > 0 {
		sel, _ := json.Marshal(o.Include)
		target = "{include: " + string(sel) + ".map(function (s) { return [s]; })}"
	}
	frames := ""
	if o.NoFrames {
		frames = ", iframes: false"
	}
	var res string
	Eval(t, ctx, `axe.run(`+target+`, {runOnly: {type: 'tag', values: `+string(tags)+`}, resultTypes: ['violations']`+frames+`})
  .then(function (r) { return JSON.stringify(r.violations.map(function (v) {
    return {id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(function (n) { return n.target.join(' ') + ': ' + n.failureSummary; })};
  })); })`, &res)
	return res
}

// Axe runs axe-core in the tab and fails the test (without stopping it) on any violation.
func Axe(t testing.TB, ctx context.Context, what string, o AxeOptions) {
	t.Helper()
	if res := AxeViolations(t, ctx, o); res != "[]" {
		t.Errorf("axe-core found accessibility violations in %s: %s", what, res)
	}
}

// JSString is s as a JavaScript string literal.
func JSString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
