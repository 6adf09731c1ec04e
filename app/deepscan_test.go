package app

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/crawler/browser/browsertest"
	"github.com/consentd/consentd/crawler/crawlertest"
)

// needChromium skips the test loudly without Chromium, or fails it when CI=true.
func needChromium(t testing.TB) {
	t.Helper()
	browsertest.Require(t)
}

// vendorSite serves a shop and the vendor hosts its pixel uses, all over TLS with a
// certificate of the test CA, on one loopback port.
func vendorSite(t *testing.T, cert tls.Certificate) *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.Host)
		if host == "" {
			host = r.Host
		}
		switch host + r.URL.Path {
		case "www.deepshop.example/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><html><head><title>Deep shop</title>
<script>!function(f){var n=f.fbq=function(){n.queue.push(arguments)};n.queue=[];}(window);
fbq('init', '443322110099887'); fbq('track', 'PageView');</script>
<script async src="https://connect.facebook.net/en_US/fbevents.js"></script>
</head><body><h1>Deep shop</h1></body></html>`)
		case "connect.facebook.net/en_US/fbevents.js":
			w.Header().Set("Content-Type", "application/javascript")
			fmt.Fprint(w, `document.cookie = '_fbp=fb.1.1.1; path=/; max-age=7776000';
new Image().src = 'https://www.facebook.com/tr?id=' + fbq.queue[0][1] + '&ev=PageView';`)
		case "www.facebook.com/tr":
			// fr is the library's; pxl_vsid is not listed, and belongs to the pixel by its domain.
			w.Header().Add("Set-Cookie", "fr=1.2; Domain=.facebook.com; Path=/; Max-Age=7776000; Secure; SameSite=None")
			w.Header().Add("Set-Cookie", "pxl_vsid=x9; Domain=.facebook.com; Path=/; Max-Age=34560000; Secure; HttpOnly; SameSite=None")
			w.Header().Set("Content-Type", "image/gif")
		default:
			http.NotFound(w, r)
		}
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// TestDeepScanOverHTTP: on SQLite and Postgres, a deep scan triggered over HTTP runs on a
// worker's browser, reaching vendor hosts over TLS through CONSENTD_SCAN_CONNECT_TO and
// CONSENTD_SCAN_CA_CERT; the Scan lists observed cookies and pre-consent findings, and
// configure creates the pixel with the cookie the library lacks, with its observed duration.
func TestDeepScanOverHTTP(t *testing.T) {
	t.Parallel()
	needChromium(t)
	dialects(t, func(t *testing.T, dialect string) {
		cert, caFile := crawlertest.CA(t, "www.deepshop.example", "connect.facebook.net", "www.facebook.com")
		vendors := vendorSite(t, cert)
		r := serve(t, dialect, func(c *Config) {
			c.ScanConnectTo = []string{"::127.0.0.1:" + vendors.Listener.Addr().(*net.TCPAddr).AddrPort().String()[len("127.0.0.1:"):]}
			c.ScanCACert, c.ChromiumPath = caFile, browsertest.Path
		})
		site := r.createSite(t, "https://www.deepshop.example/")
		var s scan.Scan
		r.call(t, "POST", "/sites/"+site.ID+"/scan", map[string]string{"mode": "deep"}, &s)
		if s.Mode != core.ScanDeep || s.ModeUsed != nil {
			t.Fatalf("trigger: mode %q used %v", s.Mode, s.ModeUsed)
		}
		got := r.waitScan(t, site.ID, s.ID, 60*time.Second)
		if got.Status != scan.ScanCompleted || got.ModeUsed == nil || *got.ModeUsed != core.ScanDeep {
			t.Fatalf("scan %s (%v): %v", got.Status, got.ModeUsed, deref(got.ErrorMessage))
		}
		var pixel *core.DetectedService
		for i := range got.DetectedServices {
			if got.DetectedServices[i].Slug == "meta-pixel" {
				pixel = &got.DetectedServices[i]
			}
		}
		if pixel == nil || !slices.Contains(pixel.TrackingIDs, "443322110099887") {
			t.Fatalf("detectedServices %+v", got.DetectedServices)
		}
		var names []string
		for _, c := range pixel.Cookies {
			names = append(names, c.Name+" "+c.Duration)
		}
		slices.Sort(names)
		if want := []string{"_fbp 3 months", "fr 3 months", "pxl_vsid 1 year"}; !slices.Equal(names, want) {
			t.Fatalf("pixel cookies %v, want %v; unrecognized %+v", names, want, got.UnrecognizedCookies)
		}
		if len(got.PreConsent) != 1 || got.PreConsent[0].Slug != "meta-pixel" || len(got.PreConsent[0].Requests) == 0 {
			t.Fatalf("preConsent %+v", got.PreConsent)
		}
		var res struct {
			Services []struct {
				ID, Slug string
			} `json:"services"`
		}
		r.call(t, "POST", "/sites/"+site.ID+"/scans/"+s.ID+"/configure", nil, &res)
		if len(res.Services) != 1 {
			t.Fatalf("configure created %+v", res.Services)
		}
		var svcs []banner.Service
		r.call(t, "GET", "/sites/"+site.ID+"/services", nil, &svcs)
		cookies := map[string]string{}
		for _, svc := range svcs {
			for _, c := range svc.Cookies {
				cookies[c.Name] = c.Duration
			}
		}
		if cookies["pxl_vsid"] != "1 year" || cookies["_fbp"] != "90 days" {
			t.Fatalf("configured cookies %v: want pxl_vsid added with its observed duration, _fbp with the library's", cookies)
		}
	})
}

// TestAutoFallsBackToStatic: with CONSENTD_CHROMIUM_PATH pointing nowhere, a scan in the
// default mode (auto) runs static and says so; one asking for deep fails with a sentence that
// says how to get a browser.
func TestAutoFallsBackToStatic(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dialect string) {
		r := serve(t, dialect, func(c *Config) { c.ChromiumPath = "/nonexistent/chromium" })
		target := targetSite(t)
		site := r.createSite(t, target.URL+"/")
		var s scan.Scan
		r.call(t, "POST", "/sites/"+site.ID+"/scan", nil, &s)
		got := r.waitScan(t, site.ID, s.ID, 30*time.Second)
		if s.Mode != core.ScanAuto || got.Status != scan.ScanCompleted || got.ModeUsed == nil || *got.ModeUsed != core.ScanStatic {
			t.Fatalf("auto scan: mode %q, %s, used %v: %v", s.Mode, got.Status, got.ModeUsed, deref(got.ErrorMessage))
		}
		// A mode that does not exist is the client's error, with the modes that do.
		req, _ := http.NewRequest("POST", r.base+"/sites/"+site.ID+"/scan", strings.NewReader(`{"mode":"browser"}`))
		req.Header.Set("Authorization", "Bearer "+testKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), "deep") {
			t.Fatalf("mode browser: %d %s", resp.StatusCode, body)
		}
		r.call(t, "POST", "/sites/"+site.ID+"/scan", map[string]string{"mode": "deep"}, &s)
		got = r.waitScan(t, site.ID, s.ID, 30*time.Second)
		if got.Status != scan.ScanFailed || !strings.Contains(deref(got.ErrorMessage), "CONSENTD_CHROMIUM_PATH") {
			t.Fatalf("deep scan without a browser: %s %q", got.Status, deref(got.ErrorMessage))
		}
	})
}
