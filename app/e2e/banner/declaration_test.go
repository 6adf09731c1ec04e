package banner_test

import (
	"strings"
	"testing"
)

// TestBrowserDeclaration: the cookie declaration, embedded in the site's own page and as
// consentd's page (the banner's cookiePolicyUrl), lists the site's services and cookies, shows
// the visitor's choice with its record ID, and records a change made from it.
func TestBrowserDeclaration(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	cookiesURL := e.api + "/api/v1/public/" + e.pk + "/cookies"
	e.patchBanner(t, map[string]any{"cookiePolicyUrl": cookiesURL})
	url := e.shop("policy", "en", "", `<h2>Our cookie policy</h2><div data-consentd-declaration></div>`)
	ctx := tab(t)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	embed := `document.querySelector('[data-consentd-declaration]')`
	choice := `window.__choice(document.querySelector('[data-consentd-declaration]'))`
	waitFor(t, ctx, embed+`.querySelector('table')`)
	var text string
	waitFor(t, ctx, choice)
	eval(t, ctx, embed+`.textContent + `+choice+`.textContent`, &text)
	for _, want := range []string{"Essential", "consentd", "Remembers your consent choices on this site", "365 days", "Stripe", "__stripe_mid",
		"Statistics", "Google Analytics", "_ga_*", "A name ending in * stands for several cookies", "2 years",
		"Distinguishes users", "Privacy policy of Google Analytics", "Marketing", "Meta Pixel", "_fbp", "You have not made a choice yet."} {
		if !strings.Contains(text, want) {
			t.Errorf("the embedded declaration lacks %q", want)
		}
	}
	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	r := e.waitRecords(t, 1)[0]
	waitFor(t, ctx, choice+`.querySelector('[data-consentd-record]') && `+choice+`.querySelector('[data-consentd-record]').textContent === '`+r.ID+`'`)
	eval(t, ctx, choice+`.textContent`, &text)
	if !strings.Contains(text, "Statistics: Allowed") || !strings.Contains(text, "Consent ID") {
		t.Errorf("the embed's choice %q", text)
	}
	eval(t, ctx, embed+`.scrollIntoView()`, nil)
	screenshot(t, ctx, "declaration-embed")
	axeCheck(t, ctx, "the embedded declaration", "[data-consentd-declaration]")

	// Withdrawing from the embed is recorded, and the embed follows.
	eval(t, ctx, choice+`.querySelector('[data-action=withdraw]').click()`, nil)
	r2 := e.waitRecords(t, 2)[1]
	if r2.Action != "reject_all" || r2.VisitorID != r.VisitorID {
		t.Errorf("withdrawal record %+v", r2)
	}
	waitFor(t, ctx, choice+`.querySelector('[data-consentd-record]').textContent === '`+r2.ID+`'`)
	noViolations(t, ctx)

	// consentd's page, reached through the banner's cookie policy link, knows the choice.
	eval(t, ctx, `window.consentd.showPreferences()`, nil)
	waitFor(t, ctx, `window.__cd('dialog[data-preferences] a[href*="/cookies"]')`)
	var href string
	eval(t, ctx, `window.__cd('dialog[data-preferences] a[href*="/cookies"]').href`, &href)
	if !strings.HasPrefix(href, cookiesURL+"#consentd=") {
		t.Fatalf("cookie policy link %s", href)
	}
	navigate(t, ctx, href)
	pageChoice := `window.__choice(document)`
	waitFor(t, ctx, pageChoice+` && `+pageChoice+`.querySelector('[data-consentd-record]')`)
	var page map[string]string
	eval(t, ctx, `({lang: document.documentElement.lang, text: document.body.textContent + `+pageChoice+`.textContent,
  record: `+pageChoice+`.querySelector('[data-consentd-record]').textContent, banner: String(!!window.__cd('[data-template]'))})`, &page)
	if page["lang"] != "en" || page["record"] != r2.ID || page["banner"] != "false" {
		t.Errorf("declaration page: lang %s, record %s (want %s), banner %s", page["lang"], page["record"], r2.ID, page["banner"])
	}
	for _, want := range []string{"Cookie declaration", "consentd", "Remembers your consent choices on this site", "Google Analytics", "_ga_*",
		"A name ending in * stands for several cookies", "Meta Pixel", "_fbp", "Statistics: Not allowed"} {
		if !strings.Contains(page["text"], want) {
			t.Errorf("the declaration page lacks %q", want)
		}
	}
	screenshot(t, ctx, "declaration-page")
	axeCheck(t, ctx, "the declaration page")

	// Changing consent from the page is recorded for the same visitor.
	eval(t, ctx, pageChoice+`.querySelector('[data-action=change]').click()`, nil)
	waitFor(t, ctx, `window.__cd('input[data-category=statistics]')`)
	eval(t, ctx, `window.__cd('input[data-category=statistics]').click(); window.__cd('[data-action=save]').click()`, nil)
	r3 := e.waitRecords(t, 3)[2]
	if r3.Action != "custom" || r3.VisitorID != r.VisitorID || cats(r3.CategoriesConsented) != "map[essential:true marketing:false statistics:true]" {
		t.Errorf("change from the declaration page: %+v", r3)
	}
	waitFor(t, ctx, pageChoice+`.querySelector('[data-consentd-record]').textContent === '`+r3.ID+`'`)
	noViolations(t, ctx)
}

// TestBrowserSubdomains: with the consent cookie's domain set to the registrable domain, a
// decision made on one subdomain holds on another.
func TestBrowserSubdomains(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	mgmt(t, e.api, "PATCH", "/sites/"+e.id, map[string]any{"url": "https://a.test.example/"}, 200, nil)
	e.patchBanner(t, map[string]any{"cookieDomain": ".test.example"})
	u := e.shop("sub", "en", "", "")
	port := u[strings.LastIndex(u, ":")+1 : strings.Index(u, "/p/")]
	onA, onB := "http://a.test.example:"+port+"/p/sub", "http://b.test.example:"+port+"/p/sub"
	ctx := tab(t)
	navigate(t, ctx, onA)
	waitFor(t, ctx, bannerShown)
	eval(t, ctx, `window.__cd('[data-action=reject]').click()`, nil)
	waitFor(t, ctx, `window.consentd.getConsent().recordId`)
	r := e.waitRecords(t, 1)[0]
	navigate(t, ctx, onB)
	waitFor(t, ctx, ready)
	var c map[string]any
	eval(t, ctx, `({banner: !!window.__cd('[data-template]'), c: window.consentd.getConsent(), host: location.hostname})`, &c)
	got := c["c"].(map[string]any)
	if c["host"] != "b.test.example" || c["banner"] != false || got["decided"] != true || got["visitorId"] != r.VisitorID || got["recordId"] != r.ID {
		t.Errorf("on the other subdomain: %v", c)
	}
	settle()
	if n := len(e.records(t)); n != 1 {
		t.Errorf("%d records, want the one decision", n)
	}
	noViolations(t, ctx)
}
