package banner_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/core"
)

// regionHeader is the trusted header carrying the visitor's subdivision (CONSENTD_REGION_HEADER).
const regionHeader = "X-Region"

// gpcInit makes the page see a Global Privacy Control signal, as browsers that send Sec-GPC do
// (headless Chromium has no setting for it).
const gpcInit = `Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', {get: function () { return true; }, configurable: true});`

// TestBrowserRegionalRules is #26's browser test: one page with an unmarked Google Analytics
// tag, site-wide blocking on, and the rules EU/EEA/GB/CH opt_in, US-CA opt_out, * no_banner. On a
// consentd that geolocates the address a trusted proxy (127.0.0.1) forwards and trusts a CDN's
// country and region headers:
//   - a visitor from France (X-Forwarded-For 80.67.169.12) sees the opt-in banner, without a Do
//     Not Sell control, and the tag is held;
//   - a visitor from Japan (202.12.27.33) sees no banner and the tag runs;
//   - a visitor from California (country header US, region header CA) sees the opt-out notice
//     with the "Do Not Sell or Share My Personal Information" control while the tag runs; the
//     control turns marketing off and is recorded as doNotSell, and the reopen button is
//     labelled so; with Sec-GPC: 1 marketing is off from the start and the record says so.
//
// axe-core finds nothing on the notices; screenshots of the California notice on a desktop and
// a phone.
func TestBrowserRegionalRules(t *testing.T) {
	t.Parallel()
	browser(t) // skips (or fails under CI) without Chromium before starting anything
	edge := regionalEdge(t, nil)
	base := edge(nil)
	var created struct{ ID, ProjectKey string }
	mgmt(t, base, "POST", "/sites", map[string]any{"name": "Acme Outdoor regions", "url": "https://acme.example"}, 201, &created)
	mgmt(t, base, "POST", "/sites/"+created.ID+"/services/import", map[string]any{"slug": "google-analytics"}, 201, nil)
	mgmt(t, base, "PUT", "/sites/"+created.ID+"/script-blocking", map[string]any{"enabled": true}, 200, nil)
	mgmt(t, base, "PATCH", "/sites/"+created.ID+"/banner", map[string]any{
		"colors": map[string]any{"primary": "#0b6e4f", "acceptButton": "#0b6e4f", "rejectButton": "#0b6e4f"},
		"regionRules": []map[string]any{
			{"regions": []string{"EU", "EEA", "GB", "CH"}, "defaultBehavior": "opt_in"},
			{"regions": []string{"US-CA"}, "defaultBehavior": "opt_out"},
			{"regions": []string{"*"}, "defaultBehavior": "no_banner"},
		}}, 200, nil)
	type rec struct {
		ID, Action, Jurisdiction, IPCountry, Region string
		GPCSignal, DoNotSell                        bool
		CategoriesConsented                         map[string]bool
	}
	records := func(n int) []rec {
		t.Helper()
		deadline := time.Now().Add(patience)
		for {
			var pg struct{ Records []rec }
			mgmt(t, base, "GET", "/sites/"+created.ID+"/consent-records?limit=100", nil, 200, &pg)
			if len(pg.Records) >= n || time.Now().After(deadline) {
				if len(pg.Records) < n {
					t.Fatalf("%d consent records, want %d", len(pg.Records), n)
				}
				return pg.Records // newest first
			}
			time.Sleep(30 * time.Millisecond)
		}
	}
	// visit opens the page as a visitor reaching consentd through an edge forwarding hdr.
	visit := func(name string, hdr map[string]string, init ...string) (context.Context, *site) {
		api := edge(hdr)
		s := newSite(t, api)
		url := s.raw(name, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<script src="`+api+core.PublicPath(created.ProjectKey, core.PublicLoader)+`"></script>
<script src="/static/page.js"></script>
<script async src="https://www.googletagmanager.com:`+s.thirdPort()+`/gtag/js?id=G-UNMARKED"></script>
<script nonce="`+nonce+`">
  window.dataLayer = window.dataLayer || [];
  function gtag(){dataLayer.push(arguments);}
  gtag('js', new Date());
  gtag('config', 'G-UNMARKED');
</script>
<title>Acme Outdoor</title>
<link rel="stylesheet" href="/static/site.css">
</head><body>
<header><strong>Acme Outdoor</strong><nav><a href="#">Tents</a> <a href="#">Boots</a></nav></header>
<main><h1>Gear for every trail</h1>
<p>Lightweight tents, waterproof boots and warm jackets, tested on real trails by our team.</p></main>
</body></html>`)
		ctx := tab(t, init...)
		navigate(t, ctx, url)
		return ctx, s
	}
	tagRan := `(window.__ran || []).indexOf('G-UNMARKED') >= 0 && (window.__vendor || {}).gtag > 0`
	dontSell := `window.__cd('[data-action=do-not-sell]')`

	t.Run("France", func(t *testing.T) {
		ctx, s := visit("fr", map[string]string{"X-Forwarded-For": "80.67.169.12"})
		waitFor(t, ctx, bannerShown)
		settle()
		var st struct {
			Ran      bool
			DontSell bool
			Stat     bool
		}
		eval(t, ctx, `({ran: `+tagRan+`, dontSell: !!`+dontSell+`, stat: window.consentd.getConsent().categories.statistics})`, &st)
		if st.Ran || st.DontSell || st.Stat || len(s.vendorHits()) != 0 {
			t.Fatalf("France: %+v, collection requests %q (want the opt-in banner, the tag held)", st, s.vendorHits())
		}
		axeCheck(t, ctx, "the opt-in banner", "consentd-ui")
	})

	t.Run("Japan", func(t *testing.T) {
		ctx, _ := visit("jp", map[string]string{"X-Forwarded-For": "202.12.27.33"})
		waitFor(t, ctx, tagRan)
		settle()
		var banner bool
		eval(t, ctx, `!!document.querySelector('consentd-ui')`, &banner)
		if banner {
			t.Fatal("Japan: a banner under no_banner")
		}
	})

	california := map[string]string{countryHeader: "US", regionHeader: "CA"}
	t.Run("California", func(t *testing.T) {
		ctx, _ := visit("ca", california)
		waitFor(t, ctx, bannerShown)
		waitFor(t, ctx, tagRan) // opt-out: nothing held before a decision
		var label string
		eval(t, ctx, dontSell+`.textContent`, &label)
		if label != "Do Not Sell or Share My Personal Information" {
			t.Fatalf("California: Do Not Sell control %q", label)
		}
		axeCheck(t, ctx, "the opt-out notice", "consentd-ui")
		screenshot(t, ctx, "regions-california-desktop")
		run(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		axeCheck(t, ctx, "the opt-out notice on a phone", "consentd-ui")
		screenshot(t, ctx, "regions-california-phone")
		run(t, ctx, chromedp.EmulateViewport(1280, 800))

		eval(t, ctx, dontSell+`.click()`, nil)
		r := records(1)[0]
		if r.Jurisdiction != "ccpa" || r.Region != "US-CA" || !r.DoNotSell || r.GPCSignal || r.CategoriesConsented["marketing"] ||
			!r.CategoriesConsented["statistics"] || r.Action != "custom" {
			t.Errorf("California, Do Not Sell: record %+v", r)
		}
		// The way back is labelled to match.
		waitFor(t, ctx, `document.querySelector('consentd-reopen') && document.querySelector('consentd-reopen').shadowRoot.querySelector('[data-action=reopen]')`)
		eval(t, ctx, `document.querySelector('consentd-reopen').shadowRoot.querySelector('[data-action=reopen]').textContent`, &label)
		if label != "Do Not Sell or Share My Personal Information" {
			t.Errorf("California: reopen button %q", label)
		}
		var c struct {
			DoNotSell  bool
			Categories map[string]bool
		}
		eval(t, ctx, `window.consentd.getConsent()`, &c)
		if !c.DoNotSell || c.Categories["marketing"] {
			t.Errorf("California after Do Not Sell: %+v", c)
		}
	})

	t.Run("California with GPC", func(t *testing.T) {
		ctx := tab(t, gpcInit)
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Sec-GPC": "1"}})
			return err
		}))
		if err != nil {
			t.Fatal(err)
		}
		before := len(records(0))
		api := edge(california)
		s := newSite(t, api)
		navigate(t, ctx, s.raw("ca-gpc", `<!doctype html><html lang="en"><head><meta charset="utf-8">
<script src="`+api+core.PublicPath(created.ProjectKey, core.PublicLoader)+`"></script>
<script src="/static/page.js"></script><title>Acme Outdoor</title></head><body><main><h1>Gear for every trail</h1></main></body></html>`))
		r := records(before + 1)[0]
		if r.Action != "gpc" || !r.GPCSignal || !r.DoNotSell || r.CategoriesConsented["marketing"] || r.Jurisdiction != "ccpa" || r.Region != "US-CA" {
			t.Errorf("California with GPC: record %+v", r)
		}
		var c struct {
			DoNotSell  bool
			GPC        bool
			Categories map[string]bool
		}
		eval(t, ctx, `window.consentd.getConsent()`, &c)
		if !c.DoNotSell || !c.GPC || c.Categories["marketing"] {
			t.Errorf("California with GPC: %+v", c)
		}
	})

	// rejectOnFirstLayer false: the notice leaves "Reject all" to the preferences, which show it.
	t.Run("California without reject on the first layer", func(t *testing.T) {
		mgmt(t, base, "PATCH", "/sites/"+created.ID+"/banner", map[string]any{"regionRules": []map[string]any{
			{"regions": []string{"EU", "EEA", "GB", "CH"}, "defaultBehavior": "opt_in"},
			{"regions": []string{"US-CA"}, "defaultBehavior": "opt_out", "rejectOnFirstLayer": false},
			{"regions": []string{"*"}, "defaultBehavior": "no_banner"},
		}}, 200, nil)
		ctx, _ := visit("ca-noreject", california)
		waitFor(t, ctx, bannerShown)
		var st struct{ Reject, Accept, DontSell bool }
		eval(t, ctx, `({reject: !!window.__cd('[data-template] [data-action=reject]'), accept: !!window.__cd('[data-template] [data-action=accept]'), dontSell: !!`+dontSell+`})`, &st)
		if st.Reject || !st.Accept || !st.DontSell {
			t.Fatalf("the notice: %+v (want accept and Do Not Sell, no reject)", st)
		}
		eval(t, ctx, `window.__cd('[data-action=preferences]').click()`, nil)
		waitFor(t, ctx, `window.__cd('dialog[data-preferences] [data-action=reject]') && window.__cd('dialog[data-preferences] [data-action=do-not-sell]')`)
		axeCheck(t, ctx, "the opt-out preferences", "consentd-ui")
		screenshot(t, ctx, "regions-california-preferences")
	})
}
