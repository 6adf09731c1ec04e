package banner_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserTCFStacksAndProviders is #45's test of tcf.useStacks and of Google's provider
// names. The test site's five vendors declare all eleven purposes and it asks for special
// feature 1: with stacks on, the first layer shows stack 42 (purposes 2 to 11, the IAB's name
// and description) in place of those ten purposes, purpose 1 and special feature 1 on their
// own; the second layer still lists every purpose, and names Google's providers 39 and 89 from
// the recorded provider list (testdata/tcf) with links to their policies. Both layers pass
// axe-core on desktop and phone and are captured for a human look; "accept all" still consents
// to every purpose.
func TestBrowserTCFStacksAndProviders(t *testing.T) {
	t.Parallel()
	nm := tcfDecoder(t)
	e := newTCFEnv(t)
	e.patchBanner(t, map[string]any{"tcf": map[string]any{"enabled": true, "vendorIds": tcfVendors,
		"publisherCountryCode": "FR", "specialFeatures": []int{1}, "googleAtpIds": tcfAtps, "useStacks": true}})
	url := tcfPage(e, "tcf-stacks")
	for _, device := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}} {
		ctx := tab(t)
		if device.mobile {
			run(t, ctx, chromedp.EmulateViewport(device.width, device.height, chromedp.EmulateScale(2), chromedp.EmulateMobile))
		}
		navigate(t, ctx, url)
		waitFor(t, ctx, `window.__tcfUI('.l1')`)
		var first struct {
			Purposes, Features []string
		}
		eval(t, ctx, `(function () {
  var items = function (l) { var u = window.__tcfUI('.l1 ul[data-list=' + l + ']'); return u ? Array.prototype.map.call(u.children, function (li) { return li.textContent; }) : []; };
  return {purposes: items('purposes'), features: items('features')};
})()`, &first)
		// Stack 42 (name, then description), then purpose 1; special feature 1 alone.
		if len(first.Purposes) != 2 ||
			first.Purposes[0] != "Personalised advertising and content, advertising and content measurement, audience research and services development"+
				"Advertising and content can be personalised based on your profile. Your activity on this service can be used to build or improve a profile about you for personalised advertising and content. Advertising and content performance can be measured. Reports can be generated based on your activity and those of others. Your activity on this service can help develop and improve products and services." ||
			first.Purposes[1] != "Store and/or access information on a device" ||
			len(first.Features) != 1 || first.Features[0] != "Use precise geolocation data" {
			t.Errorf("first layer with stacks (%s): purposes %q, special features %q", device.name, first.Purposes, first.Features)
		}
		axeCheck(t, ctx, "the TCF first layer with stacks ("+device.name+")", "consentd-tcf")
		screenshot(t, ctx, "tcf-stacks-first-layer-"+device.name)

		eval(t, ctx, `window.__tcfUI('.l1 [data-action=manage]').click()`, nil)
		waitFor(t, ctx, `window.__tcfUI('dialog.l2[open]')`)
		// The second layer lists each purpose on its own, and Google's providers by name.
		if n := window1(t, ctx, `String(window.__tcfUI('#tcf-sp').parentNode.querySelectorAll('input[data-key^="p"]:not([data-key^="pl"])').length)`); n != "11" {
			t.Errorf("second layer (%s): %s purpose switches, want 11", device.name, n)
		}
		var providers []struct{ Name, Href string }
		eval(t, ctx, `Array.prototype.map.call(window.__tcfUI('#tcf-sa').parentNode.querySelectorAll('.ro'), function (r) {
  r.querySelector('details').open = true;
  var a = r.querySelector('a');
  return {name: r.querySelector('summary').textContent, href: a ? a.href : ''};
})`, &providers)
		if len(providers) != 2 || providers[0] != (struct{ Name, Href string }{"Digilant", "https://www.digilant.com/privacy-policy/"}) ||
			providers[1] != (struct{ Name, Href string }{"Facebook", "https://www.facebook.com/about/privacy/update"}) {
			t.Errorf("Google's providers in the second layer (%s): %+v", device.name, providers)
		}
		axeCheck(t, ctx, "the TCF second layer with Google's providers ("+device.name+")", "consentd-tcf")
		eval(t, ctx, `window.__tcfUI('#tcf-sa').scrollIntoView()`, nil)
		screenshot(t, ctx, "tcf-stacks-second-layer-providers-"+device.name)
		if device.mobile {
			continue
		}
		eval(t, ctx, `window.__tcfUI('dialog.l2 [data-action=accept]').click()`, nil)
		tc, ac := lastDecision(t, ctx, 1)
		checkTC(t, nm, "accept all with stacks shown", tc, true)
		if ac != "2~39.89~dv." {
			t.Errorf("accept all: addtlConsent %q", ac)
		}
		noViolations(t, ctx)
	}
}
