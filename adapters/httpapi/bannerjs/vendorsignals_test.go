package bannerjs_test

import (
	"encoding/json"
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
