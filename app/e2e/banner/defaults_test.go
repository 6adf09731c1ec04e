package banner_test

import (
	"strings"
	"testing"
)

// newSiteAsInReadme creates a site as the README's walk-through does (POST /sites, then
// GET /setup-snippet) and nothing else: no service, no banner setting, no blocking switch.
func newSiteAsInReadme(t testing.TB, country string) *env {
	t.Helper()
	srv := theServer(t)
	e := &env{srv: srv, api: srv.edge(t, country)}
	var created struct {
		ID         string `json:"id"`
		ProjectKey string `json:"projectKey"`
	}
	e.post(t, "/sites", map[string]any{"name": "My blog " + t.Name(), "url": "https://blog.example"}, 201, &created)
	e.id, e.pk = created.ID, created.ProjectKey
	var sn struct{ Code string }
	mgmt(t, e.api, "GET", "/sites/"+e.id+"/setup-snippet?framework=script", nil, 200, &sn)
	e.snippet = sn.Code
	e.site = newSite(t, e.api)
	return e
}

// TestBrowserEnforcedByDefault follows the README's walk-through on a new site whose page has
// the setup snippet first in <head> and the Google Analytics and Meta Pixel snippets pasted
// unmarked, as their vendors ship them, without configuring a service or touching a setting:
// on the first visit neither runs; after "Reject all" and a reload neither runs; after
// "Accept all" both run; after withdrawing, _ga, _ga_<id> and _fbp are gone.
func TestBrowserEnforcedByDefault(t *testing.T) {
	t.Parallel()
	e := newSiteAsInReadme(t, "DE")
	var svcs []any
	mgmt(t, e.api, "GET", "/sites/"+e.id+"/services", nil, 200, &svcs)
	if len(svcs) != 0 {
		t.Fatalf("a new site has services: %v", svcs)
	}
	url := e.shop("readme", "en", unmarkedTags(e.site.thirdPort()), "")
	ctx := tab(t)
	nothingRan := func(when string) {
		t.Helper()
		if v := vendors(t, ctx); v.Gtag != 0 || v.Fbq != 0 || strings.Contains(v.Cookies, "_ga") || strings.Contains(v.Cookies, "_fbp") {
			t.Fatalf("%s: vendor tags ran: %+v", when, v)
		}
		if h := e.site.vendorHits(); len(h) != 0 {
			t.Fatalf("%s: collection requests %q", when, h)
		}
	}

	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	settle()
	nothingRan("first visit")
	// "Reject all" is on the banner's first layer, beside "Accept all".
	var first []string
	eval(t, ctx, `Array.from(window.__cd('[data-template]').querySelectorAll('button[data-action]')).map(function (b) { return b.getAttribute('data-action'); })`, &first)
	if strings.Join(first, " ") != "close reject preferences accept" {
		t.Errorf("first layer buttons %q", first)
	}
	eval(t, ctx, `window.__cd('[data-action=reject]').click()`, nil)
	waitFor(t, ctx, `window.consentd.getConsent().recordId`)
	navigate(t, ctx, url)
	waitFor(t, ctx, ready)
	settle()
	nothingRan("after Reject all and a reload")

	// The visitor changes their mind: "Accept all" from the preferences runs both tags at once.
	eval(t, ctx, `window.consentd.showPreferences()`, nil)
	waitFor(t, ctx, `window.__cd('dialog[data-preferences] [data-action=accept]')`)
	eval(t, ctx, `window.__cd('dialog[data-preferences] [data-action=accept]').click()`, nil)
	waitFor(t, ctx, `window.__vendor && window.__vendor.gtag > 0 && window.__vendor.fbq >= 2`)
	waitFor(t, ctx, `document.cookie.indexOf('_ga=') >= 0 && document.cookie.indexOf('_ga_UNMARKED=') >= 0 && document.cookie.indexOf('_fbp=') >= 0`)

	// Withdrawing both categories deletes the cookies the built-in rules' services set.
	eval(t, ctx, `window.consentd.showPreferences()`, nil)
	waitFor(t, ctx, `window.__cd('dialog[data-preferences] [data-action=reject]')`)
	eval(t, ctx, `window.__cd('dialog[data-preferences] [data-action=reject]').click()`, nil)
	waitFor(t, ctx, `document.cookie.indexOf('_ga') < 0 && document.cookie.indexOf('_fbp') < 0`)
	var cookies string
	eval(t, ctx, `document.cookie`, &cookies)
	if !strings.Contains(cookies, "consentd=") {
		t.Errorf("withdrawal took consentd's own cookie: %q", cookies)
	}
	recs := e.waitRecords(t, 3)
	if recs[0].Action != "reject_all" || recs[1].Action != "accept_all" || recs[2].Action != "reject_all" ||
		cats(recs[2].CategoriesConsented) != "map[essential:true marketing:false statistics:false]" {
		t.Errorf("records %+v", recs)
	}
	noViolations(t, ctx)
}
