package banner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/browser/browsertest"
)

// gppProbe is the page's first own script after the loader, as an ad script would be: it calls
// __gpp at once (it must exist and answer synchronously), registers an event listener, and
// collects what a cross-origin ad frame posts up.
const gppProbe = `<script nonce="` + nonce + `">
window.__g = {events: [], frame: []};
window.__g.exists = typeof window.__gpp === 'function';
__gpp('ping', function (p) { window.__g.ping = p; });
__gpp('addEventListener', function (e, ok) { if (ok) window.__g.events.push({name: e.eventName, data: e.data}); });
window.addEventListener('message', function (e) { if (e.data && e.data.gppframe) window.__g.frame.push(e.data.gppframe); });
window.__gppPing = function () { var r = null; __gpp('ping', function (p) { r = p; }); return r; };
</script>`

// gppAdFrame is an ad on another origin: it finds the CMP through the __gppLocator frame, as
// the GPP CMP API's sample iframe code does, and posts the GPP string of each 'ready' up.
const gppAdFrame = `<!doctype html><html lang="en"><title>Ad</title><p>Advertisement</p><script>
(function () {
  var tries = 0;
  function find() {
    var f = window;
    while (f) {
      try { if (f.frames['__gppLocator']) return f; } catch (e) {}
      if (f === window.top) break;
      f = f.parent;
    }
    return null;
  }
  (function start() {
    var cmp = find();
    if (!cmp) { if (++tries < 200) setTimeout(start, 10); else parent.postMessage({gppframe: 'no CMP'}, '*'); return; }
    window.addEventListener('message', function (e) {
      var r = e.data && e.data.__gppReturn;
      if (r && r.callId === 'ad-1' && r.returnValue && r.returnValue.pingData && r.returnValue.pingData.signalStatus === 'ready')
        parent.postMessage({gppframe: r.returnValue.pingData.gppString}, '*');
    });
    cmp.postMessage({__gppCall: {command: 'addEventListener', version: '1.1', callId: 'ad-1'}}, '*');
  })();
})();
</script></html>`

// gppDecoded is what @iabgpp/cmpapi reads from a GPP string: its section IDs and each section's
// fields (tcfeuv2 as its encoded string).
type gppDecoded struct {
	IDs      []int                     `json:"ids"`
	Sections map[string]map[string]any `json:"sections"`
	TCFEUv2  string                    `json:"tcfeuv2"`
	TCF      map[string]any            `json:"tcf"`
}

// gppDecodeScript decodes GPP strings with the IAB's own library, @iabgpp/cmpapi: one node
// process per test reads a string per line (as JSON) and answers each with a line (nodeLines).
const gppDecodeScript = `
const nm = process.argv[process.argv.length - 1];
const {GppModel} = require(require('path').join(nm, '@iabgpp', 'cmpapi'));
` + nodeLinesLoop + `serveLines(function (s) {
  const m = new GppModel(s);
  const out = {ids: m.getSectionIds(), sections: {}, tcfeuv2: ''};
  for (const api of ['usnat', 'usca', 'usva', 'usco', 'usut', 'usct', 'usfl', 'usmt', 'usor', 'ustx', 'usde', 'usia', 'usne', 'usnh', 'usnj', 'ustn', 'usmn', 'usmd', 'usin', 'usky', 'usri']) if (m.hasSection(api)) out.sections[api] = m.getSection(api);
  if (m.hasSection('tcfeuv2')) { out.tcf = m.getSection('tcfeuv2'); out.tcfeuv2 = s.split('~')[1 + out.ids.indexOf(2)]; }
  return out;
});
`

// gppIAB decodes GPP strings with @iabgpp/cmpapi in one node process.
type gppIAB struct{ node *nodeLines }

// decode returns what @iabgpp/cmpapi reads from s; a string it cannot decode fails the test.
func (g gppIAB) decode(t *testing.T, s string) gppDecoded {
	t.Helper()
	var d gppDecoded
	g.node.call(t, "@iabgpp/cmpapi cannot decode", s, &d)
	return d
}

// The IAB's GPP library, from the npm registry, pinned.
var gppDecoderPackages = &nodePackages{
	what:     "the IAB's GPP library",
	packages: []string{"@iabgpp/cmpapi@3.2.0"},
	dir:      "node-iabgpp-cmpapi3.2.0",
	probes:   []string{"@iabgpp/cmpapi/package.json"},
}

// gppDecoder returns @iabgpp/cmpapi in a node process of the test's (see gppIAB).
func gppDecoder(t *testing.T) gppIAB {
	return gppIAB{startNodeLines(t, gppDecodeScript, gppDecoderPackages.path(t))}
}

// TestBrowserGPP is #30's browser test. A site with GPP on (MSPA-covered, opt-out mode), regional
// rules US opt_out and Europe opt_in, and the TCF on:
//   - a California visitor: __gpp answers ping at once, listing usnat and usca, usnat applying;
//     before any choice the GPP string decodes (@iabgpp/cmpapi in node, and the tests' own
//     decoder) to notices provided and not opted out; after the Do Not Sell or Share control,
//     to sale, sharing and targeted advertising opted out, Gpc false, and the consent record
//     keeps that string; an ad frame on another origin gets it through __gppLocator;
//   - a California visitor with Sec-GPC: 1 and no click: opted out, Gpc true, recorded;
//   - a visitor from Germany: after accept all, __gpp's tcfeuv2 section is the TC string
//     __tcfapi gives.
func TestBrowserGPP(t *testing.T) {
	t.Parallel()
	browser(t)
	iab := gppDecoder(t)
	edge := regionalEdge(t, func(c *app.Config) {
		c.TCFGVLFile = gvlFile
		c.TCFCMPID = testCMPID
		c.TCFCMPVersion = testCMPVersion
	})
	base := edge(nil)
	var created struct{ ID, ProjectKey string }
	mgmt(t, base, "POST", "/sites", map[string]any{"name": "Acme News GPP", "url": "https://acme.example"}, 201, &created)
	mgmt(t, base, "POST", "/sites/"+created.ID+"/services/import", map[string]any{"slug": "google-analytics"}, 201, nil)
	mgmt(t, base, "POST", "/sites/"+created.ID+"/services/import", map[string]any{"slug": "meta-pixel"}, 201, nil)
	mgmt(t, base, "PATCH", "/sites/"+created.ID+"/banner", map[string]any{
		"regionRules": []map[string]any{
			{"regions": []string{"EU", "EEA", "GB", "CH"}, "defaultBehavior": "opt_in"},
			{"regions": []string{"US"}, "defaultBehavior": "opt_out"},
			{"regions": []string{"*"}, "defaultBehavior": "no_banner"},
		},
		"tcf": map[string]any{"enabled": true, "vendorIds": tcfVendors, "publisherCountryCode": "US"},
		"gpp": map[string]any{"enabled": true, "mspaCoveredTransaction": true, "mspaMode": "opt-out"},
	}, 200, nil)
	type rec struct {
		ID, Action, Region, GPPString, TCString string
		GPCSignal, DoNotSell                    bool
	}
	records := func(n int) []rec {
		t.Helper()
		var pg struct{ Records []rec }
		waitUntil(t, func() bool {
			mgmt(t, base, "GET", "/sites/"+created.ID+"/consent-records?limit=100", nil, 200, &pg)
			return len(pg.Records) >= n
		})
		return pg.Records // newest first
	}
	california := map[string]string{countryHeader: "US", regionHeader: "CA"}
	open := func(ctx context.Context, name string, hdr map[string]string) {
		api := edge(hdr)
		s := newSite(t, api)
		s.file("third:/gpp-ad.html", gppAdFrame)
		navigate(t, ctx, s.raw(name, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<script src="`+api+core.PublicPath(created.ProjectKey, core.PublicLoader)+`"></script>
`+gppProbe+`
<script src="/static/page.js"></script><title>Acme News</title></head><body><main><h1>Today's news</h1>
<iframe src="`+s.tracker()+`/gpp-ad.html" title="Advertisement" width="300" height="120"></iframe></main></body></html>`))
	}
	gppString := func(ctx context.Context) string {
		var s string
		eval(t, ctx, `window.__gppPing().gppString`, &s)
		return s
	}
	// usnat checks a decoded usnat (and usca) section against the opt-outs and Gpc expected.
	usnat := func(what string, d gppDecoded, optOut int, gpc bool) {
		t.Helper()
		if len(d.IDs) != 2 || d.IDs[0] != 7 || d.IDs[1] != 8 {
			t.Fatalf("%s: sections %v, want usnat and usca (7, 8)", what, d.IDs)
		}
		n := d.Sections["usnat"]
		for f, want := range map[string]float64{
			"Version": 2, "SharingNotice": 1, "SaleOptOutNotice": 1, "SharingOptOutNotice": 1, "TargetedAdvertisingOptOutNotice": 1,
			"SaleOptOut": float64(optOut), "SharingOptOut": float64(optOut), "TargetedAdvertisingOptOut": float64(optOut),
			"MspaCoveredTransaction": 1, "MspaOptOutOptionMode": 1, "MspaServiceProviderMode": 2,
		} {
			if n[f] != want {
				t.Errorf("%s: usnat %s = %v, want %v", what, f, n[f], want)
			}
		}
		if n["Gpc"] != gpc {
			t.Errorf("%s: usnat Gpc = %v, want %v", what, n["Gpc"], gpc)
		}
		c := d.Sections["usca"]
		if c["SaleOptOut"] != float64(optOut) || c["SharingOptOut"] != float64(optOut) || c["SaleOptOutNotice"] != float64(1) || c["Gpc"] != gpc {
			t.Errorf("%s: usca %v", what, c)
		}
	}

	t.Run("California", func(t *testing.T) {
		ctx := tab(t)
		open(ctx, "ca", california)
		var g struct {
			Exists bool
			Ping   struct {
				GppVersion         string         `json:"gppVersion"`
				CmpStatus          string         `json:"cmpStatus"`
				CmpID              int            `json:"cmpId"`
				SupportedAPIs      []string       `json:"supportedAPIs"`
				ApplicableSections []int          `json:"applicableSections"`
				SectionList        []int          `json:"sectionList"`
				ParsedSections     map[string]any `json:"parsedSections"`
			}
		}
		eval(t, ctx, `window.__g`, &g)
		if !g.Exists || g.Ping.GppVersion != "1.1" || g.Ping.CmpStatus != "loaded" || g.Ping.CmpID != testCMPID ||
			strings.Join(g.Ping.SupportedAPIs, ",") != "7:usnat,8:usca" || len(g.Ping.ApplicableSections) != 1 || g.Ping.ApplicableSections[0] != 7 {
			t.Fatalf("ping at once: %+v", g)
		}
		// The runtime applied the opt-out regime's initial state in the loader, before this page's
		// first script: the signal is ready at once.
		waitFor(t, ctx, `window.__gppPing().signalStatus === 'ready'`)
		var ready struct {
			SectionList []int `json:"sectionList"`
		}
		eval(t, ctx, `window.__gppPing()`, &ready)
		if len(ready.SectionList) != 2 || ready.SectionList[0] != 7 || ready.SectionList[1] != 8 {
			t.Errorf("sectionList once ready: %v", ready.SectionList)
		}
		before := gppString(ctx)
		usnat("before any choice (@iabgpp/cmpapi)", iab.decode(t, before), 2, false)
		usnat("before any choice (Go decoder)", goGPPDecode(t, before), 2, false)
		var field any
		eval(t, ctx, `(function () { var r; __gpp('getField', function (v) { r = v; }, 'usnat.SaleOptOut'); return r; })()`, &field)
		if field != float64(2) {
			t.Errorf("getField usnat.SaleOptOut before a choice: %v", field)
		}
		// The ad frame on another origin reads the same string through __gppLocator.
		waitFor(t, ctx, `window.__g.frame.length >= 1`)
		var frame []string
		eval(t, ctx, `window.__g.frame`, &frame)
		if frame[0] != before {
			t.Errorf("the cross-origin ad frame got %q, the page %q", frame[0], before)
		}

		waitFor(t, ctx, bannerShown)
		eval(t, ctx, `window.__cd('[data-action=do-not-sell]').click()`, nil)
		waitFor(t, ctx, `window.__gppPing().gppString !== `+jsString(before)+` && window.__gppPing().signalStatus === 'ready'`)
		after := gppString(ctx)
		usnat("after Do Not Sell (@iabgpp/cmpapi)", iab.decode(t, after), 1, false)
		usnat("after Do Not Sell (Go decoder)", goGPPDecode(t, after), 1, false)
		var names []string
		eval(t, ctx, `window.__g.events.map(function (e) { return e.name + ':' + e.data; })`, &names)
		if got := strings.Join(names, " "); !strings.Contains(got, "signalStatus:not ready sectionChange:usnat sectionChange:usca signalStatus:ready") {
			t.Errorf("events %q, want not ready, the sections' changes, then ready", got)
		}
		r := records(1)[0]
		if r.GPPString != after || !r.DoNotSell || r.Region != "US-CA" {
			t.Errorf("record %+v, want the GPP string %q", r, after)
		}
		waitFor(t, ctx, `window.__g.frame.length >= 2`)
		eval(t, ctx, `window.__g.frame`, &frame)
		if frame[len(frame)-1] != after {
			t.Errorf("the ad frame got %q after the opt-out, the page %q", frame[len(frame)-1], after)
		}
	})

	t.Run("Japan", func(t *testing.T) {
		ctx := tab(t)
		open(ctx, "jp", map[string]string{countryHeader: "JP"})
		var g struct{ Exists bool }
		eval(t, ctx, `({exists: typeof window.__gpp === 'function' || !!document.querySelector('iframe[name=__gppLocator]')})`, &g)
		if g.Exists {
			t.Error("a visitor no GPP section applies to got __gpp")
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
		n := len(records(0))
		open(ctx, "ca-gpc", california)
		waitFor(t, ctx, `window.__gppPing().signalStatus === 'ready'`)
		s := gppString(ctx)
		usnat("Sec-GPC: 1 (@iabgpp/cmpapi)", iab.decode(t, s), 1, true)
		usnat("Sec-GPC: 1 (Go decoder)", goGPPDecode(t, s), 1, true)
		r := records(n + 1)[0]
		if r.GPPString != s || r.Action != "gpc" || !r.GPCSignal {
			t.Errorf("record %+v, want the GPP string %q", r, s)
		}
	})

	t.Run("Germany with TCF", func(t *testing.T) {
		ctx := tab(t)
		open(ctx, "de", map[string]string{countryHeader: "DE"})
		var ping struct {
			SupportedAPIs      []string `json:"supportedAPIs"`
			ApplicableSections []int    `json:"applicableSections"`
			SignalStatus       string   `json:"signalStatus"`
		}
		eval(t, ctx, `window.__g.ping`, &ping)
		if strings.Join(ping.SupportedAPIs, ",") != "2:tcfeuv2" || len(ping.ApplicableSections) != 1 || ping.ApplicableSections[0] != 2 || ping.SignalStatus != "not ready" {
			t.Fatalf("ping before a TC string: %+v", ping)
		}
		waitFor(t, ctx, `(function () { var h = document.querySelector('consentd-tcf'); return h && h.shadowRoot.querySelector('.l1 [data-action=accept]'); })()`)
		eval(t, ctx, `window.__tcfTC = null; __tcfapi('addEventListener', 2, function (d, ok) { if (ok && d.eventStatus === 'useractioncomplete') window.__tcfTC = d.tcString; })`, nil)
		eval(t, ctx, `document.querySelector('consentd-tcf').shadowRoot.querySelector('.l1 [data-action=accept]').click()`, nil)
		waitFor(t, ctx, `!!window.__tcfTC && window.__gppPing().signalStatus === 'ready'`)
		var tc string
		eval(t, ctx, `window.__tcfTC`, &tc)
		s := gppString(ctx)
		d := iab.decode(t, s)
		if len(d.IDs) != 1 || d.IDs[0] != 2 || d.TCFEUv2 != tc || d.TCF["CmpId"] != float64(testCMPID) {
			t.Errorf("GPP string %q decodes to %+v; want tcfeuv2 = the TC string %q", s, d, tc)
		}
		if got := goGPPDecode(t, s); len(got.IDs) != 1 || got.TCFEUv2 != tc {
			t.Errorf("Go decoder: %+v", got)
		}
		var has bool
		eval(t, ctx, `(function () { var r; __gpp('hasSection', function (v) { r = v; }, 'tcfeuv2'); return r; })()`, &has)
		if !has {
			t.Error("hasSection tcfeuv2 is false")
		}
		var rs []rec
		waitUntil(t, func() bool {
			rs = records(1)
			for _, r := range rs {
				if r.TCString == tc {
					return r.GPPString == s
				}
			}
			return false
		})
	})
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string { return browsertest.JSString(s) }

// waitUntil polls cond until it holds, failing after patience.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(30 * time.Millisecond)
	}
}
