package crawler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/crawler/netguard"
	"github.com/consentd/consentd/library/librarytest"
)

// canary is a real loopback server that counts what reaches it.
func canary(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/javascript")
		fmt.Fprint(w, "/* canary */")
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// guardedSite is a public-looking site whose page reaches for loopback and private addresses
// every way a page can: a script, an image, fetch, a redirect, a host that resolves to
// loopback, and finally a navigation.
func guardedSite(t *testing.T, target string) http.Handler {
	page := `<!doctype html><html><head><title>Guarded</title>
<script src="` + target + `/script.js"></script>
<script src="/hop"></script>
<script src="https://inside.guarded.example/dns.js"></script>
</head><body><img src="http://10.1.2.3/pixel.gif">
<script>
fetch('` + target + `/fetch', {mode: 'no-cors'}).catch(function () {});
setTimeout(function () { location.href = '` + target + `/navigate'; }, 50);
</script></body></html>`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, page)
		case "/hop":
			http.Redirect(w, r, target+"/redirected.js", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
}

// TestDeepAddressGuard: nothing a page asks for reaches loopback or private addresses without
// allow-private, whether fetched, redirected to, resolved to or navigated to; and the browser
// has no way around the proxy (the canary counts direct connections too). With allow-private
// the same canary is reached, so the test can tell.
func TestDeepAddressGuard(t *testing.T) {
	b := testBrowsers(t)
	srv, hits := canary(t)
	target := srv.URL // http://127.0.0.1:PORT
	run := func(allow bool) *Result {
		tb := newTestbed(t, guardedSite(t, target))
		e := New(librarytest.Index(t))
		tb.install(e, map[string]string{"inside.guarded.example": "127.0.0.1"})
		if allow {
			// The canary is a real loopback server: let the scan's connector reach it.
			e.hooks = &netguard.Hooks{Resolve: e.hooks.Resolve, Connect: func(ctx context.Context, network, addr string) (net.Conn, error) {
				if strings.HasPrefix(addr, "127.0.0.1:") && addr == strings.TrimPrefix(target, "http://") {
					var d net.Dialer
					return d.DialContext(ctx, network, addr)
				}
				return tb.hooks(nil).Connect(ctx, network, addr)
			}}
		}
		res, err := e.DeepCrawl(context.Background(), Options{StartURLs: []string{"https://www.guarded.example/"}, AllowPrivate: allow,
			Timeout: 30 * time.Second}, b)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(false)
	if n := hits.Load(); n != 0 {
		t.Fatalf("the loopback canary was reached %d times without allow-private", n)
	}
	refused := map[string]bool{}
	for _, r := range res.Requests {
		if strings.Contains(r.Error, "refused to scan") {
			refused[strings.TrimPrefix(strings.TrimPrefix(r.URL, target), "https://")] = true
		}
	}
	for _, want := range []string{"/script.js", "/fetch", "/redirected.js", "inside.guarded.example/dns.js", "/navigate"} {
		if !refused[want] {
			t.Errorf("no refused request for %s; refused: %v", want, refused)
		}
	}
	var private bool
	for _, e := range res.Errors {
		private = private || strings.Contains(e.URL, "10.1.2.3") && strings.Contains(e.Message, "private")
	}
	if !private {
		t.Errorf("the private pixel 10.1.2.3 has no page error: %+v", res.Errors)
	}
	run(true)
	if hits.Load() == 0 {
		t.Fatal("with allow-private the canary was never reached: the test cannot tell")
	}
}

// TestDeepBrowserCrash: a browser that dies while loading a page is replaced and the page
// loaded again; one that dies every time fails the scan with a temporary error saying so.
//
// It has a browser pool of its own, so it runs in parallel.
func TestDeepBrowserCrash(t *testing.T) {
	t.Parallel()
	b := browser.NewPool(browser.Options{UserAgent: DefaultUserAgent, Path: testBrowserPath(t), Size: 1})
	defer b.Close()
	dir := "../testdata/deep/script-cookies"
	cfg := loadSiteConfig(t, dir)
	tb := newTestbed(t, siteHandler(dir, cfg))
	e := New(librarytest.Index(t))
	tb.install(e, nil)
	var kills atomic.Int64
	kill := func(_ string, br *browser.Browser) {
		kills.Add(1)
		_ = syscall.Kill(br.PID(), syscall.SIGKILL)
		for br.Alive() {
			time.Sleep(10 * time.Millisecond)
		}
	}
	once := atomic.Bool{}
	e.beforeVisit = func(page string, br *browser.Browser) {
		if once.CompareAndSwap(false, true) {
			kill(page, br)
		}
	}
	opts := Options{StartURLs: cfg.Start, Timeout: 60 * time.Second, PagesAtOnce: 1}
	res, err := e.DeepCrawl(context.Background(), opts, b)
	if err != nil {
		t.Fatalf("a crash on one page failed the scan: %v", err)
	}
	if kills.Load() != 1 || len(res.Cookies) == 0 {
		t.Fatalf("after the crash: %d kills, cookies %+v", kills.Load(), res.Cookies)
	}
	e.beforeVisit = kill
	_, err = e.DeepCrawl(context.Background(), opts, b)
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindBrowser || !se.Temporary || !strings.Contains(se.Message, "crashed") {
		t.Fatalf("a browser dying on every attempt: err %v", err)
	}
}

// TestDeepNoBrowser: without Chromium a deep scan fails at once with a sentence saying how to
// get one.
func TestDeepNoBrowser(t *testing.T) {
	b := browser.NewPool(browser.Options{UserAgent: DefaultUserAgent, Path: "/nonexistent/chromium"})
	_, err := New(librarytest.Index(t)).DeepCrawl(context.Background(), Options{StartURLs: []string{"https://www.example.com/"}}, b)
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindNoBrowser || !strings.Contains(se.Message, "CONSENTD_CHROMIUM_PATH") ||
		!strings.Contains(se.Message, "apt-get install chromium") {
		t.Fatalf("err %v", err)
	}
	if b.Available() == nil {
		t.Fatal("Available says a missing browser is there")
	}
}

// TestDeepBudget: the browser's downloads count against the scan's budget; past it, requests
// are refused and the scan says so.
func TestDeepBudget(t *testing.T) {
	b := testBrowsers(t)
	res, err := deepScanSite(t, "../testdata/deep/gtm-inject", librarytest.Index(t), b, func(o *Options) { o.MaxBrowserBytes = 1500 })
	if err != nil {
		t.Fatal(err)
	}
	var budget bool
	for _, e := range res.Errors {
		budget = budget || strings.Contains(e.Message, "download budget of 1500 bytes")
	}
	if !budget {
		t.Fatalf("no budget error: %+v", res.Errors)
	}
	if len(res.Cookies) == 4 {
		t.Fatalf("every tag loaded within a budget of 1500 bytes: %+v", res.Cookies)
	}
}

// TestDeepStorefront: a password-protected storefront is unlocked by the static pass, and the
// browser sees the shop behind the gate, not the password page.
func TestDeepStorefront(t *testing.T) {
	b := testBrowsers(t)
	static, err := scanSite(t, "../testdata/sites/shop-password", librarytest.Index(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := deepScanSite(t, "../testdata/sites/shop-password", librarytest.Index(t), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, r := range res.Requests {
		if r.Type == "Document" {
			docs = append(docs, r.URL)
			if strings.HasSuffix(r.URL, "/password") {
				t.Errorf("the browser was sent to the password page: %+v", r)
			}
		}
	}
	// The shop's pixels are configuration data a pixel manager the recording lacks would load:
	// in the browser they are mentions, not detections (expected.json's deep object).
	if len(docs) == 0 || len(res.Services)+len(res.Mentions) < len(static.Services) {
		t.Fatalf("documents %v, services %d and mentions %d (static %d)", docs, len(res.Services), len(res.Mentions), len(static.Services))
	}
	for _, c := range res.Cookies {
		if c.Name == "storefront_digest" {
			t.Errorf("the scan's own storefront cookie is reported: %+v", c)
		}
	}
}

// TestDeepBrowserHang: a browser that stops answering (SIGSTOP) is given up at the page
// timeout, replaced, and the page loaded on the new one.
//
// It has a browser pool of its own, so it runs in parallel.
func TestDeepBrowserHang(t *testing.T) {
	t.Parallel()
	b := browser.NewPool(browser.Options{UserAgent: DefaultUserAgent, Path: testBrowserPath(t), Size: 1})
	defer b.Close()
	dir := "../testdata/deep/script-cookies"
	cfg := loadSiteConfig(t, dir)
	tb := newTestbed(t, siteHandler(dir, cfg))
	e := New(librarytest.Index(t))
	tb.install(e, nil)
	var stopped atomic.Int64
	e.beforeVisit = func(_ string, br *browser.Browser) {
		if stopped.CompareAndSwap(0, int64(br.PID())) {
			_ = syscall.Kill(br.PID(), syscall.SIGSTOP)
		}
	}
	start := time.Now()
	res, err := e.DeepCrawl(context.Background(), Options{StartURLs: cfg.Start, Timeout: 60 * time.Second, PagesAtOnce: 1,
		PageTimeout: 8 * time.Second}, b)
	if err != nil {
		t.Fatalf("a hung browser failed the scan: %v", err)
	}
	if stopped.Load() == 0 || len(res.Cookies) == 0 {
		t.Fatalf("stopped %d, cookies %+v", stopped.Load(), res.Cookies)
	}
	for _, pid := range b.PIDs() {
		if pid == int(stopped.Load()) {
			t.Fatal("the hung browser is still in the pool")
		}
	}
	t.Logf("recovered in %v", time.Since(start).Round(time.Millisecond))
}

// TestDeepEndlessScript: a page whose script never yields fails alone, with a page error; the
// browser still answers, so it is kept and the scan completes.
func TestDeepEndlessScript(t *testing.T) {
	b := testBrowsers(t)
	tb := newTestbed(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><body><a href="/busy">busy</a><script>document.cookie='ok=1; max-age=600'</script></body></html>`)
		case "/busy":
			fmt.Fprint(w, `<html><body><script>setTimeout(function () { for (;;) {} }, 0)</script></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	e := New(librarytest.Index(t))
	tb.install(e, nil)
	res, err := e.DeepCrawl(context.Background(), Options{StartURLs: []string{"https://www.busy.example/"}, Timeout: 60 * time.Second,
		PageTimeout: 4 * time.Second}, b)
	if err != nil {
		t.Fatalf("an endless script failed the scan: %v", err)
	}
	var busy bool
	for _, e := range res.Errors {
		busy = busy || strings.HasSuffix(e.URL, "/busy") && strings.Contains(e.Message, "did not finish")
	}
	if !busy || len(res.Cookies) != 1 {
		t.Fatalf("errors %+v, cookies %+v", res.Errors, res.Cookies)
	}
}
