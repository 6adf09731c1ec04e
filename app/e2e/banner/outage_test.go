package banner_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core"
)

// TestBrowserOutageCachedConfig: on a second visit while consentd cannot be reached (every
// request but the runtime's script, which the browser keeps in its cache, fails as a refused
// connection would), the visitor's earlier decision applies from the configuration cached at
// the previous view: "accept all" lets the held tags run, "reject all" keeps them held, and no
// banner is shown. A visitor who saw the site without deciding stays held.
func TestBrowserOutageCachedConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, action string // action: the first visit's button; "" decides nothing
		run          bool
	}{{"accept all", "accept", true}, {"reject all", "reject", false}, {"no decision", "", false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, "DE")
			var down atomic.Bool
			h := e.srv.app.Handler()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if down.Load() && !strings.HasSuffix(r.URL.Path, "/banner.js") {
					if hj, ok := w.(http.Hijacker); ok {
						if conn, _, err := hj.Hijack(); err == nil {
							_ = conn.Close() // unreachable: the connection drops
							return
						}
					}
					http.Error(w, "unavailable", http.StatusServiceUnavailable)
					return
				}
				r.Header.Set(countryHeader, "DE")
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			s := newSite(t, srv.URL)
			legacy := `<script src="` + srv.URL + `/api/v1/public/banner.js?v=` + bannerjs.Version() + `" data-project-key="` + e.pk + `"></script>`
			marked := `<script type="text/plain" data-category="statistics" src="` + s.tracker() + `/static/track.js?id=stat"></script>
<script type="text/plain" data-category="marketing" src="` + s.tracker() + `/static/track.js?id=mkt"></script>`
			url := s.page("outage", "en", legacy, "", marked+pixelTag(s.thirdPort()))

			ctx := tab(t)
			navigate(t, ctx, url)
			waitFor(t, ctx, bannerShown)
			if c.action != "" {
				eval(t, ctx, `window.__cd('[data-action=`+c.action+`]').click()`, nil)
				waitFor(t, ctx, `window.consentd.getConsent().recordId`)
			}

			// The configuration's copy in the browser's HTTP cache would hide the outage.
			clearHTTPCache(t, ctx)
			down.Store(true)
			navigate(t, ctx, url)
			settle()
			var st struct {
				Ran     []string
				Banner  bool
				Decided bool
			}
			eval(t, ctx, `({ran: window.__ran || [], banner: !!window.__cd('[data-template]'), decided: window.consentd.getConsent().decided})`, &st)
			if st.Banner {
				t.Error("a banner while consentd is unreachable")
			}
			if !c.run {
				if v := vendors(t, ctx); len(st.Ran) != 0 || v.Fbq != 0 || strings.Contains(v.Cookies, "_fbp") {
					t.Fatalf("tags ran: %q, vendor state %+v", st.Ran, v)
				}
				if hits := s.vendorHits(); len(hits) != 0 && c.action == "" {
					t.Fatalf("collection requests: %q", hits)
				}
				if st.Decided != (c.action != "") {
					t.Errorf("decided %t", st.Decided)
				}
				return
			}
			waitFor(t, ctx, `['stat', 'mkt', 'pixel'].every(function (id) { return (window.__ran || []).indexOf(id) >= 0; }) && window.__vendor.fbq > 0`)
			var cons map[string]any
			eval(t, ctx, `window.consentd.getConsent()`, &cons)
			if cons["decided"] != true || cons["action"] != "accept_all" {
				t.Errorf("consent %v", cons)
			}
		})
	}
}

// TestBrowserPreferencesWithoutDeclaration: the loader's first view leaves the services'
// details to the declaration, fetched when the visitor opens the preferences. When that fetch
// fails, the dialog still opens whole: its title and its buttons labelled, the categories
// switchable, and nothing axe-core finds.
func TestBrowserPreferencesWithoutDeclaration(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	srv := failingEdge(t, e, "DE", func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/"+core.PublicDeclaration) })
	s := newSite(t, srv.URL)
	loader := `<script src="` + srv.URL + core.PublicPath(e.pk, core.PublicLoader) + `"></script>`
	ctx := tab(t)
	navigate(t, ctx, s.page("prefs-no-declaration", "en", loader, "", ""))
	waitFor(t, ctx, bannerShown)
	eval(t, ctx, `window.consentd.showPreferences()`, nil)
	waitFor(t, ctx, `window.__cd('dialog[data-preferences] [data-action=save]')`)
	var st struct{ Title, Save, Toggles string }
	eval(t, ctx, `(function () { var d = window.__cd('dialog[data-preferences]');
		return {title: (d.querySelector('h2') || {}).textContent || '', save: d.querySelector('[data-action=save]').textContent,
			toggles: String(d.querySelectorAll('input[type=checkbox]').length)}; })()`, &st)
	if strings.TrimSpace(st.Title) == "" || strings.TrimSpace(st.Save) == "" || st.Toggles == "0" {
		t.Fatalf("preferences without the declaration: %+v", st)
	}
	axeCheck(t, ctx, "preferences without the declaration", "consentd-ui")
	screenshot(t, ctx, "preferences-without-declaration")
}

// TestBrowserLostConsentAnswer: the visitor's decision reaches consentd and is stored, but its
// answer is lost on the way back (the connection drops). The runtime keeps the decision as not
// yet recorded and posts it again on the next view, with the idempotency key it chose with the
// decision: the server answers with the record it stored, and the decision is stored once.
func TestBrowserLostConsentAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	var lose atomic.Bool
	var lost atomic.Int32
	lose.Store(true)
	h := e.srv.app.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set(countryHeader, "DE")
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/"+core.PublicConsentPath) && lose.Load() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r) // stored; the answer goes nowhere
			if rec.Code == http.StatusCreated {
				lost.Add(1)
			}
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					_ = conn.Close()
					return
				}
			}
			http.Error(w, "lost", http.StatusBadGateway)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s := newSite(t, srv.URL)
	legacy := `<script src="` + srv.URL + `/api/v1/public/banner.js?v=` + bannerjs.Version() + `" data-project-key="` + e.pk + `"></script>`
	url := s.page("lost-answer", "en", legacy, "", "")

	ctx := tab(t)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	first := e.waitRecords(t, 1)
	settle()
	// Chromium sends a POST again by itself when a reused connection closes before any answer:
	// the same body, the same key, so still one record.
	if lost.Load() < 1 || len(e.records(t)) != 1 {
		t.Fatalf("%d posts answered 201 and lost, %d records, want 1 record", lost.Load(), len(e.records(t)))
	}
	var recordID any
	eval(t, ctx, `window.consentd.getConsent().recordId`, &recordID)
	if recordID != nil {
		t.Fatalf("the runtime holds record %v although the answer was lost", recordID)
	}

	lose.Store(false)
	navigate(t, ctx, url) // the next view posts the pending decision again
	waitFor(t, ctx, `window.consentd.getConsent().recordId`)
	eval(t, ctx, `window.consentd.getConsent().recordId`, &recordID)
	settle()
	recs := e.records(t)
	if len(recs) != 1 {
		t.Fatalf("the decision is stored %d times", len(recs))
	}
	if recs[0].ID != first[0].ID || recordID != first[0].ID {
		t.Errorf("the runtime holds record %v, the server stored %s", recordID, first[0].ID)
	}
	if recs[0].Action != "accept_all" {
		t.Errorf("stored %+v", recs[0])
	}
}
