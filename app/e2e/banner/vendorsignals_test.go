package banner_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// microsoftSnippets are Microsoft UET's and Clarity's base codes as their vendors tell site
// owners to paste them, reduced to what they do to the page before their tags (bat.js,
// clarity.js) load: UET keeps its queue (window.uetq) if there is one, Clarity keeps its
// function (window.clarity) if there is one. Each then records the queue as its tag would find
// it on loading.
const microsoftSnippets = `<script nonce="` + nonce + `">
(function (w) {
  w.uetq = w.uetq || [];
  w.uetq.push('pageLoad');
  w.__uetAtTag = JSON.stringify(w.uetq);
})(window);
(function (c, a) {
  c[a] = c[a] || function () { (c[a].q = c[a].q || []).push(arguments); };
  c[a]('set', 'page', 'shop');
  window.__clarityAtTag = JSON.stringify(c[a].q.map(function (x) { return Array.prototype.slice.call(x); }));
})(window, 'clarity');
</script>`

// TestBrowserMicrosoftSignals: UET's uetq and Clarity's consentv2 receive the denied defaults
// before the vendors' tags run, and the updates after a decision.
func TestBrowserMicrosoftSignals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	ctx := tab(t)
	url := e.page("microsoft", "en", microsoftSnippets, "")
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	var at struct{ UET, Clarity string }
	eval(t, ctx, `({uet: window.__uetAtTag, clarity: window.__clarityAtTag})`, &at)
	if want := `["consent","default",{"ad_storage":"denied"},"pageLoad"]`; at.UET != want {
		t.Errorf("uetq when UET's tag loads: %s, want %s", at.UET, want)
	}
	if want := `[["consentv2",{"ad_Storage":"denied","analytics_Storage":"denied"}],["set","page","shop"]]`; at.Clarity != want {
		t.Errorf("clarity's queue when Clarity's tag loads: %s, want %s", at.Clarity, want)
	}

	// Statistics only: Clarity's analytics granted, ads denied everywhere.
	eval(t, ctx, `window.consentd.showPreferences()`, nil)
	waitFor(t, ctx, `window.__cd('input[data-category=statistics]')`)
	eval(t, ctx, `window.__cd('input[data-category=statistics]').click(); window.__cd('[data-action=save]').click()`, nil)
	waitFor(t, ctx, `window.consentd.getConsent().decided`)
	var after struct{ UET, Clarity []any }
	eval(t, ctx, `({uet: window.uetq.slice(-3), clarity: Array.prototype.slice.call(window.clarity.q.slice(-1)[0])})`, &after)
	got, _ := json.Marshal(after)
	if want := `{"UET":["consent","update",{"ad_storage":"denied"}],"Clarity":["consentv2",{"ad_Storage":"denied","analytics_Storage":"granted"}]}`; string(got) != want {
		t.Errorf("after saving statistics only: %s, want %s", got, want)
	}

	// Accept all: both grant everything.
	eval(t, ctx, `window.consentd.acceptAll()`, nil)
	eval(t, ctx, `({uet: window.uetq.slice(-3), clarity: Array.prototype.slice.call(window.clarity.q.slice(-1)[0])})`, &after)
	got, _ = json.Marshal(after)
	if want := `{"UET":["consent","update",{"ad_storage":"granted"}],"Clarity":["consentv2",{"ad_Storage":"granted","analytics_Storage":"granted"}]}`; string(got) != want {
		t.Errorf("after accept all: %s, want %s", got, want)
	}
	noViolations(t, ctx)
}

// TestBrowserConsentModeAdvanced: with consentMode advanced, Google's tag pasted unmarked loads
// before any decision, finds every Consent Mode signal that needs a category denied, sends only
// a cookieless ping and sets no _ga cookie; Meta's pixel stays held. "Accept all" grants
// analytics_storage and the tag sets its cookies.
func TestBrowserConsentModeAdvanced(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	e.patchBanner(t, map[string]any{"consentMode": "advanced"})
	ctx := tab(t)
	navigate(t, ctx, e.page("advanced", "en", unmarkedTags(e.site.thirdPort()), ""))
	waitFor(t, ctx, bannerShown)
	waitFor(t, ctx, `window.__vendor && window.__vendor.gtag > 0`)
	waitFor(t, ctx, `performance.getEntriesByType('resource').some(function (r) { return r.name.indexOf('/g/collect?') > 0; })`)
	settle()
	var st struct {
		Default map[string]any
		Fbq     int
		Cookies string
	}
	eval(t, ctx, `({default: Array.prototype.slice.call(window.dataLayer[0])[2], fbq: window.__vendor.fbq, cookies: document.cookie})`, &st)
	for _, sig := range []string{"ad_storage", "ad_user_data", "ad_personalization", "analytics_storage"} {
		if st.Default[sig] != "denied" {
			t.Errorf("Consent Mode default %s = %v, want denied", sig, st.Default[sig])
		}
	}
	if strings.Contains(st.Cookies, "_ga") || st.Fbq != 0 || strings.Contains(st.Cookies, "_fbp") {
		t.Fatalf("before consent: cookies %q, Meta commands %d", st.Cookies, st.Fbq)
	}
	hits := strings.Join(e.site.vendorHits(), " ")
	if !strings.Contains(hits, "tid=G-UNMARKED&gcs=G100") || strings.Contains(hits, "gcs=G111") || strings.Contains(hits, "/tr?") {
		t.Errorf("before consent, collection requests %q: want Google's cookieless ping alone", hits)
	}

	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	waitFor(t, ctx, `document.cookie.indexOf('_ga=') >= 0 && window.__vendor.fbq > 0`)
	noViolations(t, ctx)
}
