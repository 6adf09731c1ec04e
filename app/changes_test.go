package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	scanpkg "github.com/consentd/consentd/core/scan"
)

// pixelPage is gaPage with the Meta Pixel added by a marketer.
const pixelPage = `<!doctype html><html><head><title>Shop</title>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-TEST12345"></script>
<script>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);}
gtag('js', new Date()); gtag('config', 'G-TEST12345');</script>
<script async src="https://connect.facebook.net/en_US/fbevents.js"></script>
</head><body><h1>Shop</h1></body></html>`

// TestScanChangesOverHTTP: a site scanned, then changed (the Meta Pixel added with its
// cookie, Google Analytics' cookie renamed), then scanned again: the second scan's changes
// name exactly the added service, its cookie and the renamed cookie.
func TestScanChangesOverHTTP(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dialect string) {
		r := serve(t, dialect, func(c *Config) { c.ScanMode = core.ScanStatic })
		var changed atomic.Bool
		target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.URL.Path != "/" {
				http.NotFound(w, req)
				return
			}
			page := gaPage
			if changed.Load() {
				page = pixelPage
				http.SetCookie(w, &http.Cookie{Name: "_gid", Value: "GA1.1.2.2", Path: "/", MaxAge: 86400})
				http.SetCookie(w, &http.Cookie{Name: "_fbp", Value: "fb.1.1.1", Path: "/", MaxAge: 7776000})
			} else {
				http.SetCookie(w, &http.Cookie{Name: "_ga", Value: "GA1.1.1.1", Path: "/", MaxAge: 3600})
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, page)
		}))
		t.Cleanup(target.Close)
		site := r.createSite(t, target.URL+"/")
		scan := func() *scanpkg.Scan {
			var s scanpkg.Scan
			r.call(t, "POST", "/sites/"+site.ID+"/scan", nil, &s)
			got := r.waitScan(t, site.ID, s.ID, 30*time.Second)
			if got.Status != scanpkg.ScanCompleted {
				t.Fatalf("scan %s: %v", got.Status, deref(got.ErrorMessage))
			}
			return got
		}
		first := scan()
		if first.Changes != nil {
			t.Fatalf("first scan's changes = %+v, want null", first.Changes)
		}
		changed.Store(true)
		second := scan()
		c := second.Changes
		if c == nil || c.PreviousScanID != first.ID {
			t.Fatalf("changes = %+v, want a comparison with the first scan", c)
		}
		if len(c.ServicesAdded) != 1 || c.ServicesAdded[0].Slug != "meta-pixel" {
			t.Errorf("servicesAdded = %+v, want meta-pixel", c.ServicesAdded)
		}
		var added []string
		for _, k := range c.CookiesAdded {
			added = append(added, k.Service+"/"+k.Name)
		}
		if fmt.Sprint(added) != "[google-analytics/_gid meta-pixel/_fbp]" {
			t.Errorf("cookiesAdded = %v, want google-analytics/_gid and meta-pixel/_fbp", added)
		}
		if len(c.CookiesRemoved) != 1 || c.CookiesRemoved[0].Service != "google-analytics" || c.CookiesRemoved[0].Name != "_ga" {
			t.Errorf("cookiesRemoved = %+v, want google-analytics/_ga", c.CookiesRemoved)
		}
		if c.Count != 4 {
			t.Errorf("count = %d, want exactly those 4 changes: %+v", c.Count, c)
		}
	})
}
