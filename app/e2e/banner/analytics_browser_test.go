package banner_test

import (
	"context"
	"testing"
	"time"
)

// moreLoaded is true once the lazily loaded module (which sends the events) has run: it was
// fetched, and its script element, which the loader removes in its load handler (where the
// module starts its events), is gone. The fetch alone is not enough: the browser records it
// before it runs the script, and under load a visitor who left in between was never counted
// (a CI run saw five banners shown of six).
const moreLoaded = `performance.getEntriesByType('resource').some(function (e) { return e.name.indexOf('banner-more.js') >= 0; }) &&
  !document.querySelector('script[src*="banner-more.js"]') && !window.__consentdMore`

// TestBrowserAnalyticsEvents: six visitors in fresh browsers: two accept, one rejects, one
// opens the preferences and saves a choice, two leave without deciding. The analytics API
// counts the banner shown six times, four decisions by kind (from the records and from the
// events), one preferences opened and two visitors who left, exactly.
func TestBrowserAnalyticsEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "FR")
	url := e.page("analytics", "en", "", "<p>Shop</p>")
	visit := func(act func(ctx context.Context)) {
		ctx := tab(t)
		navigate(t, ctx, url)
		waitFor(t, ctx, bannerShown)
		waitFor(t, ctx, moreLoaded)
		act(ctx)
	}
	click := func(action string) func(ctx context.Context) {
		return func(ctx context.Context) { eval(t, ctx, `window.__cd('[data-action=`+action+`]').click()`, nil) }
	}
	visit(click("accept"))
	visit(click("accept"))
	visit(click("reject"))
	visit(func(ctx context.Context) {
		eval(t, ctx, `window.consentd.showPreferences()`, nil)
		waitFor(t, ctx, `!!window.__cd('[data-action=save]')`)
		eval(t, ctx, `window.__cd('[data-category=statistics]').click(); window.__cd('[data-action=save]').click()`, nil)
		var cookies string
		eval(t, ctx, `document.cookie`, &cookies)
		if cookies == "" {
			t.Error("no consent cookie after the decision (the runtime's own, which the decision justifies)")
		}
	})
	leave := func(ctx context.Context) { navigate(t, ctx, "about:blank") }
	visit(leave)
	visit(leave)
	e.waitRecords(t, 4)

	type figures struct {
		Shown, Decided, AcceptAll, RejectAll, Custom, PreferencesOpened, LeftUndecided int64
		FirstDecisions                                                                 map[string]int64
		MeanDecisionMs                                                                 float64
	}
	want := figures{Shown: 6, Decided: 4, AcceptAll: 2, RejectAll: 1, Custom: 1, PreferencesOpened: 1, LeftUndecided: 2}
	var got struct {
		Totals figures `json:"totals"`
		By     map[string][]struct {
			Value string `json:"value"`
			Shown int64  `json:"shown"`
		} `json:"by"`
	}
	deadline := time.Now().Add(patience)
	for {
		mgmt(t, e.api, "GET", "/sites/"+e.id+"/analytics", nil, 200, &got)
		g := got.Totals
		if g.Shown == want.Shown && g.Decided == want.Decided && g.AcceptAll == want.AcceptAll && g.RejectAll == want.RejectAll &&
			g.Custom == want.Custom && g.PreferencesOpened == want.PreferencesOpened && g.LeftUndecided == want.LeftUndecided &&
			g.FirstDecisions["accept_all"] == 2 && g.FirstDecisions["reject_all"] == 1 && g.FirstDecisions["custom"] == 1 && g.MeanDecisionMs > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("analytics totals %+v, want %+v with first decisions 2 accept_all, 1 reject_all, 1 custom", g, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if c := got.By["country"]; len(c) != 1 || c[0].Value != "FR" || c[0].Shown != 6 {
		t.Errorf("by country %+v, want FR: 6", c)
	}
	if d := got.By["device"]; len(d) != 1 || d[0].Value != "desktop" {
		t.Errorf("by device %+v, want desktop (headless Chromium is no crawler)", d)
	}
}
