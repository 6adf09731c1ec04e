package banner_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core"
)

// TestBrowserFirstViewOneRequest: until the banner is visible, the browser fetches one thing
// from consentd, the site's loader; the lazily loaded part (banner-more.js, at its version) comes
// after, once the browser is idle, and the declaration not before the visitor opens the
// preferences.
func TestBrowserFirstViewOneRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	ctx := tab(t)
	navigate(t, ctx, e.page("one-request", "en", "", ""))
	waitFor(t, ctx, bannerShown)
	more := core.PublicPath("", core.PublicRuntimeMore) + "?v=" + bannerjs.MoreVersion()
	waitFor(t, ctx, `performance.getEntriesByType('resource').some(function (r) { return r.name.indexOf('`+more+`') >= 0; })`)
	var got struct{ Before, After []string }
	eval(t, ctx, `(function () {
  var shown = window.consentd.timing().shown, out = {before: [], after: []};
  performance.getEntriesByType('resource').forEach(function (r) {
    if (r.name.indexOf('`+e.api+`') === 0) (r.startTime <= shown ? out.before : out.after).push(r.name.slice(`+strconv.Itoa(len(e.api))+`));
  });
  return out;
})()`, &got)
	if len(got.Before) != 1 || !strings.HasPrefix(got.Before[0], core.PublicPath(e.pk, core.PublicLoader)) {
		t.Fatalf("fetched from consentd before the banner was visible: %q, want the loader alone", got.Before)
	}
	for _, p := range got.After {
		if strings.Contains(p, "/"+core.PublicDeclaration) {
			t.Errorf("the declaration was fetched before the preferences opened: %q", got.After)
		}
	}
}

// TestBrowserPreferencesWhileModuleLoads: the visitor's one click on "Preferences" opens them
// even while the lazily loaded part is still on its way: the dialog opens when it arrives, with
// the declaration's services, and axe-core finds nothing.
func TestBrowserPreferencesWhileModuleLoads(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	release := make(chan struct{})
	var once sync.Once
	var asked atomic.Int32
	h := e.srv.app.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/"+core.PublicRuntimeMore) {
			asked.Add(1)
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		r.Header.Set(countryHeader, "DE")
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // runs first: no handler left waiting
	s := newSite(t, srv.URL)
	loader := `<script src="` + srv.URL + core.PublicPath(e.pk, core.PublicLoader) + `"></script>`
	ctx := tab(t)
	navigate(t, ctx, s.page("prefs-while-loading", "en", loader, "", ""))
	waitFor(t, ctx, bannerShown)
	eval(t, ctx, `window.__cd('[data-action=preferences]').click()`, nil)
	deadline := time.Now().Add(patience)
	for asked.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the lazily loaded part was never requested")
		}
		time.Sleep(20 * time.Millisecond)
	}
	settle()
	var open bool
	eval(t, ctx, `!!window.__cd('dialog[data-preferences]')`, &open)
	if open {
		t.Fatal("the preferences opened without the lazily loaded part: the test proves nothing")
	}
	once.Do(func() { close(release) })
	waitFor(t, ctx, `window.__cd('dialog[data-preferences]') && window.__cd('dialog[data-preferences]').open`)
	var text string
	eval(t, ctx, `window.__cd('dialog[data-preferences]').textContent`, &text)
	for _, want := range []string{"Google Analytics", "Meta Pixel", "Statistics"} {
		if !strings.Contains(text, want) {
			t.Errorf("the preferences lack %q: %.300s", want, text)
		}
	}
	axeCheck(t, ctx, "preferences opened while their module loaded", "consentd-ui")
}

// TestBrowserModuleOutage: with the lazily loaded part unreachable, the first view still
// enforces: the banner shows, marked and unmarked tags stay held and send nothing; "accept all"
// on the banner is recorded and lets them run.
func TestBrowserModuleOutage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	e.setBlocking(t, true)
	srv := failingEdge(t, e, "DE", func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/"+core.PublicRuntimeMore) })
	s := newSite(t, srv.URL)
	loader := `<script src="` + srv.URL + core.PublicPath(e.pk, core.PublicLoader) + `"></script>`
	marked := `<script type="text/plain" data-category="statistics" src="` + s.tracker() + `/static/track.js?id=stat"></script>
<script type="text/plain" data-category="marketing" src="` + s.tracker() + `/static/track.js?id=mkt"></script>`
	ctx := tab(t)
	navigate(t, ctx, s.page("module-outage", "en", loader, "", marked+unmarkedTags(s.thirdPort())))
	waitFor(t, ctx, bannerShown)
	// The preferences cannot open without their module; the banner stays.
	eval(t, ctx, `window.__cd('[data-action=preferences]').click()`, nil)
	settle()
	var ran []string
	eval(t, ctx, `window.__ran || []`, &ran)
	if v := vendors(t, ctx); len(ran) != 0 || v.Fbq != 0 || v.Gtag != 0 || strings.Contains(v.Cookies, "_ga") {
		t.Fatalf("tags ran before a decision: %q, vendor state %+v", ran, v)
	}
	if hits := s.vendorHits(); len(hits) != 0 {
		t.Fatalf("collection requests before a decision: %q", hits)
	}
	var banner bool
	eval(t, ctx, `!!window.__cd('[data-template]')`, &banner)
	if !banner {
		t.Fatal("the banner went away when the preferences could not open")
	}
	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	if r := e.waitRecords(t, 1)[0]; r.Action != "accept_all" {
		t.Errorf("record %+v", r)
	}
	waitFor(t, ctx, `['stat', 'mkt', 'pixel'].every(function (id) { return (window.__ran || []).indexOf(id) >= 0; }) && window.__vendor.fbq > 0 && window.__vendor.gtag > 0`)
}

// TestBrowserPreferencesListEverything: on the first view's benchmark site (15 library services,
// about 90 cookies), whose loader names the services by slug and label only, the preferences
// and the embedded declaration still list every service and cookie of the site's declaration.
func TestBrowserPreferencesListEverything(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	for _, slug := range benchServices(t) {
		if slug != "stripe" && slug != "google-analytics" && slug != "meta-pixel" { // newEnv's
			e.post(t, "/sites/"+e.id+"/services/import", map[string]any{"slug": slug}, 201, nil)
		}
	}
	var decl struct {
		Categories []struct {
			Services []struct {
				Cookies []struct{ Name string } `json:"cookies"`
			} `json:"services"`
		} `json:"categories"`
	}
	_, body := get(t, e.api+core.PublicPath(e.pk, core.PublicDeclaration)+"?lang=en", nil)
	if err := json.Unmarshal(body, &decl); err != nil {
		t.Fatal(err)
	}
	services, cookies := 0, 0
	for _, c := range decl.Categories {
		for _, s := range c.Services {
			services++
			cookies += len(s.Cookies)
		}
	}
	if services < 15 || cookies < 90 {
		t.Fatalf("the declaration has %d services and %d cookies, want the benchmark site's 15 and about 90", services, cookies)
	}
	ctx := tab(t)
	navigate(t, ctx, e.shop("everything", "en", "", `<div data-consentd-declaration></div>`))
	waitFor(t, ctx, bannerShown)
	eval(t, ctx, `window.__cd('[data-action=preferences]').click()`, nil)
	waitFor(t, ctx, `window.__cd('dialog[data-preferences] .sv')`)
	waitFor(t, ctx, `document.querySelector('[data-consentd-declaration] .consentd-service')`)
	var got struct{ PrefServices, PrefCookies, DeclServices, DeclCookies int }
	eval(t, ctx, `(function () { var p = window.__cd('dialog[data-preferences]'), d = document.querySelector('[data-consentd-declaration]');
  return {prefServices: p.querySelectorAll('.sv').length, prefCookies: p.querySelectorAll('.sv tbody tr').length,
    declServices: d.querySelectorAll('.consentd-service').length, declCookies: d.querySelectorAll('.consentd-service tbody tr').length}; })()`, &got)
	if got.PrefServices != services || got.PrefCookies != cookies || got.DeclServices != services || got.DeclCookies != cookies {
		t.Fatalf("listed %+v, the declaration has %d services and %d cookies", got, services, cookies)
	}
	t.Logf("preferences and declaration list %d services and %d cookies", services, cookies)
}
