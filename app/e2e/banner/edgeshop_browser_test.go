package banner_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/adapters/edgerewrite"
	"github.com/consentd/consentd/core"
)

// edgeHeldHosts are the hosts of the edge shop's vendors: nothing may reach them before a
// choice, after "Reject all" or after withdrawal.
var edgeHeldHosts = []string{"www.googletagmanager.com", "connect.facebook.net", "www.facebook.com", "static.hotjar.com",
	"www.youtube.com", "fonts.googleapis.com"}

// edgeShopPage is the shop of #43: the setup snippet first, then the vendors' snippets pasted
// unmarked as they ship (GA4's gtag.js, Meta Pixel with its <noscript> pixel and an image pixel,
// Hotjar, a YouTube iframe, a Google Fonts stylesheet) and resource hints to their hosts. third is the
// third-party server's origin port (the vendors' hosts resolve to it).
func edgeShopPage(snippet, port string) string {
	o := func(host string) string { return "https://" + host + ":" + port }
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
` + snippet + `
<title>Acme Outdoor</title>
<link rel="preconnect" href="` + o("www.googletagmanager.com") + `">
<link rel="dns-prefetch" href="` + o("connect.facebook.net") + `">
<link rel="preload" as="script" href="` + o("static.hotjar.com") + `/c/hotjar-1.js?id=hotjar-preload">
<link rel="stylesheet" href="` + o("fonts.googleapis.com") + `/css2?family=Inter&amp;id=fonts">
<script async src="` + o("www.googletagmanager.com") + `/gtag/js?id=G-SHOP1"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag('js',new Date());gtag('config','G-SHOP1');</script>
<script>!function(f,b,e,v,n,t,s){if(f.fbq)return;n=f.fbq=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};if(!f._fbq)f._fbq=n;n.push=n;n.loaded=!0;n.version='2.0';n.queue=[];t=b.createElement(e);t.async=!0;t.src=v;s=b.getElementsByTagName(e)[0];s.parentNode.insertBefore(t,s)}(window,document,'script','` + o("connect.facebook.net") + `/en_US/fbevents.js?id=fbq');fbq('init','123');fbq('track','PageView');</script>
<script>(function(h,o,t,j,a,r){h.hj=h.hj||function(){(h.hj.q=h.hj.q||[]).push(arguments)};h._hjSettings={hjid:1,hjsv:6};a=o.getElementsByTagName('head')[0];r=o.createElement('script');r.async=1;r.src=t+h._hjSettings.hjid+j+h._hjSettings.hjsv;a.appendChild(r);})(window,document,'` + o("static.hotjar.com") + `/c/hotjar-','.js?id=hotjar&sv=');</script>
</head><body>
<noscript><img height="1" width="1" style="display:none" src="` + o("www.facebook.com") + `/tr?id=123&amp;ev=PageView&amp;noscript=1"></noscript>
<main><h1>Gear for every trail</h1>
<p>Lightweight tents, waterproof boots and warm jackets.</p>
<iframe width="560" height="315" src="` + o("www.youtube.com") + `/embed/tent.html" title="Our tent"></iframe>
<img width="1" height="1" alt="" src="` + o("www.facebook.com") + `/tr?id=123&amp;ev=ViewContent">
</main></body></html>
`
}

// netLog records the URLs of the tab's requests from Chromium's own network events (CDP
// Network.requestWillBeSent, which reports the preload scanner's requests too).
type netLog struct {
	mu   sync.Mutex
	urls []string
}

func startNetLog(t testing.TB, ctx context.Context) *netLog {
	t.Helper()
	l := &netLog{}
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			l.mu.Lock()
			l.urls = append(l.urls, e.Request.URL)
			l.mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	return l
}

// take returns the URLs requested since the last take.
func (l *netLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.urls
	l.urls = nil
	return out
}

// held returns those of urls on a held host.
func held(urls []string) []string {
	var out []string
	for _, u := range urls {
		if p, err := url.Parse(u); err == nil && slices.Contains(edgeHeldHosts, p.Hostname()) {
			out = append(out, u)
		}
	}
	return out
}

// requestedTo waits (up to patience) until seen, with the URLs on the held hosts the tab
// requests meanwhile appended, has one that contains part; it returns seen so extended and
// whether it has one.
func requestedTo(l *netLog, seen []string, part string) ([]string, bool) {
	on := func(u string) bool { return strings.Contains(u, part) }
	for end := time.Now().Add(patience); ; time.Sleep(50 * time.Millisecond) {
		seen = append(seen, held(l.take())...)
		if slices.ContainsFunc(seen, on) {
			return seen, true
		}
		if time.Now().After(end) {
			return seen, false
		}
	}
}

// TestEdgeShopNothingFetched is #43's proof in Chromium: the shop above, served through each
// of the three edges (the Go middleware, consentd proxy, and the cloudflare-worker snippet in
// workerd through miniflare), visited from France. Chromium's own network log shows
// no request to a vendor's host before a choice, after "Reject all" (on that page view and the
// next) and after withdrawal (the next page view); after "Accept all" every tag runs and the
// held font stylesheet and pixel image load, on that page view. The
// same shop served bare, without an edge, is fetched from the vendors' hosts before any choice
// (the preload scanner and the resource hints): what only an edge prevents.
func TestEdgeShopNothingFetched(t *testing.T) {
	t.Parallel()
	browser(t)
	e := newEnv(t, "FR")
	for _, slug := range []string{"hotjar", "youtube"} {
		e.post(t, "/sites/"+e.id+"/services/import", map[string]any{"slug": slug}, 201, nil)
	}
	e.post(t, "/sites/"+e.id+"/services/import", map[string]any{"slug": "google-fonts", "categorySlug": "marketing"}, 201, nil)
	page := edgeShopPage(e.snippet, e.site.thirdPort())
	origin := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, page)
	})
	bare := httptest.NewServer(origin)
	t.Cleanup(bare.Close)
	cfg := edgerewrite.Config{Rules: &edgerewrite.Remote{API: e.api, ProjectKey: e.pk},
		Locate: func(*http.Request) core.Location { return core.Location{Country: "FR"} }}
	middleware := httptest.NewServer(edgerewrite.Middleware(cfg, origin))
	t.Cleanup(middleware.Close)
	up, _ := url.Parse(bare.URL)
	proxy := httptest.NewServer(edgerewrite.Proxy(up, cfg))
	t.Cleanup(proxy.Close)

	var sn struct{ Code string }
	mgmt(t, e.api, "GET", "/sites/"+e.id+"/setup-snippet?framework=cloudflare-worker", nil, 200, &sn)
	// The Worker runs in workerd (miniflare): without node its case alone skips, loudly.
	worker := func(t *testing.T) string {
		return serveWorker(t, sn.Code, bare.URL, map[string]string{"country": "FR"})
	}
	at := func(u string) func(*testing.T) string { return func(*testing.T) string { return u } }

	for _, c := range []struct {
		name string
		url  func(*testing.T) string
	}{{"Go middleware", at(middleware.URL)}, {"consentd proxy", at(proxy.URL)}, {"Cloudflare Worker", worker}} {
		t.Run(c.name, func(t *testing.T) {
			base := c.url(t)
			ctx := tab(t)
			log := startNetLog(t, ctx)
			step := func(what string) {
				t.Helper()
				settle()
				if h := held(log.take()); len(h) > 0 {
					t.Errorf("%s: Chromium requested a vendor's host: %q", what, h)
				}
			}
			navigate(t, ctx, base+"/")
			waitFor(t, ctx, `!!window.__cd('[data-action=reject]')`)
			step("before a choice")
			eval(t, ctx, `window.__cd('[data-action=reject]').click()`, nil)
			step("after Reject all")
			navigate(t, ctx, base+"/")
			step("the page view after Reject all")

			eval(t, ctx, `window.consentd.acceptAll()`, nil)
			waitFor(t, ctx, `(window.__ran || []).indexOf('G-SHOP1') >= 0 && window.__ran.indexOf('fbq') >= 0 && window.__ran.indexOf('hotjar') >= 0`)
			waitFor(t, ctx, `!!document.querySelector('iframe[src*="/embed/tent.html"]')`)
			// The stylesheet the edge held loads on the same page view too (the runtime puts
			// its href back), not only on the next one.
			waitFor(t, ctx, `!!document.querySelector('link[rel=stylesheet][href*="/css2?family=Inter"]:not([data-href])')`)
			seen, ok := requestedTo(log, nil, "/css2?family=Inter")
			if !ok {
				t.Error("after Accept all the font stylesheet was not fetched on that page view")
			}
			waitFor(t, ctx, `!!document.querySelector('img[src*="/tr?id=123&ev=ViewContent"]:not([data-src])')`)
			if _, ok := requestedTo(log, seen, "/tr?id=123&ev=ViewContent"); !ok {
				t.Error("after Accept all the pixel image was not fetched on that page view")
			}
			navigate(t, ctx, base+"/")
			waitFor(t, ctx, `(window.__ran || []).indexOf('G-SHOP1') >= 0`)
			log.take()

			eval(t, ctx, `window.consentd.rejectAll()`, nil)
			settle()
			log.take()
			navigate(t, ctx, base+"/")
			step("the page view after withdrawal")
		})
	}
	t.Run("bare", func(t *testing.T) {
		ctx := tab(t)
		log := startNetLog(t, ctx)
		navigate(t, ctx, bare.URL+"/")
		waitFor(t, ctx, `!!window.__cd('[data-action=reject]')`)
		settle()
		if h := held(log.take()); len(h) == 0 {
			t.Error("the bare shop fetched nothing from the vendors' hosts before a choice: the test does not show what the edge prevents")
		} else {
			t.Logf("without an edge, before a choice, Chromium requested %d vendor URLs, such as %s", len(h), h[0])
		}
	})
}
