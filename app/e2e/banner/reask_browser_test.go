package banner_test

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/core"
)

// clockInit moves the page's clock by the offset (in days) the test keeps in localStorage.
const clockInit = `(function () { var off = +(localStorage.getItem('__clockDays') || 0) * 864e5, now = Date.now;
Date.now = function () { return now() + off; }; })();`

// consentCookieOf returns the consent cookie the tab's cookie jar holds for page once the jar
// holds what the page last wrote (false when there is none). A page's document.cookie writes
// reach the jar, where the DevTools protocol reads, a moment later: read at once, the jar can
// still hold the decision before (CI saw an accept's 30 days read just after a refusal).
func consentCookieOf(t *testing.T, ctx context.Context, page string) (*network.Cookie, bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var wrote string
		eval(t, ctx, `(document.cookie.match(/(?:^|;\s*)consentd=([^;]*)/) || [])[1] || ''`, &wrote)
		var out []*network.Cookie
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			r, err := cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{URLs: []string{page}})
			out = r.Cookies
			return err
		}))
		if err != nil {
			t.Fatal(err)
		}
		var got *network.Cookie
		for _, c := range out {
			if c.Name == "consentd" {
				got = c
			}
		}
		switch {
		case got == nil && wrote == "":
			return nil, false
		case got != nil && got.Value == wrote:
			return got, true
		case time.Now().After(deadline):
			t.Fatalf("the cookie jar's consent cookie %+v is not the page's %q after 10 s", got, wrote)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBrowserReaskAfterReject is #45's test of refusals that last. A site with an opt-in banner
// (defaultBehavior opt_in, reaskAfterRejectDays unset: 180 days, the opt-in default) and
// cookieExpirationDays 30: a visitor rejects; the consent cookie the runtime writes lives 180
// days (not the 30 of other decisions). Then the clock is set 179 days later (the page's clock,
// and the cookie jar: the cookie keeps what is left of its life, or is gone): no banner; set
// 181 days later: the banner asks again. An accept, for comparison, lives cookieExpirationDays.
func TestBrowserReaskAfterReject(t *testing.T) {
	t.Parallel()
	browser(t)
	edge := regionalEdge(t, nil)
	base := edge(nil)
	var created struct{ ID, ProjectKey string }
	mgmt(t, base, "POST", "/sites", map[string]any{"name": "Acme Reask", "url": "https://acme.example"}, 201, &created)
	mgmt(t, base, "POST", "/sites/"+created.ID+"/services/import", map[string]any{"slug": "google-analytics"}, 201, nil)
	mgmt(t, base, "PATCH", "/sites/"+created.ID+"/banner", map[string]any{"cookieExpirationDays": 30}, 200, nil)
	api := edge(map[string]string{countryHeader: "FR"})
	s := newSite(t, api)
	page := s.raw("reask", `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme</title>
<script src="`+api+core.PublicPath(created.ProjectKey, core.PublicLoader)+`"></script></head>
<body><main><h1>Acme</h1></main></body></html>`)
	ctx := tab(t, clockInit)
	navigate(t, ctx, page)
	waitFor(t, ctx, bannerShown)

	consentCookie := func() (*network.Cookie, bool) { t.Helper(); return consentCookieOf(t, ctx, page) }
	lifeDays := func() float64 {
		t.Helper()
		c, ok := consentCookie()
		if !ok {
			t.Fatal("no consent cookie")
		}
		return (c.Expires - float64(time.Now().Unix())) / 86400
	}
	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	waitFor(t, ctx, `!window.__cd('[data-template]') && !!consentd.getConsent().recordId`)
	var accepted string
	eval(t, ctx, `consentd.getConsent().recordId`, &accepted)
	if d := lifeDays(); math.Abs(d-30) > 0.1 {
		t.Errorf("an accept lives %.2f days, want cookieExpirationDays 30", d)
	}
	eval(t, ctx, `consentd.showPreferences()`, nil)
	waitFor(t, ctx, `!!window.__cd('[data-preferences] [data-action=reject]')`)
	// Until the server answers, the refusal has no record: not the accept's either (the runtime
	// once carried the earlier decision's record ID over, and the choices panel showed it).
	var pending struct {
		Action   string
		RecordID any
	}
	eval(t, ctx, `window.__cd('[data-preferences] [data-action=reject]').click(), {action: consentd.getConsent().action, recordID: consentd.getConsent().recordId}`, &pending)
	if pending.Action != "reject_all" || pending.RecordID != nil {
		t.Errorf("just after the refusal getConsent() = %+v, want reject_all with no recordId (the accept's is %s)", pending, accepted)
	}
	// Recorded: the server's answer rewrites the cookie. Moving the clock before it came would
	// race that write: a post still unanswered is posted again on the next view, and its answer
	// could write the cookie back after setClock below removed it.
	waitFor(t, ctx, `consentd.getConsent().action === 'reject_all' && !!consentd.getConsent().recordId && consentd.getConsent().recordId !== '`+accepted+`'`)
	if d := lifeDays(); math.Abs(d-180) > 0.1 {
		t.Fatalf("a refusal lives %.2f days, want reaskAfterRejectDays' default 180", d)
	}
	refusal, _ := consentCookie()

	// setClock moves the page's clock days ahead, and the cookie jar with it: the consent
	// cookie keeps what is left of its life then, or is gone.
	setClock := func(days int) {
		t.Helper()
		eval(t, ctx, `localStorage.setItem('__clockDays', '`+strconv.Itoa(days)+`')`, nil)
		left := refusal.Expires - float64(days*86400)
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tg, network.DeleteCookies, network.DeleteCookiesParams{Name: "consentd", URL: page}); err != nil {
				return err
			}
			if left <= float64(time.Now().Unix()) {
				return nil
			}
			_, err := cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{Name: "consentd", Value: refusal.Value, URL: page, Path: refusal.Path, SameSite: refusal.SameSite, Expires: cdp.TimeSinceEpoch(left)})
			return err
		}))
		if err != nil {
			t.Fatal(err)
		}
	}
	setClock(179)
	navigate(t, ctx, page)
	waitFor(t, ctx, `!!window.consentd && consentd.getConsent().ready`)
	var shown bool
	eval(t, ctx, `!!window.__cd('[data-template]')`, &shown)
	if c := (struct{ Action string }{}); shown {
		t.Errorf("179 days after a refusal the banner shows")
	} else {
		eval(t, ctx, `({action: consentd.getConsent().action})`, &c)
		if c.Action != "reject_all" {
			t.Errorf("179 days after a refusal the decision is %q, want the refusal", c.Action)
		}
	}
	setClock(181)
	navigate(t, ctx, page)
	waitFor(t, ctx, bannerShown)
}

// TestBrowserLateRecordKeepsTheDecisionsLife: a decision lives from when it was taken. A
// refusal whose post's answer was lost is posted again on the next view, 100 days later; the
// answer rewrites the consent cookie with the 80 days left of the refusal's 180, not with 180
// new ones (a refusal must be asked again after reaskAfterRejectDays, however late it was
// recorded).
func TestBrowserLateRecordKeepsTheDecisionsLife(t *testing.T) {
	t.Parallel()
	var lose atomic.Bool
	browser(t)
	h := regionalApp(t, nil).Handler()
	edge := edgeFor(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/"+core.PublicConsentPath) && lose.Load() {
			h.ServeHTTP(httptest.NewRecorder(), r) // stored; the answer goes nowhere
			http.Error(w, "lost", http.StatusBadGateway)
			return
		}
		h.ServeHTTP(w, r)
	}))
	base := edge(nil)
	var created struct{ ID, ProjectKey string }
	mgmt(t, base, "POST", "/sites", map[string]any{"name": "Acme Late", "url": "https://acme.example"}, 201, &created)
	api := edge(map[string]string{countryHeader: "FR"})
	page := newSite(t, api).raw("late", `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme</title>
<script src="`+api+core.PublicPath(created.ProjectKey, core.PublicLoader)+`"></script></head>
<body><main><h1>Acme</h1></main></body></html>`)
	ctx := tab(t, clockInit)
	cookie := func() *network.Cookie {
		t.Helper()
		c, ok := consentCookieOf(t, ctx, page)
		if !ok {
			t.Fatal("no consent cookie")
		}
		return c
	}

	lose.Store(true)
	navigate(t, ctx, page)
	waitFor(t, ctx, bannerShown)
	eval(t, ctx, `window.__cd('[data-action=reject]').click()`, nil)
	waitFor(t, ctx, `consentd.getConsent().action === 'reject_all' && document.cookie.indexOf('consentd=') >= 0`)
	settle()
	var recorded bool
	if eval(t, ctx, `!!consentd.getConsent().recordId`, &recorded); recorded {
		t.Fatal("the refusal is recorded although its answer was lost")
	}
	// 100 days later, for the page's clock and the cookie jar (80 days of the cookie's life left).
	refusal := cookie()
	eval(t, ctx, `localStorage.setItem('__clockDays', '100')`, nil)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{Name: "consentd", Value: refusal.Value, URL: page, Path: refusal.Path,
			SameSite: refusal.SameSite, Expires: cdp.TimeSinceEpoch(refusal.Expires - 100*86400)})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	lose.Store(false)
	navigate(t, ctx, page)
	waitFor(t, ctx, `!!window.consentd && consentd.getConsent().action === 'reject_all' && !!consentd.getConsent().recordId`)
	if left := (cookie().Expires - float64(time.Now().Unix())) / 86400; math.Abs(left-80) > 0.1 {
		t.Errorf("recorded 100 days late, the refusal's cookie lives %.2f more days, want the 80 left of its 180", left)
	}
}
