package banner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/gpp"
)

// TestBrowserGPPStates is #45's browser test: for a visitor from each US state the law table
// gives a GPP section (core/regions.json gppSection; by the region header), on a site with GPP
// on, not MSPA-covered, the default approach (usnat and the state's section, the state's
// applying):
//   - without GPC: __gpp lists usnat and the state's section, which applies; the string
//     decodes with the IAB's own library (@iabgpp/cmpapi, and the tests' own decoder) to the
//     notices provided and nothing opted out, Gpc false where the section has the GPC
//     subsection; cmpDisplayStatus is visible while the banner shows; after the Do Not Sell or
//     Share control, sale and targeted advertising (and sharing) are opted out, the banner is
//     gone (cmpDisplayStatus hidden) and the consent record keeps the string;
//   - with Sec-GPC: 1 and no click: opted out, Gpc true, recorded with action gpc.
func TestBrowserGPPStates(t *testing.T) {
	t.Parallel()
	browser(t)
	iab := gppDecoder(t)
	edge := regionalEdge(t, nil)
	base := edge(nil)
	var created struct{ ID, ProjectKey string }
	mgmt(t, base, "POST", "/sites", map[string]any{"name": "Acme States GPP", "url": "https://acme.example"}, 201, &created)
	mgmt(t, base, "POST", "/sites/"+created.ID+"/services/import", map[string]any{"slug": "meta-pixel"}, 201, nil)
	mgmt(t, base, "PATCH", "/sites/"+created.ID+"/banner", map[string]any{
		"regionRules": []map[string]any{{"regions": []string{"US"}, "defaultBehavior": "opt_out"}},
		"gpp":         map[string]any{"enabled": true},
	}, 200, nil)
	type rec struct {
		Action, Region, GPPString string
		GPCSignal, DoNotSell      bool
	}
	recordOf := func(region, action string) rec {
		t.Helper()
		var pg struct{ Records []rec }
		var found rec
		waitUntil(t, func() bool {
			mgmt(t, base, "GET", "/sites/"+created.ID+"/consent-records?limit=100", nil, 200, &pg)
			for _, r := range pg.Records {
				if r.Region == region && r.Action == action {
					found = r
					return true
				}
			}
			return false
		})
		return found
	}
	open := func(ctx context.Context, name, region string) {
		api := edge(map[string]string{countryHeader: "US", regionHeader: strings.TrimPrefix(region, "US-")})
		s := newSite(t, api)
		navigate(t, ctx, s.raw(name, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme</title>
<script src="`+api+core.PublicPath(created.ProjectKey, core.PublicLoader)+`"></script>
`+gppProbe+`</head><body><main><h1>Today's news</h1></main></body></html>`))
		waitFor(t, ctx, `window.__gppPing().signalStatus === 'ready'`)
	}
	// check holds a decoded string to the state's section and usnat, opted out or not.
	check := func(what string, d gppDecoded, id int, api string, optOut int, gpc bool) {
		t.Helper()
		if len(d.IDs) != 2 || d.IDs[0] != gpp.GPPSectionUSNat || d.IDs[1] != id {
			t.Errorf("%s: sections %v, want usnat and %s (7, %d)", what, d.IDs, api, id)
			return
		}
		for _, name := range []string{"usnat", api} {
			sec := d.Sections[name]
			if sec == nil {
				t.Errorf("%s: no %s section decoded: %v", what, name, d.Sections)
				continue
			}
			n := 0
			for f, v := range sec {
				switch {
				case f == "SaleOptOut" || f == "SharingOptOut" || f == "TargetedAdvertisingOptOut":
					n++
					if v != float64(optOut) {
						t.Errorf("%s: %s.%s = %v, want %d", what, name, f, v, optOut)
					}
				case f == "SaleOptOutNotice" || f == "TargetedAdvertisingOptOutNotice" || f == "SharingNotice" || f == "ProcessingNotice":
					if v != float64(1) {
						t.Errorf("%s: %s.%s = %v, want 1 (provided)", what, name, f, v)
					}
				case f == "MspaCoveredTransaction":
					if v != float64(2) {
						t.Errorf("%s: %s.%s = %v, want 2 (not covered)", what, name, f, v)
					}
				}
			}
			if n < 2 {
				t.Errorf("%s: %s has %d opt-out fields: %v", what, name, n, sec)
			}
			hasGPC := gpp.GppUSSection(gpp.GPPSectionUSNat, gpp.GPPSettings{}).GPCSegment
			if name == api {
				hasGPC = gpp.GppUSSection(id, gpp.GPPSettings{}).GPCSegment
			}
			if g, ok := sec["Gpc"]; hasGPC && g != gpc {
				t.Errorf("%s: %s.Gpc = %v (present %v), want %v", what, name, g, ok, gpc)
			}
		}
	}
	ping := func(ctx context.Context) (p struct {
		GPPString          string `json:"gppString"`
		ApplicableSections []int  `json:"applicableSections"`
		SectionList        []int  `json:"sectionList"`
		CmpDisplayStatus   string `json:"cmpDisplayStatus"`
	}) {
		eval(t, ctx, `window.__gppPing()`, &p)
		return p
	}
	n := 0
	for _, law := range core.USStateLaws() {
		id, ok := gpp.StateSection(law.Region)
		if !ok {
			continue
		}
		n++
		api := gpp.GPPSectionAPI(id)
		t.Run(law.Region, func(t *testing.T) {
			ctx := tab(t)
			open(ctx, "s-"+api, law.Region)
			waitFor(t, ctx, bannerShown)
			p := ping(ctx)
			if len(p.ApplicableSections) != 1 || p.ApplicableSections[0] != id || len(p.SectionList) != 2 || p.SectionList[1] != id {
				t.Fatalf("%s: ping %+v, want %s (%d) applying", law.Region, p, api, id)
			}
			if p.CmpDisplayStatus != "visible" {
				t.Errorf("%s: cmpDisplayStatus %q while the banner shows", law.Region, p.CmpDisplayStatus)
			}
			check(law.Region+" before a choice (@iabgpp/cmpapi)", iab.decode(t, p.GPPString), id, api, 2, false)
			check(law.Region+" before a choice (Go decoder)", goGPPDecode(t, p.GPPString), id, api, 2, false)
			eval(t, ctx, `window.__cd('[data-action=do-not-sell]').click()`, nil)
			waitFor(t, ctx, `window.__gppPing().gppString !== `+jsString(p.GPPString)+` && window.__gppPing().signalStatus === 'ready'`)
			after := ping(ctx)
			check(law.Region+" after Do Not Sell (@iabgpp/cmpapi)", iab.decode(t, after.GPPString), id, api, 1, false)
			check(law.Region+" after Do Not Sell (Go decoder)", goGPPDecode(t, after.GPPString), id, api, 1, false)
			if after.CmpDisplayStatus != "hidden" {
				t.Errorf("%s: cmpDisplayStatus %q after the choice", law.Region, after.CmpDisplayStatus)
			}
			var events []string
			eval(t, ctx, `window.__g.events.filter(function (e) { return e.name === 'cmpDisplayStatus'; }).map(function (e) { return e.data; })`, &events)
			if got := strings.Join(events, " "); got != "visible hidden" {
				t.Errorf("%s: cmpDisplayStatus events %q, want the banner's showing and going: visible hidden", law.Region, got)
			}
			if r := recordOf(law.Region, "custom"); r.GPPString != after.GPPString || !r.DoNotSell {
				t.Errorf("%s: record %+v, want the GPP string %q", law.Region, r, after.GPPString)
			}
		})
		t.Run(law.Region+" with GPC", func(t *testing.T) {
			ctx := tab(t, gpcInit)
			err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Sec-GPC": "1"}})
				return err
			}))
			if err != nil {
				t.Fatal(err)
			}
			open(ctx, "g-"+api, law.Region)
			s := ping(ctx).GPPString
			check(law.Region+" Sec-GPC: 1 (@iabgpp/cmpapi)", iab.decode(t, s), id, api, 1, true)
			check(law.Region+" Sec-GPC: 1 (Go decoder)", goGPPDecode(t, s), id, api, 1, true)
			if r := recordOf(law.Region, "gpc"); r.GPPString != s || !r.GPCSignal || !r.DoNotSell {
				t.Errorf("%s: record %+v, want the GPP string %q", law.Region, r, s)
			}
		})
	}
	if n != 20 {
		t.Errorf("%d states with a GPP section in the law table, want the IAB's 20", n)
	}
}
