package banner_test

import (
	"testing"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
)

// TestBrowserTCFPolicyVersion is #45's test of the TCF policy version: the GVL's
// tcfPolicyVersion (vendor-list-v17.json) is the runtime's; a visitor from Germany accepts all
// on the TCF layer, and on the next page view the stored TC string applies (no layer). Then the
// stored TC string is put under the policy version before it (its TcfPolicyVersion field, and
// the choices kept beside it): the next page view discards it and shows the TCF layer again.
func TestBrowserTCFPolicyVersion(t *testing.T) {
	t.Parallel()
	browser(t)
	edge := regionalEdge(t, func(c *app.Config) {
		c.TCFGVLFile, c.TCFCMPID, c.TCFCMPVersion = gvlFile, testCMPID, testCMPVersion
	})
	base := edge(nil)
	var created struct{ ID, ProjectKey string }
	mgmt(t, base, "POST", "/sites", map[string]any{"name": "Acme TCF policy", "url": "https://acme.example"}, 201, &created)
	mgmt(t, base, "POST", "/sites/"+created.ID+"/services/import", map[string]any{"slug": "google-analytics"}, 201, nil)
	mgmt(t, base, "PATCH", "/sites/"+created.ID+"/banner", map[string]any{
		"tcf": map[string]any{"enabled": true, "vendorIds": tcfVendors, "publisherCountryCode": "DE"},
	}, 200, nil)
	api := edge(map[string]string{countryHeader: "DE"})
	s := newSite(t, api)
	page := s.raw("tcfpolicy", `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme</title>
<script src="`+api+core.PublicPath(created.ProjectKey, core.PublicLoader)+`"></script></head>
<body><main><h1>Acme</h1></main></body></html>`)
	layer := `(function () { var h = document.querySelector('consentd-tcf'); return h && h.shadowRoot.querySelector('.l1 [data-action=accept]'); })()`
	ctx := tab(t)
	navigate(t, ctx, page)
	waitFor(t, ctx, layer)
	eval(t, ctx, `window.__tcfTC = null; __tcfapi('addEventListener', 2, function (d, ok) { if (ok && d.eventStatus === 'useractioncomplete') window.__tcfTC = d.tcString; })`, nil)
	eval(t, ctx, `document.querySelector('consentd-tcf').shadowRoot.querySelector('.l1 [data-action=accept]').click()`, nil)
	waitFor(t, ctx, `!!window.__tcfTC`)
	var policy int
	eval(t, ctx, `(function () { var r; __tcfapi('getTCData', 2, function (d) { r = d.tcfPolicyVersion; }); return r; })()`, &policy)
	if policy < 2 {
		t.Fatalf("tcfPolicyVersion %d from the GVL", policy)
	}
	// The next page view: the stored string applies, no layer.
	loaded := `(function () { var r; __tcfapi('ping', 2, function (p) { r = p; }); return r && r.cmpStatus === 'loaded' && r.displayStatus; })()`
	navigate(t, ctx, page)
	waitFor(t, ctx, loaded)
	var status string
	eval(t, ctx, loaded, &status)
	if status != "disabled" {
		t.Fatalf("with a current TC string the TCF UI is %q, want disabled (not shown)", status)
	}
	// Put the stored string under the policy version before the GVL's.
	eval(t, ctx, `(function () {
  var B = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  var m = document.cookie.match(/(?:^|;\s*)euconsent-v2=([^;]*)/), k = 'consentd:tcf:' + location.host;
  var old = m[1].slice(0, 22) + B.charAt(B.indexOf(m[1].charAt(22)) - 1) + m[1].slice(23);
  var memo = JSON.parse(localStorage.getItem(k));
  memo.str = old;
  localStorage.setItem(k, JSON.stringify(memo));
  document.cookie = 'euconsent-v2=' + old + ';path=/;max-age=86400;samesite=lax';
})()`, nil)
	navigate(t, ctx, page)
	waitFor(t, ctx, layer)
}
