package banner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/adapters/tcstring"
	"github.com/consentd/consentd/core"
)

// The TCF tests' deployment: a CMP ID and version for tests only (an operator registers their
// own with IAB Europe: docs/tcf.md).
const (
	testCMPID      = 4095
	testCMPVersion = 7
)

// tcfVendors are the test site's vendors from the fixture GVL (v17): Google Advertising Products
// (755), Index Exchange (10), TripleLift (28), Sirdata (53) and Outbrain (164); between them
// they declare all eleven purposes, some under legitimate interest.
var tcfVendors = []int{10, 28, 53, 164, 755}

// tcfAtps are Google Additional Consent providers the test site picks.
var tcfAtps = []int{39, 89}

// newTCFEnv is a site with the TCF on, visited from Germany.
func newTCFEnv(t testing.TB) *env {
	t.Helper()
	e := newEnv(t, "DE")
	e.patchBanner(t, map[string]any{"tcf": map[string]any{"enabled": true, "vendorIds": tcfVendors,
		"publisherCountryCode": "FR", "specialFeatures": []int{1}, "googleAtpIds": tcfAtps}})
	return e
}

// tcfProbe is the page's first own script, right after the setup snippet, as an ad script
// would be: it calls __tcfapi at once (ping must answer synchronously, from the stub), registers
// an event listener, and collects what a cross-origin ad frame posts up.
const tcfProbe = `<script nonce="` + nonce + `">
window.__tcf = {events: [], frame: []};
__tcfapi('ping', 2, function (p) { window.__tcf.ping = p; });
window.__tcf.pingSync = !!window.__tcf.ping;
__tcfapi('addEventListener', 2, function (d, ok) {
  if (ok) window.__tcf.events.push({status: d.eventStatus, tc: d.tcString, ac: d.addtlConsent, listener: d.listenerId});
});
window.addEventListener('message', function (e) { if (e.data && e.data.adframe) window.__tcf.frame.push(e.data.adframe); });
window.__tcfPing = function () { var r = null; __tcfapi('ping', 2, function (p) { r = p; }); return r; };
window.__tcfData = function () { var r = null; __tcfapi('getTCData', 2, function (d, ok) { r = ok ? d : null; }); return r; };
window.__tcfUI = function (sel) { var h = document.querySelector('consentd-tcf'); return h && h.shadowRoot.querySelector(sel); };
</script>`

// adFrame is an ad on another origin: it finds the CMP through the __tcfapiLocator frame, as the
// CMP API's sample iframe script does, listens through postMessage, and posts each TC string
// of a user action up to the page.
const adFrame = `<!doctype html><html lang="en"><title>Ad</title><p>Advertisement</p><script>
(function () {
  var tries = 0;
  function find() {
    var f = window;
    while (f) {
      try { if (f.frames['__tcfapiLocator']) return f; } catch (e) {}
      if (f === window.top) break;
      f = f.parent;
    }
    return null;
  }
  (function start() {
    var cmp = find();
    if (!cmp) { if (++tries < 200) setTimeout(start, 10); else parent.postMessage({adframe: 'no CMP'}, '*'); return; }
    window.addEventListener('message', function (e) {
      var r = e.data && e.data.__tcfapiReturn;
      if (r && r.callId === 'ad-1' && r.success && r.returnValue.eventStatus === 'useractioncomplete') parent.postMessage({adframe: r.returnValue.tcString}, '*');
    });
    cmp.postMessage({__tcfapiCall: {command: 'addEventListener', version: 2, callId: 'ad-1'}}, '*');
  })();
})();
</script></html>`

// tcfPage registers the TCF test page: the snippet, the probe, and the ad frame.
func tcfPage(e *env, name string) string {
	e.site.file("third:/ad.html", adFrame)
	return e.page(name, "en", `<meta name="viewport" content="width=device-width, initial-scale=1">`+tcfProbe, `<iframe src="`+e.site.tracker()+`/ad.html" title="Advertisement" width="300" height="120"></iframe>`)
}

// lastDecision waits for the n-th useractioncomplete event and returns its TC and AC strings.
func lastDecision(t *testing.T, ctx context.Context, n int) (tc, ac string) {
	t.Helper()
	cond := fmt.Sprintf(`window.__tcf.events.filter(function (e) { return e.status === 'useractioncomplete'; }).length >= %d`, n)
	waitFor(t, ctx, cond)
	var ev []struct{ Status, TC, AC string }
	eval(t, ctx, `window.__tcf.events.filter(function (e) { return e.status === 'useractioncomplete'; }).map(function (e) { return {status: e.status, tc: e.tc, ac: e.ac || ''}; })`, &ev)
	return ev[n-1].TC, ev[n-1].AC
}

// TestBrowserTCF is #29's browser test: a TCF site with five vendors visited from Germany.
// ping answers at once, from the stub, then with cmpLoaded true; accept all, reject all (in the
// first layer, and through window.consentd) give TC strings that the IAB's own decoder
// (@iabtechlabtcf/core, in node) and the tests' independent decoder read as what the visitor
// chose; a cross-origin ad frame gets the same string through __tcfapiLocator; a reload loads
// the stored string without asking again.
func TestBrowserTCF(t *testing.T) {
	t.Parallel()
	dec := tcfDecoder(t)
	e := newTCFEnv(t)
	url := tcfPage(e, "tcf")
	ctx := tab(t)
	navigate(t, ctx, url)

	var ping struct {
		Sync bool `json:"pingSync"`
		Ping struct {
			CmpLoaded   bool   `json:"cmpLoaded"`
			CmpStatus   string `json:"cmpStatus"`
			GdprApplies bool   `json:"gdprApplies"`
			APIVersion  string `json:"apiVersion"`
		} `json:"ping"`
	}
	eval(t, ctx, `window.__tcf`, &ping)
	if !ping.Sync || ping.Ping.CmpLoaded || ping.Ping.CmpStatus != "stub" || !ping.Ping.GdprApplies || ping.Ping.APIVersion != "2.3" {
		t.Fatalf("ping before the module loaded: %+v", ping)
	}
	waitFor(t, ctx, `window.__tcfPing().cmpLoaded && window.__tcfPing().cmpStatus === 'loaded'`)
	var loaded map[string]any
	eval(t, ctx, `window.__tcfPing()`, &loaded)
	if loaded["cmpId"] != float64(testCMPID) || loaded["cmpVersion"] != float64(testCMPVersion) || loaded["gvlVersion"] != float64(17) || loaded["displayStatus"] != "visible" {
		t.Errorf("ping once loaded: %v", loaded)
	}
	waitFor(t, ctx, `window.__tcfUI('.l1') && window.__tcf.events.some(function (e) { return e.status === 'cmpuishown'; })`)
	// consentd's own banner stays away: the TCF layers ask.
	if eval1(t, ctx, `!!window.__cd('[data-template]')`) {
		t.Error("consentd's banner is shown besides the TCF first layer")
	}

	// Accept all, in the first layer.
	eval(t, ctx, `window.__tcfUI('.l1 [data-action=accept]').click()`, nil)
	tc, ac := lastDecision(t, ctx, 1)
	checkTC(t, dec, "accept all", tc, true)
	if ac != "2~39.89~dv." {
		t.Errorf("accept all: addtlConsent %q, want 2~39.89~dv.", ac)
	}
	if q, _ := json.Marshal("euconsent-v2=" + tc); !eval1(t, ctx, `document.cookie.split('; ').indexOf(`+string(q)+`) >= 0`) {
		t.Error("the TC string is not in the euconsent-v2 cookie")
	}
	// The ad frame on another origin got the same string through __tcfapiLocator.
	waitFor(t, ctx, `window.__tcf.frame.length >= 1`)
	var frame []string
	eval(t, ctx, `window.__tcf.frame`, &frame)
	if frame[0] != tc {
		t.Errorf("the cross-origin ad frame got %q, the page %q", frame[0], tc)
	}
	var data map[string]any
	eval(t, ctx, `window.__tcfData()`, &data)
	if data["tcString"] != tc || data["addtlConsent"] != ac || data["eventStatus"] != "useractioncomplete" {
		t.Errorf("getTCData: %v", data)
	}
	if !eval1(t, ctx, `window.consentd.getConsent().categories.marketing === true && window.consentd.getConsent().action === 'accept_all'`) {
		t.Error("consentd's categories do not follow accept all")
	}
	// consentd records the decision with its strings and the GVL version.
	if r := e.waitRecords(t, 1)[0]; r.Action != "accept_all" || r.TCString != tc || r.ACString != ac || r.GVLVersion != 17 ||
		cats(r.CategoriesConsented) != "map[essential:true marketing:true statistics:true]" {
		t.Errorf("the record of accept all: %+v", r)
	}

	// A reload: the stored TC string loads (tcloaded), nothing is asked again.
	navigate(t, ctx, url)
	waitFor(t, ctx, `window.__tcf.events.some(function (e) { return e.status === 'tcloaded'; })`)
	settle()
	var reloaded []struct{ Status, TC string }
	eval(t, ctx, `window.__tcf.events`, &reloaded)
	if reloaded[0].TC != tc || eval1(t, ctx, `!!window.__tcfUI('.l1')`) || window1(t, ctx, `window.__tcfPing().displayStatus`) != "disabled" {
		t.Errorf("after a reload: events %+v, first layer shown %v", reloaded, eval1(t, ctx, `!!window.__tcfUI('.l1')`))
	}

	// The visitor brings the layers back (consentd.showPreferences(), as the reopen button does)
	// and changes their mind in the second layer.
	eval(t, ctx, `window.consentd.showPreferences()`, nil)
	waitFor(t, ctx, `window.__tcfUI('dialog.l2[open]') && window.__tcf.events.some(function (e) { return e.status === 'cmpuishown'; })`)
	eval(t, ctx, `window.__tcfUI('dialog.l2 [data-action=reject]').click()`, nil)
	tc, _ = lastDecision(t, ctx, 1)
	checkTC(t, dec, "reject all in the second layer, brought back", tc, false)

	// Reject all, in a fresh visitor's first layer.
	ctx = tab(t)
	navigate(t, ctx, url)
	waitFor(t, ctx, `window.__tcfUI('.l1 [data-action=reject]')`)
	eval(t, ctx, `window.__tcfUI('.l1 [data-action=reject]').click()`, nil)
	tc, ac = lastDecision(t, ctx, 1)
	checkTC(t, dec, "reject all", tc, false)
	if ac != "2~~dv.39.89" {
		t.Errorf("reject all: addtlConsent %q, want 2~~dv.39.89", ac)
	}
	waitFor(t, ctx, `window.__tcf.frame.length >= 1`)
	eval(t, ctx, `window.__tcf.frame`, &frame)
	if frame[0] != tc {
		t.Errorf("reject all: the ad frame got %q, the page %q", frame[0], tc)
	}

	// Both through the page API, which drives the TCF too.
	eval(t, ctx, `window.consentd.acceptAll()`, nil)
	tc, _ = lastDecision(t, ctx, 2)
	checkTC(t, dec, "consentd.acceptAll()", tc, true)
	eval(t, ctx, `window.consentd.rejectAll()`, nil)
	tc, _ = lastDecision(t, ctx, 3)
	checkTC(t, dec, "consentd.rejectAll()", tc, false)
	if !eval1(t, ctx, `window.consentd.getConsent().categories.marketing === false && window.consentd.getConsent().action === 'reject_all'`) {
		t.Error("consentd's categories do not follow rejectAll()")
	}
	// Every decision is recorded with the string the page got: accept all, reject all in the
	// second layer (first visitor), reject all, acceptAll(), rejectAll() (second visitor).
	recs := e.waitRecords(t, 5)
	if r := recs[len(recs)-1]; r.Action != "reject_all" || r.TCString != tc || r.GVLVersion != 17 ||
		cats(r.CategoriesConsented) != "map[essential:true marketing:false statistics:false]" {
		t.Errorf("the record of rejectAll(): %+v", r)
	}
	noViolations(t, ctx)
}

// TestBrowserTCFLayers: the TCF first and second layers pass axe-core on desktop and phone, and
// are captured for a human look; a choice saved in the second layer is encoded as made.
func TestBrowserTCFLayers(t *testing.T) {
	t.Parallel()
	e := newTCFEnv(t)
	url := tcfPage(e, "tcf-layers")
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
		axeCheck(t, ctx, "the TCF first layer ("+device.name+")", "consentd-tcf")
		screenshot(t, ctx, "tcf-first-layer-"+device.name)
		eval(t, ctx, `window.__tcfUI('.l1 [data-action=manage]').click()`, nil)
		waitFor(t, ctx, `window.__tcfUI('dialog.l2[open]') && !window.__tcfUI('.l1')`)
		eval(t, ctx, `window.__tcfUI('#tcf-sv').parentNode.querySelector('.ro details').open = true`, nil)
		axeCheck(t, ctx, "the TCF second layer ("+device.name+")", "consentd-tcf")
		screenshot(t, ctx, "tcf-second-layer-"+device.name)
		eval(t, ctx, `window.__tcfUI('#tcf-sv').scrollIntoView()`, nil)
		screenshot(t, ctx, "tcf-second-layer-vendors-"+device.name)
		if device.mobile {
			continue
		}
		// Purposes 1 and 3 consented, vendor 755 consented, nothing else.
		eval(t, ctx, `(function () {
  var r = document.querySelector('consentd-tcf').shadowRoot;
  r.querySelectorAll('input[data-key]').forEach(function (i) { i.checked = false; });
  ['p1', 'p3', 'v755'].forEach(function (k) { r.querySelector('[data-key="' + k + '"]').checked = true; });
  r.querySelector('[data-action=save]').click();
})()`, nil)
		tc, _ := lastDecision(t, ctx, 1)
		m, err := decodeTC(tc)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(m.Purposes, []int{1, 3}) || !slices.Equal(m.Vendors, []int{755}) || len(m.PurposesLI) != 0 || len(m.VendorsLI) != 0 ||
			!slices.Equal(m.Disclosed, tcfVendors) || m.ConsentScreen != 2 {
			t.Errorf("saved choice decoded: %+v", m)
		}
		if !eval1(t, ctx, `window.consentd.getConsent().action === 'custom' && window.consentd.getConsent().categories.marketing === false`) {
			t.Error("consentd's categories do not follow the saved choice")
		}
		noViolations(t, ctx)
	}
}

// checkTC decodes tc with the IAB's decoder and with the tests' own, and checks what the
// visitor chose: every purpose and the five vendors consented (all), or none (!all), the five
// vendors disclosed, the deployment's CMP, GVL 17, service-specific.
func checkTC(t *testing.T, dec tcfIAB, what, tc string, all bool) {
	t.Helper()
	iab := dec.decode(t, tc)
	own, err := decodeTC(tc)
	if err != nil {
		t.Fatalf("%s: %q: %v", what, tc, err)
	}
	lr, err := tcstring.Decoder{}.DecodeTCString(tc)
	if err != nil {
		t.Fatalf("%s: LiveRamp/iabconsent: %q: %v", what, tc, err)
	}
	purposes, vendors, sf := []int{}, []int{}, []int{}
	if all {
		purposes, vendors, sf = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, tcfVendors, []int{1}
	}
	for _, d := range []struct {
		by string
		m  tcDecoded
	}{{"@iabtechlabtcf/core", iab}, {"the Go decoder", tcDecoded{
		CmpID: own.CMPID, CmpVersion: own.CMPVersion, VendorListVersion: own.VendorListVersion, IsServiceSpecific: own.IsServiceSpecific,
		Purposes: nz(own.Purposes), PurposesLI: nz(own.PurposesLI), Vendors: nz(own.Vendors), Disclosed: nz(own.Disclosed),
		SpecialFeatures: nz(own.SpecialFeatures), PublisherCC: own.PublisherCC,
	}}, {"LiveRamp/iabconsent (adapters/tcstring)", tcDecoded{
		CmpID: lr.CMPID, CmpVersion: lr.CMPVersion, VendorListVersion: lr.VendorListVersion, IsServiceSpecific: lr.IsServiceSpecific,
		Purposes: nz(lr.PurposesConsent), PurposesLI: nz(lr.PurposesLI), Vendors: nz(lr.VendorsConsent), Disclosed: nz(lr.VendorsDisclosed),
		SpecialFeatures: nz(lr.SpecialFeatures), PublisherCC: lr.PublisherCC,
	}}} {
		m := d.m
		if m.CmpID != testCMPID || m.CmpVersion != testCMPVersion || m.VendorListVersion != 17 || !m.IsServiceSpecific || m.PublisherCC != "FR" {
			t.Errorf("%s, read by %s: CMP %d v%d, GVL %d, service-specific %v, publisher %s", what, d.by, m.CmpID, m.CmpVersion, m.VendorListVersion, m.IsServiceSpecific, m.PublisherCC)
		}
		if !slices.Equal(m.Purposes, purposes) || !slices.Equal(m.Vendors, vendors) || !slices.Equal(m.SpecialFeatures, sf) {
			t.Errorf("%s, read by %s: purposes %v, vendors %v, special features %v", what, d.by, m.Purposes, m.Vendors, m.SpecialFeatures)
		}
		if !slices.Equal(m.Disclosed, tcfVendors) {
			t.Errorf("%s, read by %s: disclosed vendors %v, want %v", what, d.by, m.Disclosed, tcfVendors)
		}
		for _, p := range m.PurposesLI {
			if p == 1 || (p >= 3 && p <= 6) {
				t.Errorf("%s, read by %s: legitimate interest for purpose %d", what, d.by, p)
			}
		}
	}
	if !own.HasPublisher || !slices.Equal(nz(own.PubPurposes), purposes) {
		t.Errorf("%s: publisher TC segment %v %v", what, own.HasPublisher, own.PubPurposes)
	}
}

func nz(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// tcDecoded is what checkTC compares of a decoded TC string.
type tcDecoded struct {
	CmpID             int    `json:"cmpId"`
	CmpVersion        int    `json:"cmpVersion"`
	VendorListVersion int    `json:"vendorListVersion"`
	IsServiceSpecific bool   `json:"isServiceSpecific"`
	PublisherCC       string `json:"publisherCC"`
	Purposes          []int  `json:"purposes"`
	PurposesLI        []int  `json:"purposesLI"`
	Vendors           []int  `json:"vendors"`
	Disclosed         []int  `json:"disclosed"`
	SpecialFeatures   []int  `json:"specialFeatures"`
}

// iabDecodeScript decodes TC strings with @iabtechlabtcf/core and answers what checkTC
// compares: one node process per test reads a string per line (as JSON; see nodeLines).
const iabDecodeScript = `
const nm = process.argv[process.argv.length - 1];
const {TCString} = require(require('path').join(nm, '@iabtechlabtcf', 'core'));
const ids = (v) => { const o = []; v.forEach((b, i) => { if (b) o.push(i); }); return o.sort((a, b) => a - b); };
` + nodeLinesLoop + `serveLines(function (tc) {
  const m = TCString.decode(tc);
  return {cmpId: m.cmpId, cmpVersion: m.cmpVersion, vendorListVersion: m.vendorListVersion,
    isServiceSpecific: m.isServiceSpecific, publisherCC: m.publisherCountryCode, purposes: ids(m.purposeConsents),
    purposesLI: ids(m.purposeLegitimateInterests), vendors: ids(m.vendorConsents), disclosed: ids(m.vendorsDisclosed),
    specialFeatures: ids(m.specialFeatureOptins)};
});
`

// tcfIAB decodes TC strings with @iabtechlabtcf/core in one node process.
type tcfIAB struct{ node *nodeLines }

// decode returns what @iabtechlabtcf/core reads from tc; a string it cannot decode fails the
// test.
func (d tcfIAB) decode(t *testing.T, tc string) tcDecoded {
	t.Helper()
	var m tcDecoded
	d.node.call(t, "@iabtechlabtcf/core cannot decode", tc, &m)
	return m
}

// The IAB's decoder, from the npm registry, pinned.
var tcfDecoderPackages = &nodePackages{
	what:     "the IAB's TC string decoder",
	packages: []string{"@iabtechlabtcf/core@1.5.21"},
	dir:      "node-iabtechlabtcf-core1.5.21",
	probes:   []string{"@iabtechlabtcf/core/package.json"},
}

// tcfDecoder returns the IAB's decoder in a node process of the test's (see tcfIAB).
func tcfDecoder(t *testing.T) tcfIAB {
	return tcfIAB{startNodeLines(t, iabDecodeScript, tcfDecoderPackages.path(t))}
}

// eval1 evaluates a boolean expression in the tab.
func eval1(t *testing.T, ctx context.Context, expr string) bool {
	t.Helper()
	var b bool
	eval(t, ctx, "!!("+expr+")", &b)
	return b
}

// window1 evaluates a string expression in the tab.
func window1(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	var s string
	eval(t, ctx, "String("+expr+")", &s)
	return s
}

// TestBrowserTCFOutage: while the site's TCF configuration cannot be fetched, the stub keeps
// answering (and queueing); after the module's retries it reports cmpStatus 'error' and refuses
// the queued calls, so vendors assume no consent; consentd shows no banner of its own and
// allows nothing but what is required.
func TestBrowserTCFOutage(t *testing.T) {
	t.Parallel()
	e := newTCFEnv(t)
	srv := failingEdge(t, e, "DE", func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/"+core.PublicTCFConfig) })
	s := newSite(t, srv.URL)
	loader := `<script src="` + srv.URL + core.PublicPath(e.pk, core.PublicLoader) + `"></script>`
	ctx := tab(t)
	navigate(t, ctx, s.page("tcf-outage", "en", loader, tcfProbe, ""))
	if got := window1(t, ctx, `window.__tcfPing().cmpStatus`); got != "stub" {
		t.Errorf("while the configuration is being fetched, cmpStatus %q", got)
	}
	waitFor(t, ctx, `window.__tcfPing().cmpStatus === 'error'`)
	var listener struct{ Called, OK bool }
	eval(t, ctx, `(function () { var r = {called: false, ok: true}; __tcfapi('getTCData', 2, function (d, ok) { r.called = true; r.ok = ok; }); return r; })()`, &listener)
	if !listener.Called || listener.OK || eval1(t, ctx, `window.__tcf.events.length > 0`) {
		t.Errorf("in error: getTCData %+v, events %v", listener, eval1(t, ctx, `window.__tcf.events.length > 0`))
	}
	if eval1(t, ctx, `!!window.__cd('[data-template]') || window.consentd.getConsent().categories.marketing`) {
		t.Error("consentd's banner shown or marketing allowed while the TCF is in error")
	}
}
