package banner_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core/i18n"
)

// shop registers a page of the shop that starts with the setup snippet and has no element of
// its own to reopen the preferences.
func (e *env) shop(name, lang, head, body string) string {
	return e.site.raw(name, `<!doctype html>
<html lang="`+lang+`"><head><meta charset="utf-8">
`+e.snippet+`
<script src="/static/page.js"></script>
`+head+`
<title>Acme Outdoor</title>
<link rel="stylesheet" href="/static/site.css">
</head><body>
<header><strong>Acme Outdoor</strong><nav><a href="#">Tents</a> <a href="#">Boots</a></nav></header>
<main>
<h1>Gear for every trail</h1>
<p>Lightweight tents, waterproof boots and warm jackets, tested on real trails by our team.</p>
`+body+`
</main></body></html>`)
}

// vendorState is what the stand-in vendor scripts did in the tab.
type vendorState struct {
	Gtag, Fbq int
	Cookies   string
}

func vendors(t *testing.T, ctx context.Context) vendorState {
	t.Helper()
	var v vendorState
	eval(t, ctx, `({gtag: (window.__vendor || {}).gtag || 0, fbq: (window.__vendor || {}).fbq || 0, cookies: document.cookie})`, &v)
	return v
}

// TestBrowserFirstViewEnforcement: on the very first page view, with site-wide blocking on and
// opt-in, Google Analytics 4 and the Meta Pixel pasted unmarked into the HTML process no command
// and send nothing until the visitor accepts; then they run without a reload. After a reject
// and a reload they stay held.
func TestBrowserFirstViewEnforcement(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	e.setBlocking(t, true)
	var sn struct{ Code string }
	mgmt(t, e.api, "GET", "/sites/"+e.id+"/setup-snippet?framework=script", nil, 200, &sn)
	e.snippet = sn.Code
	url := e.shop("first", "en", unmarkedTags(e.site.thirdPort()), "")

	ctx := tab(t)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	settle()
	if v := vendors(t, ctx); v.Gtag != 0 || v.Fbq != 0 || strings.Contains(v.Cookies, "_ga") || strings.Contains(v.Cookies, "_fbp") {
		t.Fatalf("vendor tags ran before consent: %+v", v)
	}
	if h := e.site.vendorHits(); len(h) != 0 {
		t.Fatalf("collection requests before consent: %q", h)
	}
	var held []map[string]string
	eval(t, ctx, `window.consentd.heldUnmarked`, &held)
	if len(held) != 1 || held[0]["service"] != "google-analytics" || held[0]["category"] != "statistics" ||
		!strings.Contains(held[0]["url"], "/gtag/js?id=G-UNMARKED") {
		t.Errorf("heldUnmarked = %v, want the gtag.js tag of the page", held)
	}
	screenshot(t, ctx, "banner-first-view")
	axeCheck(t, ctx, "the banner", "consentd-ui")

	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	waitFor(t, ctx, `window.__vendor && window.__vendor.gtag > 0 && window.__vendor.fbq >= 2`)
	if v := vendors(t, ctx); !strings.Contains(v.Cookies, "_ga=") || !strings.Contains(v.Cookies, "_fbp=") {
		t.Errorf("after accepting, the vendors' cookies are missing: %+v", v)
	}
	// Both collection requests leave the browser (the tags send them on their own timers), then
	// reach the recorded site: wait for each side rather than read the site's log at once.
	waitFor(t, ctx, `['/tr?', '/g/collect?'].every(function (p) { return performance.getEntriesByType('resource').some(function (r) { return r.name.indexOf(p) > 0; }); })`)
	hits := strings.Join(e.site.vendorHits(), " ")
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) &&
		!(strings.Contains(hits, "/g/collect?v=2&tid=G-UNMARKED") && strings.Contains(hits, "/tr?id=1234567890&ev=PageView")); {
		time.Sleep(20 * time.Millisecond)
		hits = strings.Join(e.site.vendorHits(), " ")
	}
	if !strings.Contains(hits, "/g/collect?v=2&tid=G-UNMARKED") || !strings.Contains(hits, "/tr?id=1234567890&ev=PageView") {
		t.Errorf("after accepting, collection requests %q", hits)
	}
	// Held scripts run in document order (the pixel's base code inserts fbevents.js before the
	// document's first script, so it comes first).
	var ran, order []string
	eval(t, ctx, `window.__ran`, &ran)
	eval(t, ctx, `Array.from(document.scripts).map(function (s) { return new URL(s.src || location.href).searchParams.get('id'); }).filter(function (id) { return id === 'pixel' || id === 'G-UNMARKED'; })`, &order)
	if len(order) != 2 || fmt.Sprint(ran) != fmt.Sprint(order) {
		t.Errorf("ran %q, want the document's order %q", ran, order)
	}
	noViolations(t, ctx)

	t.Run("reject and reload", func(t *testing.T) {
		before := len(e.site.vendorHits())
		ctx := tab(t)
		navigate(t, ctx, url)
		waitFor(t, ctx, bannerShown)
		eval(t, ctx, `window.__cd('[data-action=reject]').click()`, nil)
		waitFor(t, ctx, `window.consentd.getConsent().recordId`)
		navigate(t, ctx, url)
		waitFor(t, ctx, ready)
		settle()
		if v := vendors(t, ctx); v.Gtag != 0 || v.Fbq != 0 || strings.Contains(v.Cookies, "_ga") {
			t.Fatalf("vendor tags ran after a reject: %+v", v)
		}
		if n := len(e.site.vendorHits()); n != before {
			t.Errorf("%d collection requests after a reject", n-before)
		}
		var shown bool
		eval(t, ctx, `!!window.__cd('[data-template]')`, &shown)
		if shown {
			t.Error("the banner asks again after a decision")
		}
		noViolations(t, ctx)
	})
}

// TestBrowserReopenButton: after a decision a small privacy-settings button stays on a page
// that has no [data-consentd-open] element of its own; it opens the preferences, by keyboard
// too, and focus comes back to it.
func TestBrowserReopenButton(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	e.patchBanner(t, map[string]any{"reopenPosition": "bottom_right", "reopenLabel": "Privacy settings"})
	url := e.shop("reopen", "en", "", "")
	ctx := tab(t)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	var n int
	eval(t, ctx, `document.querySelectorAll('consentd-reopen').length`, &n)
	if n != 0 {
		t.Fatal("the reopen button shows before a decision")
	}
	eval(t, ctx, `window.__cd('[data-action=reject]').click()`, nil)
	reopenBtn := `document.querySelector('consentd-reopen') && document.querySelector('consentd-reopen').shadowRoot.querySelector('button')`
	waitFor(t, ctx, reopenBtn)
	var got map[string]any
	eval(t, ctx, `(function () { var b = `+reopenBtn+`, r = b.getBoundingClientRect();
  return {text: b.textContent, right: innerWidth - r.right, bottom: innerHeight - r.bottom, h: r.height}; })()`, &got)
	if got["text"] != "Privacy settings" || got["right"].(float64) > 20 || got["bottom"].(float64) > 20 || got["h"].(float64) < 24 {
		t.Errorf("reopen button %v", got)
	}
	screenshot(t, ctx, "reopen-button")
	axeCheck(t, ctx, "the reopen button", "consentd-reopen")

	// Keyboard: Tab reaches it, Enter opens the preferences, Escape brings focus back.
	onReopen := `(function () { var h = document.activeElement; return !!h && h.tagName === 'CONSENTD-REOPEN' && !!h.shadowRoot.activeElement; })()`
	for i := 0; ; i++ {
		var on bool
		eval(t, ctx, onReopen, &on)
		if on {
			break
		}
		if i > 12 {
			t.Fatal("Tab never reached the reopen button")
		}
		run(t, ctx, chromedp.KeyEvent(kb.Tab))
	}
	run(t, ctx, chromedp.KeyEvent(kb.Enter))
	waitFor(t, ctx, `window.__cd('dialog[data-preferences]')`)
	if a := func() string { var a string; eval(t, ctx, `window.__active()`, &a); return a }(); a != "statistics" {
		t.Errorf("focus in the preferences on %s", a)
	}
	screenshot(t, ctx, "preferences-from-reopen")
	axeCheck(t, ctx, "the preferences", "consentd-ui")
	run(t, ctx, chromedp.KeyEvent(kb.Escape))
	waitFor(t, ctx, `!window.__cd('dialog[data-preferences]')`)
	waitFor(t, ctx, onReopen)
	noViolations(t, ctx)

	t.Run("page's own element", func(t *testing.T) {
		ctx := tab(t)
		navigate(t, ctx, e.page("own-open", "en", "", ""))
		waitFor(t, ctx, bannerShown)
		eval(t, ctx, `window.consentd.acceptAll()`, nil)
		settle()
		var n int
		eval(t, ctx, `document.querySelectorAll('consentd-reopen').length`, &n)
		if n != 0 {
			t.Error("the reopen button shows although the page has its own [data-consentd-open] element")
		}
	})
}

// TestBrowserWithdrawClearsCookies: withdrawing statistics deletes the Google Analytics cookies
// the page had set (_ga and _ga_<container>), and leaves the others.
func TestBrowserWithdrawClearsCookies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	e.setBlocking(t, true)
	url := e.shop("withdraw", "en", unmarkedTags(e.site.thirdPort()), "")
	ctx := tab(t)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	eval(t, ctx, `document.cookie = 'keep=1;path=/'`, nil)
	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	waitFor(t, ctx, `document.cookie.indexOf('_ga=') >= 0 && document.cookie.indexOf('_ga_UNMARKED=') >= 0 && document.cookie.indexOf('_fbp=') >= 0`)
	eval(t, ctx, `window.consentd.showPreferences()`, nil)
	waitFor(t, ctx, `window.__cd('input[data-category=statistics]')`)
	eval(t, ctx, `window.__cd('input[data-category=statistics]').click(); window.__cd('[data-action=save]').click()`, nil)
	waitFor(t, ctx, `document.cookie.indexOf('_ga') < 0`)
	var cookies string
	eval(t, ctx, `document.cookie`, &cookies)
	if !strings.Contains(cookies, "keep=1") || !strings.Contains(cookies, "_fbp=") || !strings.Contains(cookies, "consentd=") {
		t.Errorf("withdrawing statistics took other cookies too: %q", cookies)
	}
	if r := e.waitRecords(t, 2)[1]; r.Action != "custom" || cats(r.CategoriesConsented) != "map[essential:true marketing:true statistics:false]" {
		t.Errorf("withdrawal record %+v", r)
	}
	noViolations(t, ctx)
}

// TestBrowserBuiltInLanguage: a visitor whose browser prefers German sees the banner in German
// without any site translation; a site translation still wins.
func TestBrowserBuiltInLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "AT")
	clear := map[string]any{}
	for _, k := range []string{"headline", "body", "acceptLabel", "rejectLabel", "preferencesLabel", "privacyLabel"} {
		clear[k] = ""
	}
	e.patchBanner(t, map[string]any{"textOverrides": clear, "textTranslations": map[string]any{"de": map[string]any{}}})
	de, _ := i18n.Texts("de")
	german := func(t *testing.T) context.Context {
		ctx := tab(t, `Object.defineProperty(Navigator.prototype, 'languages', {get: function () { return ['de-AT', 'de']; }, configurable: true});
Object.defineProperty(Navigator.prototype, 'language', {get: function () { return 'de-AT'; }, configurable: true});`)
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": "de-AT,de;q=0.9"}})
			return err
		}))
		if err != nil {
			t.Fatal(err)
		}
		return ctx
	}
	ctx := german(t)
	navigate(t, ctx, e.shop("de-builtin", "", "", ""))
	waitFor(t, ctx, bannerShown)
	var got []string
	eval(t, ctx, `[window.__cd('h2').textContent, window.__cd('#cd-b').textContent, window.__cd('[data-action=accept]').textContent, window.__cd('[data-action=reject]').textContent]`, &got)
	if want := []string{de["headline"], de["body"], de["acceptLabel"], de["rejectLabel"]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("texts %q, want the built-in German %q", got, want)
	}
	eval(t, ctx, `window.__cd('[data-action=preferences]').click()`, nil)
	waitFor(t, ctx, `window.__cd('dialog[data-preferences]')`)
	var names []string
	eval(t, ctx, `Array.from(window.__cd('dialog[data-preferences]').querySelectorAll('.rw .nm')).map(function (e) { return e.textContent; })`, &names)
	stat, _, _ := i18n.Category("de", "statistics")
	if len(names) != 3 || names[1] != stat {
		t.Errorf("category names %q, want the built-in German ones (%s)", names, stat)
	}
	screenshot(t, ctx, "preferences-de")

	e.patchBanner(t, map[string]any{"textTranslations": map[string]any{"de": map[string]any{"headline": "Cookies bei Acme"}}})
	ctx = german(t)
	navigate(t, ctx, e.shop("de-site", "", "", ""))
	waitFor(t, ctx, bannerShown)
	eval(t, ctx, `[window.__cd('h2').textContent, window.__cd('[data-action=accept]').textContent]`, &got)
	if want := []string{"Cookies bei Acme", de["acceptLabel"]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("texts %q, want the site's translation over the built-in ones %q", got, want)
	}
	noViolations(t, ctx)
}

// TestBrowserLegacySnippet: a page still carrying the snippet of before the loader (banner.js on
// its own, fetching the configuration) keeps working: the banner in the page's language,
// decisions recorded, marked tags activated.
func TestBrowserLegacySnippet(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	legacy := `<script src="` + e.api + `/api/v1/public/banner.js?v=` + bannerjs.Version() + `" data-project-key="` + e.pk + `"></script>`
	url := e.site.page("legacy", "de", legacy, "", e.marked())
	ctx := tab(t)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	var got []string
	eval(t, ctx, `[window.__cd('h2').textContent, window.__cd('[data-action=accept]').textContent]`, &got)
	if fmt.Sprint(got) != "[Wir respektieren Ihre Privatsphäre Alle akzeptieren]" {
		t.Errorf("texts %q, want the site's German translation", got)
	}
	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	waitFor(t, ctx, `(window.__ran || []).length === 2`)
	if r := e.waitRecords(t, 1)[0]; r.Action != "accept_all" {
		t.Errorf("record %+v", r)
	}
	waitFor(t, ctx, `window.consentd.getConsent().recordId`)
	noViolations(t, ctx)
}

// TestBrowserConfigOutage: when the runtime cannot fetch the site's configuration (the older
// snippet, which loads banner.js alone, on a first visit while consentd is unreachable), it
// fails closed. The marked tags stay inert and the pixel's fbevents.js, inserted by script from
// another origin, stays held: nothing collects while the visitor has not decided. The runtime
// retries, and once the configuration comes through the banner appears and a decision
// releases what it allows.
func TestBrowserConfigOutage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	e.setBlocking(t, true)
	var refuse atomic.Bool // refuse the configuration while set
	refuse.Store(true)
	var tries atomic.Int32
	down := failingEdge(t, e, "DE", func(r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/config") {
			return false
		}
		tries.Add(1)
		return refuse.Load()
	})
	s := newSite(t, down.URL)
	legacy := `<script src="` + down.URL + `/api/v1/public/banner.js?v=` + bannerjs.Version() + `" data-project-key="` + e.pk + `"></script>`
	marked := `<script type="text/plain" data-category="statistics" src="` + s.tracker() + `/static/track.js?id=stat"></script>
<script type="text/plain" data-category="marketing" src="` + s.tracker() + `/static/track.js?id=mkt"></script>`
	url := s.page("outage", "de", legacy, "", marked+pixelTag(s.thirdPort()))

	ctx := tab(t)
	navigate(t, ctx, url)
	deadline := time.Now().Add(patience)
	for tries.Load() < 2 { // the first request and a retry
		if time.Now().After(deadline) {
			t.Fatalf("%d configuration requests, want a retry", tries.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
	settle()
	var ran []string
	eval(t, ctx, `window.__ran || []`, &ran)
	if v := vendors(t, ctx); len(ran) != 0 || v.Fbq != 0 || strings.Contains(v.Cookies, "_fbp") {
		t.Fatalf("without a configuration, tags ran: %q, vendor state %+v", ran, v)
	}
	if hits := s.vendorHits(); len(hits) != 0 {
		t.Fatalf("without a configuration, collection requests: %q", hits)
	}

	refuse.Store(false)
	waitFor(t, ctx, bannerShown)
	if hits := s.vendorHits(); len(hits) != 0 {
		t.Fatalf("collection requests before a decision: %q", hits)
	}
	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	waitFor(t, ctx, `['stat', 'mkt', 'pixel'].every(function (id) { return (window.__ran || []).indexOf(id) >= 0; }) && window.__vendor.fbq > 0`)
	if r := e.waitRecords(t, 1)[0]; r.Action != "accept_all" {
		t.Errorf("record %+v", r)
	}
}
