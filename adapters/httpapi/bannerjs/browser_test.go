package bannerjs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/consentd/consentd/library"
)

// env is one test's world: the consentd side, the site side, and a project key.
type env struct {
	api  *fakeAPI
	site *site
	pk   string
	cfg  map[string]any
}

func newEnv(t *testing.T) *env {
	api := newFakeAPI(t)
	pk := "pk_" + strings.ToLower(strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	e := &env{api: api, site: newSite(t, api.srv.URL), pk: pk, cfg: siteConfig(pk)}
	api.set(pk, e.cfg)
	return e
}

// snippet is the script tag of the setup snippet, as /work/public-api.md specifies it.
func (e *env) snippet() string {
	return `<script src="` + e.api.srv.URL + `/api/v1/public/banner.js?v=` + Version() + `" data-project-key="` + e.pk + `"></script>`
}

func (e *env) page(name, lang, head, body string) string {
	return e.site.page(name, lang, e.snippet(), head, body)
}

// marked are tracker scripts marked for consent, one per category.
func (e *env) marked() string {
	return `<script type="text/plain" data-category="statistics" src="` + e.site.tracker() + `/static/track.js?id=stat"></script>
<script type="text/plain" data-category="marketing" src="` + e.site.tracker() + `/static/track.js?id=mkt"></script>`
}

const (
	bannerShown = `window.__cd('[data-template]')`
	ready       = `window.consentd && window.consentd.getConsent().ready`
)

// ranList returns the ids of the tracker scripts that ran in the tab, in order.
func ranList(t *testing.T, e *env, c context.Context) []string {
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

func TestBrowserTemplates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
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
			b := banner(e.cfg)
			b["template"], b["position"] = c.template, c.position
			e.api.set(e.pk, e.cfg)
			ctx := tab(t)
			navigate(t, ctx, e.page("tpl", "en", "", ""))
			waitFor(t, ctx, bannerShown)
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
		b := banner(e.cfg)
		b["template"], b["position"] = "floating", "bottom_left"
		e.api.set(e.pk, e.cfg)
		ctx := tab(t)
		navigate(t, ctx, e.page("prefs", "en", "", ""))
		waitFor(t, ctx, bannerShown)
		eval(t, ctx, `window.__cd('[data-action=preferences]').click()`, nil)
		waitFor(t, ctx, `window.__cd('dialog[data-preferences]')`)
		eval(t, ctx, `window.__cd('details').open = true`, nil)
		var names []string
		eval(t, ctx, `Array.from(window.__cd('dialog[data-preferences]').querySelectorAll('.nm,td')).map(function (e) { return e.textContent; })`, &names)
		for _, w := range []string{"Essential", "Statistics", "Marketing", "Stripe", "__stripe_mid", "1 year"} {
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
		banner(e.cfg)["template"] = "floating"
		e.api.set(e.pk, e.cfg)
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
	e := newEnv(t)
	ctx := tab(t)
	url := e.page("accept", "en", "", e.marked())
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	settle()
	if r := ranList(t, e, ctx); len(r) != 0 {
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
	if r := ranList(t, e, ctx); r[0] != "stat" {
		t.Errorf("marked scripts ran in order %q, want document order", r)
	}
	var order string
	eval(t, ctx, `window.dataLayer.map(function (x) { x = Array.prototype.slice.call(x); return x[0] === 'consent' ? x[1] + ':' + x[2].analytics_storage + '/' + x[2].ad_storage : x[1]; }).join(' ')`, &order)
	if !strings.HasPrefix(order, "default:denied/denied ") || !strings.Contains(order, "page-tag") ||
		strings.Index(order, "page-tag") > strings.Index(order, "update:granted/granted") || strings.Count(order, "update:") != 1 {
		t.Errorf("Consent Mode calls in order: %s", order)
	}
	posts := e.api.waitPosts(t, e.pk, 1)
	p := posts[0]
	if p.Body.Action != "accept_all" || *p.Body.ConsentVersion != 1 || p.Body.VisitorID != nil ||
		fmt.Sprint(p.Body.Categories) != "map[essential:true marketing:true statistics:true]" {
		t.Errorf("consent body %+v", p.Body)
	}
	var ev []map[string]any
	eval(t, ctx, `window.__events`, &ev)
	if len(ev) == 0 || ev[len(ev)-1]["categories"].(map[string]any)["statistics"] != true {
		t.Errorf("consentd:change events %v", ev)
	}
	visitor := p.Record["visitorId"].(string)
	waitFor(t, ctx, `document.cookie.indexOf('`+visitor+`') >= 0`)
	noViolations(t, ctx)

	// Reload: no banner, the choice holds, nothing is posted again.
	navigate(t, ctx, url)
	waitFor(t, ctx, ready)
	waitFor(t, ctx, `(window.__ran || []).indexOf('stat') >= 0`)
	var state map[string]any
	eval(t, ctx, `({banner: !!window.__cd('[data-template]'), c: window.consentd.getConsent()})`, &state)
	c := state["c"].(map[string]any)
	if state["banner"] != false || c["decided"] != true || c["action"] != "accept_all" || c["visitorId"] != visitor {
		t.Errorf("after reload: %v", state)
	}
	settle()
	if n := len(e.api.postsFor(e.pk)); n != 1 {
		t.Errorf("%d records after reload, want 1", n)
	}

	// A consentVersion bump asks again, and the marked scripts wait for the new answer.
	banner(e.cfg)["consentVersion"] = 2
	e.api.set(e.pk, e.cfg)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	settle()
	if r := ranList(t, e, ctx); len(r) != 0 {
		t.Errorf("scripts ran before the new consent: %q", r)
	}
	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	posts = e.api.waitPosts(t, e.pk, 2)
	if b := posts[1].Body; *b.ConsentVersion != 2 || b.VisitorID == nil || *b.VisitorID != visitor {
		t.Errorf("second decision %+v, want version 2 and visitor %s", b, visitor)
	}

	// A category the stored decision does not mention asks again too.
	cats := e.cfg["categories"].([]map[string]any)
	e.cfg["categories"] = append(cats, map[string]any{"slug": "personalisation", "name": "Personalisation",
		"description": "Remembers your preferences.", "nameTranslations": map[string]any{}, "descriptionTranslations": map[string]any{},
		"isRequired": false, "sortOrder": 3, "services": []map[string]any{}})
	e.api.set(e.pk, e.cfg)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	noViolations(t, ctx)
}

func TestBrowserRejectKeepsBlocked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	banner(e.cfg)["template"] = "wide_bar"
	e.api.set(e.pk, e.cfg)
	ctx := tab(t)
	url := e.page("reject", "en", "", e.marked())
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	eval(t, ctx, `window.__cd('[data-action=reject]').click()`, nil)
	p := e.api.waitPosts(t, e.pk, 1)[0]
	if p.Body.Action != "reject_all" || fmt.Sprint(p.Body.Categories) != "map[essential:true marketing:false statistics:false]" {
		t.Errorf("consent body %+v", p.Body)
	}
	if p.Record["categoriesConsented"].(map[string]any)["essential"] != true {
		t.Errorf("record %v", p.Record)
	}
	settle()
	if r := ranList(t, e, ctx); len(r) != 0 {
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
	if r := ranList(t, e, ctx); len(r) != 0 || shown {
		t.Fatalf("after reload: ran %q, banner shown %v", r, shown)
	}
	noViolations(t, ctx)
}

func TestBrowserSiteWideBlocking(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cfg["blockingRules"].(map[string]any)["siteWide"] = true
	banner(e.cfg)["gcmExcludeVendor"] = true
	e.api.set(e.pk, e.cfg)
	ctx := tab(t)
	// inject.js runs before the configuration arrives, as a tag manager would.
	navigate(t, ctx, e.page("dyn", "en", `<script src="/static/inject.js"></script>`, ""))
	waitFor(t, ctx, ready)
	waitFor(t, ctx, `(window.__ran || []).indexOf('free') >= 0`)
	// Inserted once the configuration is known: a matching script and a matching iframe.
	eval(t, ctx, `(function () {
  var s = document.createElement('script');
  s.src = 'http://tracker.test:' + location.port + '/static/track.js?id=dyn2';
  document.body.appendChild(s);
  var f = document.createElement('iframe');
  f.setAttribute('src', 'http://tracker.test:' + location.port + '/static/frame.html');
  document.body.appendChild(f);
  window.__frame = f;
  var g = document.createElement('script');
  g.src = 'https://www.googletagmanager.com/gtag/js?id=G-TEST1';
  var m = document.createElement('script');
  m.src = 'https://connect.facebook.net/en_US/fbevents.js';
  window.__types = [g.type, m.type];
})()`, nil)
	settle()
	var got map[string]any
	eval(t, ctx, `({ran: window.__ran, onload: !!window.__onload, frameSrc: window.__frame.getAttribute('src'), ph: !!document.querySelector('consentd-placeholder'), types: window.__types})`, &got)
	if fmt.Sprint(got["ran"]) != "[free]" || got["onload"] != false || got["frameSrc"] != nil || got["ph"] != true {
		t.Fatalf("before consent: %v", got)
	}
	if fmt.Sprint(got["types"]) != "[ text/plain]" {
		t.Errorf("gcmExcludeVendor: Google tag type and Meta type = %v, want [\"\" text/plain]", got["types"])
	}
	screenshot(t, ctx, "blocked-iframe-placeholder")
	eval(t, ctx, `window.consentd.acceptAll()`, nil)
	waitFor(t, ctx, `window.__ran.indexOf('dyn') >= 0 && window.__ran.indexOf('dyn2') >= 0 && window.__onload`)
	waitFor(t, ctx, `window.__frame.getAttribute('src') && !document.querySelector('consentd-placeholder')`)
	noViolations(t, ctx)
}

func TestBrowserGPCUnderCCPA(t *testing.T) {
	t.Parallel()
	gpcInit := `Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', {get: function () { return true; }, configurable: true});`
	e := newEnv(t)
	e.cfg["jurisdiction"] = "ccpa"
	banner(e.cfg)["defaultBehavior"] = "opt_out"
	e.api.set(e.pk, e.cfg)
	ctx := tab(t, gpcInit)
	navigate(t, ctx, e.page("gpc", "en", "", e.marked()))
	p := e.api.waitPosts(t, e.pk, 1)[0]
	if p.Body.Action != "gpc" || p.Body.GPC == nil || !*p.Body.GPC || p.Body.DoNotSell == nil || !*p.Body.DoNotSell ||
		fmt.Sprint(p.Body.Categories) != "map[essential:true marketing:false statistics:true]" {
		t.Errorf("GPC decision %+v", p.Body)
	}
	if p.Record["gpcSignal"] != true || p.Record["doNotSell"] != true {
		t.Errorf("record %v", p.Record)
	}
	waitFor(t, ctx, `(window.__ran || []).indexOf('stat') >= 0`)
	settle()
	var st map[string]any
	eval(t, ctx, `({ran: window.__ran, banner: !!window.__cd('[data-template]'), c: window.consentd.getConsent(),
  gcm: window.dataLayer.filter(function (x) { return x[0] === 'consent'; }).pop()[2]})`, &st)
	gcm := st["gcm"].(map[string]any)
	if fmt.Sprint(st["ran"]) != "[stat]" || st["banner"] != false || gcm["ad_storage"] != "denied" || gcm["analytics_storage"] != "granted" ||
		st["c"].(map[string]any)["doNotSell"] != true {
		t.Errorf("after GPC: %v", st)
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
		e := newEnv(t)
		ctx := tab(t, gpcInit)
		navigate(t, ctx, e.page("gpc-gdpr", "en", "", ""))
		waitFor(t, ctx, bannerShown)
		settle()
		if n := len(e.api.postsFor(e.pk)); n != 0 {
			t.Errorf("%d records without a visitor's decision under gdpr", n)
		}
	})
}

func TestBrowserKeyboardOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := tab(t)
	navigate(t, ctx, e.page("kbd", "en", "", e.marked()))
	waitFor(t, ctx, bannerShown)
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
	p := e.api.waitPosts(t, e.pk, 1)[0]
	if p.Body.Action != "custom" || fmt.Sprint(p.Body.Categories) != "map[essential:true marketing:false statistics:true]" {
		t.Errorf("keyboard decision %+v", p.Body)
	}
	waitFor(t, ctx, `(window.__ran || []).indexOf('stat') >= 0`)
	settle()
	if r := ranList(t, e, ctx); fmt.Sprint(r) != "[stat]" {
		t.Errorf("ran %q, want only the statistics script", r)
	}
	noViolations(t, ctx)
}

func TestBrowserPageAPIAndStorefront(t *testing.T) {
	t.Parallel()
	shop := `window.__shop = []; window.Shopify = {customerPrivacy: {setTrackingConsent: function (o, cb) { window.__shop.push(o); if (cb) cb(); }}};`
	e := newEnv(t)
	banner(e.cfg)["storefrontIntegration"] = true
	e.api.set(e.pk, e.cfg)
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
	// [data-consentd-open] reopens the preferences.
	run(t, ctx, chromedp.Click(chromedp.CSS("#open")))
	waitFor(t, ctx, `window.__cd('dialog[data-preferences]')`)
	eval(t, ctx, `window.consentd.acceptAll()`, nil)
	waitFor(t, ctx, `!window.__cd('dialog[data-preferences]') && document.querySelector('iframe').getAttribute('src')`)
	eval(t, ctx, `window.consentd.rejectAll()`, nil)
	posts := e.api.waitPosts(t, e.pk, 2)
	if posts[0].Body.Action != "accept_all" || posts[1].Body.Action != "reject_all" {
		t.Errorf("actions %s, %s", posts[0].Body.Action, posts[1].Body.Action)
	}
	// Withdrawing marketing puts the iframe back behind its placeholder; its button allows it.
	waitFor(t, ctx, `!document.querySelector('iframe').getAttribute('src') && document.querySelector('consentd-placeholder')`)
	eval(t, ctx, `document.querySelector('consentd-placeholder').shadowRoot.querySelector('button').click()`, nil)
	posts = e.api.waitPosts(t, e.pk, 3)
	if b := posts[2].Body; b.Action != "custom" || fmt.Sprint(b.Categories) != "map[essential:true marketing:true statistics:false]" {
		t.Errorf("placeholder decision %+v", b)
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

// TestBrowserPatternParity checks the runtime's matcher against library.Pattern on one table.
func TestBrowserPatternParity(t *testing.T) {
	t.Parallel()
	patterns := []string{
		"www.googletagmanager.com/gtag/js?id=G-", "*.hotjar.com", "connect.facebook.net/en_US/fbevents.js",
		"cdn.example.com/a/*/b.js", "Static.Example.org/x", "tags.example.net?k=v w", "bad pattern",
		"https://scheme.example/x", "noperiod/x", "q.example.com/p?id=a+b", "g.example.com/[ab]*.js",
		"frag.example.com/x#y", "under_score.example.com", "xn--bcher-kva.example/b", "a..example.com", "ümlaut.example",
	}
	urls := []string{
		"https://www.googletagmanager.com/gtag/js?id=G-ABC", "https://www.googletagmanager.com/gtag/js?id=AW-1",
		"http://www.googletagmanager.com:8080/gtag/js?x=1&id=G-Z#f", "https://WWW.GoogleTagManager.com/gtag/js/x?id=G-1",
		"https://static.hotjar.com/c/hotjar.js", "https://hotjar.com/", "https://nothotjar.com/", "https://hotjar.com.evil.io/",
		"https://connect.facebook.net/en_US/fbevents.js?v=2", "https://connect.facebook.net/de_DE/fbevents.js",
		"https://cdn.example.com/a/v1/b.js", "https://cdn.example.com/a/v1/v2/b.js", "https://static.example.org/x/y",
		"https://static.example.org/xy", "https://tags.example.net/?k=v%20w", "https://tags.example.net/?k=v+wx",
		"https://tags.example.net/?k=v;w", "https://scheme.example/x", "https://q.example.com/p?id=a%2Bb",
		"https://q.example.com/p?id=a+b", "https://g.example.com/a1.js", "https://g.example.com/c1.js",
		"https://g.example.com/a/1.js", "https://frag.example.com/x#y", "https://under_score.example.com/",
		"https://bücher.example/b", "https://xn--bcher-kva.example/b/c", "https://ümlaut.example/",
	}
	// browserOnly lists where the runtime rightly differs from library.Pattern.MatchString: the
	// browser fetches an internationalised host in punycode (which is how patterns spell it),
	// while the Go matcher compares the Unicode host of the string as written.
	browserOnly := map[string]string{"https://bücher.example/b": "r13"}
	var rules []map[string]any
	var compiled []library.Pattern
	var slugs []string
	for i, p := range patterns {
		slug := fmt.Sprintf("r%d", i)
		rules = append(rules, map[string]any{"serviceSlug": slug, "categorySlug": "marketing", "patterns": []string{p}})
		if cp, err := library.ParsePattern(p); err == nil {
			compiled = append(compiled, cp)
			slugs = append(slugs, slug)
		}
	}
	e := newEnv(t)
	e.cfg["blockingRules"] = map[string]any{"siteWide": true, "rules": rules}
	e.api.set(e.pk, e.cfg)
	ctx := tab(t)
	navigate(t, ctx, e.page("parity", "en", "", ""))
	waitFor(t, ctx, ready)
	b, _ := json.Marshal(urls)
	var got []string
	eval(t, ctx, `(`+string(b)+`).map(function (u) { var r = window.consentd.blockingRuleFor(u); return r ? r.service : ''; })`, &got)
	for i, u := range urls {
		want := ""
		for j, p := range compiled {
			if p.MatchString(u) {
				want = slugs[j]
				break
			}
		}
		if w, ok := browserOnly[u]; ok {
			want = w
		}
		if got[i] != want {
			t.Errorf("%s: runtime rule %q, library %q", u, got[i], want)
		}
	}
}
