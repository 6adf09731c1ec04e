package banner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

const (
	bannerShown = `window.__cd('[data-template]')`
	// bannerFocused: focus moves into the banner once the page's first paint is out.
	bannerFocused = `window.__active() !== 'outside'`
	ready         = `window.consentd && window.consentd.getConsent().ready`
)

// ranList returns the ids of the tracker scripts that ran in the tab, in order.
func ranList(t *testing.T, c context.Context) []string {
	t.Helper()
	var r []string
	eval(t, c, "window.__ran || []", &r)
	return r
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cats renders a record's categories for comparison.
func cats(m map[string]bool) string { return fmt.Sprint(m) }

func TestBrowserTemplates(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	cases := []struct {
		template, position string
		check              string // JS over r (banner rect), W, H: true when placed right
	}{
		{"floating", "bottom_right", "Math.abs(W - r.right - 16) < 2 && Math.abs(H - r.bottom - 16) < 2"},
		{"floating", "top_left", "Math.abs(r.left - 16) < 2 && Math.abs(r.top - 16) < 2"},
		{"wide_bar", "bottom", "r.left === 0 && Math.abs(r.width - W) < 2 && Math.abs(H - r.bottom) < 2"},
		{"wide_bar", "top", "r.left === 0 && Math.abs(r.width - W) < 2 && r.top === 0"},
		{"modal", "center", "Math.abs((r.left + r.right) / 2 - W / 2) < 2 && Math.abs((r.top + r.bottom) / 2 - H / 2) < 2"},
	}
	for _, c := range cases {
		t.Run(c.template+"_"+c.position, func(t *testing.T) {
			e.patchBanner(t, map[string]any{"template": c.template, "position": c.position})
			ctx := tab(t)
			navigate(t, ctx, e.page("tpl", "en", "", ""))
			waitFor(t, ctx, bannerShown)
			waitFor(t, ctx, bannerFocused)
			var got map[string]any
			eval(t, ctx, `(function () {
  var el = window.__cd('[data-template]'), r = el.getBoundingClientRect(), W = innerWidth, H = innerHeight;
  var h = window.__cd('#' + el.getAttribute('aria-labelledby'));
  var ok = window.__cd('[data-action=accept]'), no = window.__cd('[data-action=reject]');
  return {
    template: el.getAttribute('data-template'), position: el.getAttribute('data-position'),
    placed: `+c.check+`,
    dialog: el.tagName === 'DIALOG' ? el.matches(':modal') : el.getAttribute('role') === 'dialog',
    headline: h && h.textContent,
    acceptBg: getComputedStyle(ok).backgroundColor, rejectBg: getComputedStyle(no).backgroundColor,
    acceptFont: getComputedStyle(ok).fontSize, spacing: getComputedStyle(h).letterSpacing,
    pageButton: getComputedStyle(document.getElementById('before')).backgroundColor,
    pageButtonRadius: getComputedStyle(document.getElementById('before')).borderRadius,
    focus: window.__active()
  };
})()`, &got)
			want := map[string]any{
				"template": c.template, "position": c.position, "placed": true, "dialog": true,
				"headline": "We value your privacy", "acceptBg": "rgb(11, 110, 79)", "rejectBg": "rgb(11, 110, 79)",
				"acceptFont": "14px", "spacing": "normal", "pageButton": "rgb(255, 0, 0)", "pageButtonRadius": "0px",
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
			if got["focus"] == "outside" {
				t.Error("focus was not moved into the banner")
			}
			screenshot(t, ctx, c.template+"-"+c.position)
			noViolations(t, ctx)
		})
	}
	t.Run("preferences", func(t *testing.T) {
		e.patchBanner(t, map[string]any{"template": "floating", "position": "bottom_left"})
		ctx := tab(t)
		navigate(t, ctx, e.page("prefs", "en", "", ""))
		waitFor(t, ctx, bannerShown)
		eval(t, ctx, `window.__cd('[data-action=preferences]').click()`, nil)
		waitFor(t, ctx, `window.__cd('dialog[data-preferences]')`)
		eval(t, ctx, `window.__cd('details').open = true`, nil)
		var names []string
		eval(t, ctx, `Array.from(window.__cd('dialog[data-preferences]').querySelectorAll('.nm,h4,td')).map(function (e) { return e.textContent; })`, &names)
		// The site's categories and the services imported from the library, with their cookies.
		for _, w := range []string{"Essential", "Statistics", "Marketing", "Stripe", "__stripe_mid", "1 year",
			"Google Analytics", "_ga", "Meta Pixel", "_fbp"} {
			if !contains(names, w) {
				t.Errorf("preferences lack %q (have %q)", w, names)
			}
		}
		var locked bool
		eval(t, ctx, `!window.__cd('input[data-category=essential]') && window.__cd('input[data-category=statistics]').disabled === false && window.__cd('dialog[data-preferences]').matches(':modal')`, &locked)
		if !locked {
			t.Error("the required category must have no switch, the others an enabled one, in a modal dialog")
		}
		screenshot(t, ctx, "preferences")
		noViolations(t, ctx)
	})
	t.Run("translations", func(t *testing.T) {
		ctx := tab(t)
		navigate(t, ctx, e.page("de", "de-DE", "", ""))
		waitFor(t, ctx, bannerShown)
		var got []string
		eval(t, ctx, `[window.__cd('h2').textContent, window.__cd('[data-action=accept]').textContent, window.__cd('#cd-b').textContent, window.__cd('[data-action=preferences]').textContent]`, &got)
		want := []string{"Wir respektieren Ihre Privatsphäre", "Alle akzeptieren",
			"Acme Outdoor uses cookies to run the shop, to measure visits and to show you relevant ads. Choose what you allow.", "Preferences"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("texts %q, want %q (translation, then overrides)", got, want)
		}
	})
}

func TestBrowserAcceptReloadAndVersionBump(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	ctx := tab(t)
	url := e.page("accept", "en", "", e.marked())
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	settle()
	if r := ranList(t, ctx); len(r) != 0 {
		t.Fatalf("scripts ran before consent: %q", r)
	}
	// Consent Mode: the default comes before the page's own first tag command.
	var dl []any
	eval(t, ctx, `window.dataLayer.map(function (x) { return Array.prototype.slice.call(x); })`, &dl)
	first, _ := json.Marshal(dl[0])
	if !strings.HasPrefix(string(first), `["consent","default",{"ad_personalization":"denied","ad_storage":"denied","ad_user_data":"denied","analytics_storage":"denied","functionality_storage":"granted","security_storage":"granted"`) {
		t.Fatalf("dataLayer[0] = %s, want the Consent Mode default", first)
	}
	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	waitFor(t, ctx, `(window.__ran || []).indexOf('stat') >= 0 && window.__ran.indexOf('mkt') >= 0`)
	if r := ranList(t, ctx); r[0] != "stat" {
		t.Errorf("marked scripts ran in order %q, want document order", r)
	}
	var order string
	eval(t, ctx, `window.dataLayer.map(function (x) { x = Array.prototype.slice.call(x); return x[0] === 'consent' ? x[1] + ':' + x[2].analytics_storage + '/' + x[2].ad_storage : x[1]; }).join(' ')`, &order)
	if !strings.HasPrefix(order, "default:denied/denied ") || !strings.Contains(order, "page-tag") ||
		strings.Index(order, "page-tag") > strings.Index(order, "update:granted/granted") || strings.Count(order, "update:") != 1 {
		t.Errorf("Consent Mode calls in order: %s", order)
	}
	r := e.waitRecords(t, 1)[0]
	if r.Action != "accept_all" || r.ConsentVersion != 1 || r.Jurisdiction != "gdpr" || r.IPCountry != "DE" ||
		cats(r.CategoriesConsented) != "map[essential:true marketing:true statistics:true]" {
		t.Errorf("record on the server %+v", r)
	}
	var ev []map[string]any
	eval(t, ctx, `window.__events`, &ev)
	if len(ev) == 0 || ev[len(ev)-1]["categories"].(map[string]any)["statistics"] != true {
		t.Errorf("consentd:change events %v", ev)
	}
	// The visitor id the server generated is kept in the first-party cookie.
	waitFor(t, ctx, `document.cookie.indexOf('`+r.VisitorID+`') >= 0`)
	noViolations(t, ctx)

	// Reload: no banner, the choice holds, nothing is posted again.
	navigate(t, ctx, url)
	waitFor(t, ctx, ready)
	waitFor(t, ctx, `(window.__ran || []).indexOf('stat') >= 0`)
	var state map[string]any
	eval(t, ctx, `({banner: !!window.__cd('[data-template]'), c: window.consentd.getConsent()})`, &state)
	c := state["c"].(map[string]any)
	if state["banner"] != false || c["decided"] != true || c["action"] != "accept_all" || c["visitorId"] != r.VisitorID {
		t.Errorf("after reload: %v", state)
	}
	settle()
	if n := len(e.records(t)); n != 1 {
		t.Errorf("%d records after reload, want 1", n)
	}

	// Turning site-wide blocking off (a new site has it on) raises consentVersion on the
	// server: the banner asks again, and the marked scripts wait for the new answer.
	e.setBlocking(t, false)
	clearHTTPCache(t, ctx)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	settle()
	if r := ranList(t, ctx); len(r) != 0 {
		t.Errorf("scripts ran before the new consent: %q", r)
	}
	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	if r2 := e.waitRecords(t, 2)[1]; r2.ConsentVersion != 2 || r2.VisitorID != r.VisitorID || r2.Action != "accept_all" {
		t.Errorf("second record %+v, want version 2 and visitor %s", r2, r.VisitorID)
	}

	// A category the stored decision does not mention asks again too.
	e.post(t, "/sites/"+e.id+"/categories", map[string]any{"name": "Personalisation", "description": "Remembers your preferences."}, 201, nil)
	clearHTTPCache(t, ctx)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	noViolations(t, ctx)
}

func TestBrowserRejectKeepsBlocked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "FR")
	e.patchBanner(t, map[string]any{"template": "wide_bar", "position": "bottom"})
	ctx := tab(t)
	url := e.page("reject", "en", "", e.marked())
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	eval(t, ctx, `window.__cd('[data-action=reject]').click()`, nil)
	r := e.waitRecords(t, 1)[0]
	if r.Action != "reject_all" || cats(r.CategoriesConsented) != "map[essential:true marketing:false statistics:false]" ||
		r.Jurisdiction != "gdpr" || r.DoNotSell || r.GPCSignal {
		t.Errorf("record on the server %+v", r)
	}
	settle()
	if r := ranList(t, ctx); len(r) != 0 {
		t.Fatalf("scripts ran after reject: %q", r)
	}
	var last string
	eval(t, ctx, `JSON.stringify(Array.prototype.slice.call(window.dataLayer.filter(function (x) { return x[0] === 'consent'; }).pop()))`, &last)
	if !strings.Contains(last, `"update"`) || !strings.Contains(last, `"analytics_storage":"denied"`) {
		t.Errorf("last Consent Mode call %s", last)
	}
	navigate(t, ctx, url)
	waitFor(t, ctx, ready)
	settle()
	var shown bool
	eval(t, ctx, `!!window.__cd('[data-template]')`, &shown)
	if r := ranList(t, ctx); len(r) != 0 || shown {
		t.Fatalf("after reload: ran %q, banner shown %v", r, shown)
	}
	if n := len(e.records(t)); n != 1 {
		t.Errorf("%d records after reload, want 1", n)
	}
	noViolations(t, ctx)
}

func TestBrowserSiteWideBlocking(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	e.setBlocking(t, true) // a new site's default: changes nothing
	fb, gtm := e.site.origin("connect.facebook.net"), e.site.origin("www.googletagmanager.com")
	// inject.js runs before the configuration arrives, as a tag manager would: it inserts a Meta
	// Pixel and a Google Analytics tag, both matched by the library's patterns, and a free tag.
	url := e.page("dyn", "en", `<script src="/static/inject.js"></script>`, "") + "?third=" + e.site.thirdPort()
	insertLater := `(function () {
  var s = document.createElement('script');
  s.src = '` + fb + `/signals/config/1234567890123456?id=dyn2';
  document.body.appendChild(s);
  var f = document.createElement('iframe');
  f.setAttribute('src', '` + fb + `/signals/plugins/frame.html');
  document.body.appendChild(f);
  window.__frame = f;
  var g = document.createElement('script');
  g.src = '` + gtm + `/gtag/js?id=G-LATER';
  document.body.appendChild(g);
})()`

	t.Run("held until accepted", func(t *testing.T) {
		ctx := tab(t)
		navigate(t, ctx, url)
		waitFor(t, ctx, ready)
		waitFor(t, ctx, `(window.__ran || []).indexOf('free') >= 0`)
		// Inserted once the configuration is known: matching scripts and a matching iframe.
		eval(t, ctx, insertLater, nil)
		// The held iframe's placeholder comes with the lazily loaded module: wait for it (a
		// fixed pause was too short on a busy CI machine), then for anything else to run.
		waitFor(t, ctx, `document.querySelector('consentd-placeholder')`)
		settle()
		var got map[string]any
		eval(t, ctx, `({ran: window.__ran, onload: !!window.__onload, frameSrc: window.__frame.getAttribute('src'), ph: !!document.querySelector('consentd-placeholder')})`, &got)
		if fmt.Sprint(got["ran"]) != "[free]" || got["onload"] != false || got["frameSrc"] != nil || got["ph"] != true {
			t.Fatalf("before consent: %v", got)
		}
		screenshot(t, ctx, "blocked-iframe-placeholder")
		eval(t, ctx, `window.consentd.acceptAll()`, nil)
		waitFor(t, ctx, `['dyn', 'G-DYN', 'dyn2', 'G-LATER'].every(function (id) { return window.__ran.indexOf(id) >= 0; }) && window.__onload`)
		waitFor(t, ctx, `window.__frame.getAttribute('src') && !document.querySelector('consentd-placeholder')`)
		if r := e.waitRecords(t, 1)[0]; r.Action != "accept_all" || r.ConsentVersion != 1 {
			t.Errorf("record %+v, want accept_all at version 1 (blocking is on from the start)", r)
		}
		noViolations(t, ctx)
	})

	t.Run("gcmExcludeVendor leaves Google tags to Consent Mode", func(t *testing.T) {
		e.patchBanner(t, map[string]any{"gcmExcludeVendor": true})
		ctx := tab(t)
		navigate(t, ctx, url)
		waitFor(t, ctx, ready)
		waitFor(t, ctx, `(window.__ran || []).indexOf('free') >= 0 && window.__ran.indexOf('G-DYN') >= 0`)
		eval(t, ctx, insertLater, nil)
		waitFor(t, ctx, `window.__ran.indexOf('G-LATER') >= 0 && document.querySelector('consentd-placeholder')`)
		settle()
		var got map[string]any
		eval(t, ctx, `({ran: window.__ran.slice().sort(), frameSrc: window.__frame.getAttribute('src'), ph: !!document.querySelector('consentd-placeholder')})`, &got)
		if fmt.Sprint(got["ran"]) != "[G-DYN G-LATER free]" || got["frameSrc"] != nil || got["ph"] != true {
			t.Fatalf("before consent: %v (Google tags run, Meta's stay held)", got)
		}
		noViolations(t, ctx)
	})
}

func TestBrowserGPCUnderCCPA(t *testing.T) {
	t.Parallel()
	gpcInit := `Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', {get: function () { return true; }, configurable: true});`
	e := newEnv(t, "US")
	e.patchBanner(t, map[string]any{"defaultBehavior": "opt_out"})
	ctx := tab(t, gpcInit)
	navigate(t, ctx, e.page("gpc", "en", "", e.marked()))
	r := e.waitRecords(t, 1)[0]
	if r.Action != "gpc" || !r.GPCSignal || !r.DoNotSell || r.Jurisdiction != "ccpa" || r.IPCountry != "US" ||
		cats(r.CategoriesConsented) != "map[essential:true marketing:false statistics:true]" {
		t.Errorf("GPC record on the server %+v", r)
	}
	waitFor(t, ctx, `(window.__ran || []).indexOf('stat') >= 0`)
	settle()
	var st map[string]any
	eval(t, ctx, `({ran: window.__ran, banner: !!window.__cd('[data-template]'), c: window.consentd.getConsent(),
  gcm: window.dataLayer.filter(function (x) { return x[0] === 'consent'; }).pop()[2]})`, &st)
	gcm := st["gcm"].(map[string]any)
	if fmt.Sprint(st["ran"]) != "[stat]" || st["banner"] != false || gcm["ad_storage"] != "denied" || gcm["analytics_storage"] != "granted" ||
		st["c"].(map[string]any)["doNotSell"] != true {
		t.Errorf("after the GPC decision: %v", st)
	}
	// The visitor can still change the other categories; marketing stays locked off.
	run(t, ctx, chromedp.Click(chromedp.CSS("#open")))
	waitFor(t, ctx, `window.__cd('dialog[data-preferences]')`)
	var lock []bool
	eval(t, ctx, `[window.__cd('input[data-category=marketing]').disabled, window.__cd('input[data-category=marketing]').checked, window.__cd('input[data-category=statistics]').disabled, !!window.__cd('.gp')]`, &lock)
	if fmt.Sprint(lock) != "[true false false true]" {
		t.Errorf("marketing disabled, checked; statistics disabled; notice = %v", lock)
	}
	noViolations(t, ctx)

	t.Run("gdpr asks instead", func(t *testing.T) {
		e := newEnv(t, "DE")
		ctx := tab(t, gpcInit)
		navigate(t, ctx, e.page("gpc-gdpr", "en", "", ""))
		waitFor(t, ctx, bannerShown)
		settle()
		if n := len(e.records(t)); n != 0 {
			t.Errorf("%d records without a visitor's decision under gdpr", n)
		}
	})
}

func TestBrowserKeyboardOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	ctx := tab(t)
	navigate(t, ctx, e.page("kbd", "en", "", e.marked()))
	waitFor(t, ctx, bannerShown)
	waitFor(t, ctx, bannerFocused)
	active := func() string {
		var a string
		eval(t, ctx, `window.__active()`, &a)
		return a
	}
	if a := active(); a == "outside" {
		t.Fatal("focus not moved into the banner")
	}
	tabTo := func(target string, max int) {
		t.Helper()
		for i := 0; i < max; i++ {
			if active() == target {
				return
			}
			run(t, ctx, chromedp.KeyEvent(kb.Tab))
		}
		t.Fatalf("Tab never reached %s (at %s)", target, active())
	}
	tabTo("preferences", 8)
	run(t, ctx, chromedp.KeyEvent(kb.Enter))
	waitFor(t, ctx, `window.__cd('dialog[data-preferences]')`)
	if a := active(); a != "statistics" {
		t.Fatalf("focus in preferences on %s, want the first switch", a)
	}
	// Escape closes the preferences and brings the undecided banner back.
	run(t, ctx, chromedp.KeyEvent(" "), chromedp.KeyEvent(kb.Escape))
	waitFor(t, ctx, `!window.__cd('dialog[data-preferences]') && window.__cd('[data-template]')`)
	tabTo("preferences", 8)
	run(t, ctx, chromedp.KeyEvent(kb.Enter))
	waitFor(t, ctx, `window.__cd('dialog[data-preferences]')`)
	run(t, ctx, chromedp.KeyEvent(" "))
	// Focus is trapped: a full cycle of Tabs never leaves the dialog.
	seen := map[string]bool{}
	for i := 0; i < 14; i++ {
		run(t, ctx, chromedp.KeyEvent(kb.Tab))
		a := active()
		if a == "outside" {
			t.Fatalf("Tab %d left the preferences dialog", i)
		}
		seen[a] = true
	}
	for _, w := range []string{"close", "statistics", "marketing", "summary", "reject", "save", "accept"} {
		if !seen[w] {
			t.Errorf("Tab cycle missed %s (saw %v)", w, seen)
		}
	}
	tabTo("save", 14)
	var outline string
	eval(t, ctx, `getComputedStyle(window.__cd('[data-preferences] [data-action=save]')).outlineStyle`, &outline)
	if outline != "solid" {
		t.Errorf("keyboard focus outline %q, want visible", outline)
	}
	run(t, ctx, chromedp.KeyEvent(kb.Enter))
	r := e.waitRecords(t, 1)[0]
	if r.Action != "custom" || cats(r.CategoriesConsented) != "map[essential:true marketing:false statistics:true]" {
		t.Errorf("keyboard decision on the server %+v", r)
	}
	waitFor(t, ctx, `(window.__ran || []).indexOf('stat') >= 0`)
	settle()
	if r := ranList(t, ctx); fmt.Sprint(r) != "[stat]" {
		t.Errorf("ran %q, want only the statistics script", r)
	}
	noViolations(t, ctx)
}

func TestBrowserPageAPIAndStorefront(t *testing.T) {
	t.Parallel()
	shop := `window.__shop = []; window.Shopify = {customerPrivacy: {setTrackingConsent: function (o, cb) { window.__shop.push(o); if (cb) cb(); }}};`
	e := newEnv(t, "DE")
	e.patchBanner(t, map[string]any{"storefrontIntegration": true})
	ctx := tab(t, shop)
	frame := `<iframe data-src="` + e.site.tracker() + `/static/frame.html" data-category="marketing" data-service="meta-pixel" width="400" height="160" title="video"></iframe>`
	navigate(t, ctx, e.page("api", "en", "", frame))
	waitFor(t, ctx, bannerShown)
	var c map[string]any
	eval(t, ctx, `window.consentd.getConsent()`, &c)
	if c["decided"] != false || fmt.Sprint(c["categories"]) != "map[essential:true marketing:false statistics:false]" {
		t.Errorf("getConsent before a decision: %v", c)
	}
	waitFor(t, ctx, `document.querySelector('consentd-placeholder')`)
	var phText string
	eval(t, ctx, `document.querySelector('consentd-placeholder').shadowRoot.textContent`, &phText)
	if !strings.Contains(phText, "Meta Pixel") {
		t.Errorf("placeholder %q does not name the service", phText)
	}
	// [data-consentd-open] reopens the preferences.
	run(t, ctx, chromedp.Click(chromedp.CSS("#open")))
	waitFor(t, ctx, `window.__cd('dialog[data-preferences]')`)
	eval(t, ctx, `window.consentd.acceptAll()`, nil)
	waitFor(t, ctx, `!window.__cd('dialog[data-preferences]') && document.querySelector('iframe').getAttribute('src')`)
	// The two decisions are posted one after the other: wait for the first to be recorded, so
	// that the server's order is the visitor's.
	e.waitRecords(t, 1)
	eval(t, ctx, `window.consentd.rejectAll()`, nil)
	recs := e.waitRecords(t, 2)
	if recs[0].Action != "accept_all" || recs[1].Action != "reject_all" {
		t.Errorf("actions %s, %s", recs[0].Action, recs[1].Action)
	}
	// Withdrawing marketing puts the iframe back behind its placeholder; its button allows it.
	waitFor(t, ctx, `!document.querySelector('iframe').getAttribute('src') && document.querySelector('consentd-placeholder')`)
	eval(t, ctx, `document.querySelector('consentd-placeholder').shadowRoot.querySelector('button').click()`, nil)
	if r := e.waitRecords(t, 3)[2]; r.Action != "custom" || cats(r.CategoriesConsented) != "map[essential:true marketing:true statistics:false]" {
		t.Errorf("placeholder decision on the server %+v", r)
	}
	waitFor(t, ctx, `document.querySelector('iframe').getAttribute('src')`)
	var shopCalls []map[string]bool
	eval(t, ctx, `window.__shop`, &shopCalls)
	if len(shopCalls) != 3 || !shopCalls[0]["analytics"] || shopCalls[1]["marketing"] || shopCalls[1]["analytics"] ||
		!shopCalls[2]["marketing"] || shopCalls[2]["analytics"] {
		t.Errorf("storefront calls %v", shopCalls)
	}
	var events int
	eval(t, ctx, `window.__events.length`, &events)
	if events < 3 {
		t.Errorf("%d consentd:change events, want one per decision", events)
	}
	noViolations(t, ctx)
}
