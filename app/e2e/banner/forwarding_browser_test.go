package banner_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// The analytics libraries the forwarding test loads in the browser, from the npm registry,
// pinned: Segment's analytics.js 2.0 (@segment/analytics-next, its UMD build, window.AnalyticsNext)
// and RudderStack's JavaScript SDK v3 (@rudderstack/analytics-js, its bundled UMD build, which
// carries its plugins and so fetches nothing from RudderStack's CDN).
var analyticsPackages = &nodePackages{
	what:     "the Segment and RudderStack browser libraries",
	packages: []string{"@segment/analytics-next@1.84.3", "@rudderstack/analytics-js@3.34.1"},
	dir:      "node-segment1.84.3-rudderstack3.34.1",
	probes: []string{"@segment/analytics-next/dist/umd/index.js",
		"@rudderstack/analytics-js/dist/npm/modern/bundled/umd/index.js"},
}

// toolsJS is the page's own analytics setup, as a site has it after consentd's loader: Segment
// loaded with its settings inline (the Segment.io destination pointed at the site's /collect/seg,
// over http) and RudderStack loaded with its source configuration inline, consent management on
// with the custom provider, its data plane at the site's /collect/rs. Both are global
// (window.analytics, window.rudderanalytics), where consentd finds them. window.__track sends
// one event with each.
const toolsJS = `
(function () {
  var o = location.origin;
  window.analytics = AnalyticsNext.AnalyticsBrowser.load({ writeKey: 'seg_wk',
    cdnSettings: { integrations: { 'Segment.io': { apiKey: 'seg_wk', apiHost: location.host + '/collect/seg', protocol: 'http' } } } });
  var R = window.rudderanalytics.RudderAnalytics;
  window.rudderanalytics = new R();
  window.rudderanalytics.load('rs_wk', o + '/collect/rs', {
    getSourceConfig: function () {
      return { source: { id: 'src1', name: 'acme', writeKey: 'rs_wk', workspaceId: 'ws1', enabled: true, config: {}, destinations: [] } };
    },
    consentManagement: { enabled: true, provider: 'custom' },
    destSDKBaseURL: o + '/static/none', pluginsSDKBaseURL: o + '/static/none', polyfillIfRequired: false
  });
  window.__track = function (name) { window.analytics.track(name); window.rudderanalytics.track(name); };
})();
`

// forwardedNow is true once the tab's dataLayer has consentd's event.
const forwardedNow = `(window.dataLayer || []).some(function (e) { return e && e.event === 'consentd_consent'; })`

// forwarded is what the test reads of one library's captured event.
type forwarded struct {
	Event   string
	Consent map[string]bool // Segment: context.consent.categoryPreferences
	Allowed []string        // RudderStack: context.consentManagement.allowedConsentIds
	Denied  []string        // and deniedConsentIds
}

// TestBrowserConsentForwarding is #46's forwarding test. A German site (opt-in) whose page
// loads the real Segment and RudderStack libraries after consentd's loader. Three visitors: one
// accepts all, one rejects all, one saves a choice of statistics without marketing; then the
// page tracks an event with each library. The events both libraries send to their (local,
// captured) collection endpoints carry that visitor's consent: Segment's
// context.consent.categoryPreferences and its "Segment Consent Preference Updated" event,
// RudderStack's context.consentManagement allowed and denied IDs. GTM's dataLayer receives
// consentd_consent with the categories. The visitor who accepted comes back: the stored
// decision reaches the dataLayer (source "stored") and the libraries' events again.
func TestBrowserConsentForwarding(t *testing.T) {
	t.Parallel()
	nm := analyticsPackages.path(t)
	e := newEnv(t, "DE")
	for name, file := range map[string]string{
		"segment.js": "@segment/analytics-next/dist/umd/index.js",
		"rudder.js":  "@rudderstack/analytics-js/dist/npm/modern/bundled/umd/index.js",
	} {
		b, err := os.ReadFile(filepath.Join(nm, file))
		if err != nil {
			t.Fatal(err)
		}
		e.site.file(name, string(b))
	}
	e.site.file("tools.js", toolsJS)
	url := e.page("forwarding", "en", `<script src="/static/segment.js"></script>
<script src="/static/rudder.js"></script>
<script src="/static/tools.js"></script>`, "<p>Shop</p>")

	all := map[string]bool{"essential": true, "statistics": true, "marketing": true}
	none := map[string]bool{"essential": true, "statistics": false, "marketing": false}
	chosen := map[string]bool{"essential": true, "statistics": true, "marketing": false}
	var returning context.Context
	for _, v := range []struct {
		name string
		want map[string]bool
		act  func(ctx context.Context)
	}{
		{"accept", all, func(ctx context.Context) { eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil) }},
		{"reject", none, func(ctx context.Context) { eval(t, ctx, `window.__cd('[data-action=reject]').click()`, nil) }},
		{"choice", chosen, func(ctx context.Context) {
			eval(t, ctx, `window.consentd.showPreferences()`, nil)
			waitFor(t, ctx, `!!window.__cd('[data-action=save]')`)
			eval(t, ctx, `window.__cd('[data-category=statistics]').click(); window.__cd('[data-action=save]').click()`, nil)
		}},
	} {
		ctx := tab(t)
		navigate(t, ctx, url+"?v="+v.name)
		waitFor(t, ctx, bannerShown)
		var cats map[string]bool
		eval(t, ctx, `window.consentd.getConsent().categories`, &cats)
		if len(cats) != len(all) {
			t.Fatalf("the site's categories are %v, the test expects %v", cats, all)
		}
		v.act(ctx)
		// Forwarded once the lazily loaded module has run (at once when it is already here).
		waitFor(t, ctx, forwardedNow)
		event := "After " + v.name
		eval(t, ctx, `window.__track(`+jsString(event)+`)`, nil)
		checkForwarded(t, e, ctx, event, v.want, "decision")
		// The change is tracked with Segment as its consent wrapper does.
		waitSegment(t, e, "Segment Consent Preference Updated", v.want)
		if v.name == "accept" {
			returning = ctx
		}
	}

	// The visitor who accepted all comes back: the stored decision is forwarded on load.
	navigate(t, returning, url+"?v=back")
	waitFor(t, returning, forwardedNow)
	eval(t, returning, `window.__track('Back again')`, nil)
	checkForwarded(t, e, returning, "Back again", all, "stored")
}

// checkForwarded waits for event in both libraries' captured requests and checks they carry
// want, and that the tab's dataLayer had consentd_consent with want, from source.
func checkForwarded(t *testing.T, e *env, ctx context.Context, event string, want map[string]bool, source string) {
	t.Helper()
	var dl []struct {
		Event    string `json:"event"`
		Consentd struct {
			Categories map[string]bool `json:"categories"`
			Source     string          `json:"source"`
			Action     string          `json:"action"`
		} `json:"consentd"`
	}
	eval(t, ctx, `(window.dataLayer || []).filter(function (e) { return e && e.event === 'consentd_consent'; })`, &dl)
	if len(dl) != 1 || !reflect.DeepEqual(dl[0].Consentd.Categories, want) || dl[0].Consentd.Source != source || dl[0].Consentd.Action == "" {
		t.Errorf("%s: dataLayer consentd_consent events %+v, want one with %v from %s", event, dl, want, source)
	}
	waitSegment(t, e, event, want)
	var allowed, denied []string
	for k, on := range want {
		if on {
			allowed = append(allowed, k)
		} else {
			denied = append(denied, k)
		}
	}
	var got []forwarded
	deadline := time.Now().Add(patience)
	for {
		got = rudderEvents(t, e)
		for _, f := range got {
			if f.Event == event && sameSet(f.Allowed, allowed) && sameSet(f.Denied, denied) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("RudderStack sent no %q event with allowed %v and denied %v; it sent %+v", event, allowed, denied, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitSegment waits for a Segment event named event whose consent is want.
func waitSegment(t *testing.T, e *env, event string, want map[string]bool) {
	t.Helper()
	var got []forwarded
	deadline := time.Now().Add(patience)
	for {
		got = segmentEvents(t, e)
		for _, f := range got {
			if f.Event == event && reflect.DeepEqual(f.Consent, want) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Segment sent no %q event with consent %v; it sent %+v", event, want, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// segmentEvents decodes the track calls Segment sent (POST {apiHost}/t, one event a request).
func segmentEvents(t *testing.T, e *env) []forwarded {
	var out []forwarded
	for _, c := range e.site.collectedUnder("seg/") {
		var ev struct {
			Type    string `json:"type"`
			Event   string `json:"event"`
			Context struct {
				Consent struct {
					CategoryPreferences map[string]bool `json:"categoryPreferences"`
				} `json:"consent"`
			} `json:"context"`
		}
		if err := json.Unmarshal(c.Body, &ev); err != nil {
			t.Fatalf("Segment sent %s: %q: %v", c.Path, c.Body, err)
		}
		out = append(out, forwarded{Event: ev.Event, Consent: ev.Context.Consent.CategoryPreferences})
	}
	return out
}

// rudderEvents decodes the events RudderStack sent (POST {dataPlaneUrl}/v1/{type}, one a request).
func rudderEvents(t *testing.T, e *env) []forwarded {
	var out []forwarded
	for _, c := range e.site.collectedUnder("rs/") {
		var ev struct {
			Event   string `json:"event"`
			Context struct {
				ConsentManagement struct {
					Allowed []string `json:"allowedConsentIds"`
					Denied  []string `json:"deniedConsentIds"`
				} `json:"consentManagement"`
			} `json:"context"`
		}
		if err := json.Unmarshal(c.Body, &ev); err != nil {
			t.Fatalf("RudderStack sent %s: %q: %v", c.Path, c.Body, err)
		}
		out = append(out, forwarded{Event: ev.Event, Allowed: ev.Context.ConsentManagement.Allowed, Denied: ev.Context.ConsentManagement.Denied})
	}
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		if seen[s] == 0 {
			return false
		}
		seen[s]--
	}
	return true
}
