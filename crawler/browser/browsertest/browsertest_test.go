package browsertest

import (
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/core/coretest"
)

func TestMain(m *testing.M) { Main(m) }

// recorder is a testing.TB that records instead of stopping the test.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Fatalf(f string, args ...any) { r.fatal = fmtf(f, args...) }
func (r *recorder) Skipf(f string, args ...any)  { r.skip = fmtf(f, args...) }

func fmtf(f string, args ...any) string { return strings.TrimSpace(fmt.Sprintf(f, args...)) }

// TestRequire: a missing browser skips loudly, or fails under CI; a present one is returned.
// Not parallel: it sets CI, and hushes coretest.Loud (its skips are on purpose).
func TestRequire(t *testing.T) {
	coretest.Hush(t)
	withCI := func(ci string) *recorder {
		t.Setenv("CI", ci)
		return &recorder{TB: t}
	}
	missing := filepath.Join(t.TempDir(), "chromium")
	r := withCI("")
	if got := require(r, missing); got != "" || r.fatal != "" || !strings.Contains(r.skip, "!!! SKIPPING: the browser tests' Chromium "+missing+" is missing") {
		t.Fatalf("without CI: %q, fatal %q, skip %q", got, r.fatal, r.skip)
	}
	r = withCI("true")
	if got := require(r, missing); got != "" || r.skip != "" || !strings.Contains(r.fatal, "CI=true but the browser tests' Chromium "+missing+" is missing") {
		t.Fatalf("under CI: %q, fatal %q, skip %q", got, r.fatal, r.skip)
	}
	r = withCI("true")
	if got := require(r, filepath.Dir(missing)); got != "" || r.fatal == "" {
		t.Fatalf("a folder is no browser: %q, fatal %q", got, r.fatal)
	}
	plain := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r = withCI("")
	if got := require(r, plain); got != "" || r.fatal != "" || !strings.Contains(r.skip, "!!! SKIPPING: the browser tests' Chromium "+plain) {
		t.Fatalf("a file that does not execute is no browser: %q, fatal %q, skip %q", got, r.fatal, r.skip)
	}
	exe := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = withCI("true")
	if got := require(r, exe); got != exe || r.fatal != "" || r.skip != "" {
		t.Fatalf("present: %q, fatal %q, skip %q", got, r.fatal, r.skip)
	}
}

// TestHarness drives a page through the harness: only the mapped host resolves, the tab
// records the page's CSP violations, eval and waitFor see the page, axe-core finds a missing
// image text, and a screenshot is a PNG of the window's size.
func TestHarness(t *testing.T) {
	b := New(Options{Hosts: []string{"harness.example"}, Width: 640, Height: 480})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-n'; img-src data:")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html lang="en"><head><title>Harness</title></head><body><main>
<h1>` + r.Host[:strings.IndexByte(r.Host, ':')] + `</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7">
<script nonce="n">setTimeout(function () { window.late = 42; }, 100);</script>
<script>window.blocked = true;</script>
</main></body></html>`))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]
	ctx := b.Tab(t, 30*time.Second)

	Navigate(t, ctx, "http://harness.example"+port+"/")
	WaitFor(t, ctx, "window.late === 42", 10*time.Second)
	var h1 string
	Eval(t, ctx, "document.querySelector('h1').textContent", &h1)
	if h1 != "harness.example" {
		t.Fatalf("h1 %q: the mapped host did not reach the server", h1)
	}
	var blocked bool
	Eval(t, ctx, "!!window.blocked", &blocked)
	if v := Violations(t, ctx); blocked || len(v) != 1 || !strings.HasPrefix(v[0], "script-src-elem inline") {
		t.Fatalf("blocked script ran: %v; violations %q", blocked, v)
	}
	if res := AxeViolations(t, ctx, AxeOptions{}); !strings.Contains(res, `"id":"image-alt"`) {
		t.Fatalf("axe-core missed the image without alt: %s", res)
	}
	Eval(t, ctx, "document.querySelector('img').alt = 'dot'", nil)
	if res := AxeViolations(t, ctx, AxeOptions{Include: []string{"img"}}); res != "[]" {
		t.Fatalf("axe-core on the fixed image: %s", res)
	}

	// Other names do not resolve: the page stays unreachable.
	other := b.Tab(t, 30*time.Second)
	if err := chromedp.Do(other, chromedp.Navigate("http://unmapped.example"+port+"/")); err == nil || !strings.Contains(err.Error(), "ERR_NAME_NOT_RESOLVED") {
		t.Fatalf("an unmapped name: %v, want ERR_NAME_NOT_RESOLVED", err)
	}

	p := Screenshot(t, ctx, "harness", true)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != 640 {
		t.Fatalf("screenshot %dx%d, want the window's width 640", cfg.Width, cfg.Height)
	}
}
