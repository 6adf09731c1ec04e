package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/adapters/riverqueue"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
)

const testKey = "cd_test-key-for-scan-jobs"

// gaPage is a homepage with the Google Analytics gtag snippet.
const gaPage = `<!doctype html><html><head><title>Shop</title>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-TEST12345"></script>
<script>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);}
gtag('js', new Date()); gtag('config', 'G-TEST12345');</script>
</head><body><h1>Shop</h1><a href="/gone">Old offer</a></body></html>`

// targetSite serves gaPage on loopback.
func targetSite(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		// A first-party Google Analytics cookie, as a server-side tag would set it.
		http.SetCookie(w, &http.Cookie{Name: "_ga", Value: "GA1.1.1.1", Path: "/", MaxAge: 3600})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, gaPage)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func databaseURL(t testing.TB, dialect string) string {
	if dialect == "postgres" {
		return pgtest.FreshURL(t)
	}
	return "sqlite://" + filepath.Join(t.TempDir(), "consentd.db")
}

// running is consentd serving HTTP with in-process scan workers.
type running struct {
	*App
	base string
}

// serve starts consentd (RunServer) with fast test settings adjusted by tune; it stops
// gracefully when t ends.
func serve(t testing.TB, dialect string, tune func(*Config)) *running {
	t.Helper()
	cfg := Config{
		Addr: "127.0.0.1:0", DatabaseURL: databaseURL(t, dialect), Workers: 2, BootstrapAPIKey: testKey,
		ScanAllowPrivate: true, ScanPoll: 50 * time.Millisecond, ScanRetryBase: 20 * time.Millisecond,
		ScanTimeout: 20 * time.Second, ShutdownTimeout: 10 * time.Second, Logger: slog.New(slog.DiscardHandler),
	}
	if tune != nil {
		tune(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := New(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := a.Listen()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	base := BaseURL(ln.Addr().String()) + "/api/v1"
	done := make(chan error, 1)
	go func() { done <- a.RunServer(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve ended with %v", err)
		}
		a.Close()
	})
	return &running{App: a, base: base}
}

// call sends a JSON request with the test key and decodes the JSON answer into out.
func (r *running) call(t testing.TB, method, path string, body, out any) {
	t.Helper()
	var rd bytes.Buffer
	if body != nil {
		if err := json.NewEncoder(&rd).Encode(body); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, r.base+path, &rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		var e bytes.Buffer
		e.ReadFrom(res.Body)
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, e.String())
	}
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

func (r *running) createSite(t testing.TB, url string) *core.Site {
	t.Helper()
	var s core.Site
	r.call(t, "POST", "/sites", map[string]string{"name": "Shop", "url": url}, &s)
	return &s
}

// waitScan polls the scan over HTTP until it is completed or failed.
func (r *running) waitScan(t testing.TB, siteID, scanID string, within time.Duration) *scan.Scan {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var s scan.Scan
		r.call(t, "GET", "/sites/"+siteID+"/scans/"+scanID, nil, &s)
		if s.Status == scan.ScanCompleted || s.Status == scan.ScanFailed {
			return &s
		}
		if time.Now().After(deadline) {
			t.Fatalf("scan %s still %s after %s", scanID, s.Status, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func dialects(t *testing.T, fn func(t *testing.T, dialect string)) {
	for _, d := range []string{"sqlite", "postgres"} {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			fn(t, d)
		})
	}
}

// dialectsSideBySide runs fn on both stores at the same time inside the calling test's one
// parallel slot, for a test that spends its time waiting (a receiver's outage) rather than
// computing: as two parallel subtests, each held one of the package's GOMAXPROCS slots while
// it slept. testing lets a test call Run from several goroutines at once.
func dialectsSideBySide(t *testing.T, fn func(t *testing.T, dialect string)) {
	var wg sync.WaitGroup
	for _, d := range []string{"sqlite", "postgres"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(d, func(t *testing.T) { fn(t, d) })
		}()
	}
	wg.Wait()
}

// TestScanOverHTTP: a scan triggered over HTTP reaches completed through a real River worker
// and the real crawler, against a loopback site with Google Analytics.
func TestScanOverHTTP(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dialect string) {
		// The static engine's path (TestDeepScanOverHTTP covers the browser's).
		r := serve(t, dialect, func(c *Config) { c.ScanMode = core.ScanStatic })
		target := targetSite(t)
		site := r.createSite(t, target.URL+"/")
		var s scan.Scan
		r.call(t, "POST", "/sites/"+site.ID+"/scan", nil, &s)
		if s.Status != scan.ScanPending {
			t.Fatalf("trigger answered %q, want pending", s.Status)
		}
		got := r.waitScan(t, site.ID, s.ID, 30*time.Second)
		if got.Status != scan.ScanCompleted {
			t.Fatalf("scan %s: %v", got.Status, deref(got.ErrorMessage))
		}
		var ga *core.DetectedService
		for i, d := range got.DetectedServices {
			if d.Slug == "google-analytics" {
				ga = &got.DetectedServices[i]
			}
		}
		if ga == nil || !strings.Contains(strings.Join(ga.TrackingIDs, ","), "G-TEST12345") {
			t.Fatalf("detectedServices = %+v, want google-analytics with G-TEST12345", got.DetectedServices)
		}
		if got.PagesScanned < 1 || got.StartedAt == nil || got.FinishedAt == nil {
			t.Fatalf("scan = %+v, want pages and timestamps", got)
		}
		// What the engine computes reaches the API: the cookie on its service, the broken link.
		if len(ga.Cookies) != 1 || ga.Cookies[0].Name != "_ga" || ga.Cookies[0].Session || ga.Cookies[0].Duration != "1 hour" ||
			ga.Cookies[0].MaxAgeSeconds != 3600 || len(ga.Cookies[0].SeenAt) == 0 {
			t.Fatalf("google-analytics cookies = %+v, want _ga with where it was seen", ga.Cookies)
		}
		if len(got.PageErrors) != 1 || !strings.HasSuffix(got.PageErrors[0].URL, "/gone") ||
			got.PageErrors[0].Status == nil || *got.PageErrors[0].Status != 404 {
			t.Fatalf("pageErrors = %+v, want /gone with 404", got.PageErrors)
		}
	})
}

// TestAutoConfigureActsAsScanWorker: a site set to take a scan's findings configures the
// services its scan found through the worker, which acts as the system's "scan worker" (the
// audit log names it): it used to act as nobody, which was allowed only because no actor
// meant every right.
func TestAutoConfigureActsAsScanWorker(t *testing.T) {
	t.Parallel()
	r := serve(t, "sqlite", func(c *Config) { c.ScanMode = core.ScanStatic })
	target := targetSite(t)
	site := r.createSite(t, target.URL+"/")
	r.call(t, "PATCH", "/sites/"+site.ID, map[string]any{"autoConfigure": true}, nil)
	var s scan.Scan
	r.call(t, "POST", "/sites/"+site.ID+"/scan", nil, &s)
	// The worker configures the site just after it records the scan completed.
	got := r.waitScan(t, site.ID, s.ID, 30*time.Second)
	for deadline := time.Now().Add(10 * time.Second); got.Status == scan.ScanCompleted && len(got.AutoConfigured) == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		r.call(t, "GET", "/sites/"+site.ID+"/scans/"+s.ID, nil, got)
	}
	if got.Status != scan.ScanCompleted || len(got.AutoConfigured) == 0 {
		t.Fatalf("scan %s, auto-configured %v: want completed with google-analytics added", got.Status, got.AutoConfigured)
	}
	var log identity.AuditPage
	r.call(t, "GET", "/audit-log", nil, &log)
	for _, e := range log.Entries {
		if e.Action == core.AuditScanConfigure {
			if e.ActorKind != core.ActorSystem || e.ActorName != riverqueue.ActorScanWorker || e.Target != s.ID {
				t.Fatalf("scan configured by %s %q (target %s), want the system's %q on %s", e.ActorKind, e.ActorName, e.Target, riverqueue.ActorScanWorker, s.ID)
			}
			return
		}
	}
	t.Fatalf("no %s entry in the audit log (%d entries)", core.AuditScanConfigure, len(log.Entries))
}

// TestScanRefusedTarget: a target that refuses connections is retried, then the scan ends
// failed with a readable errorMessage.
func TestScanRefusedTarget(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dialect string) {
		r := serve(t, dialect, func(c *Config) { c.ScanMaxAttempts = 3 })
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + ln.Addr().String() + "/"
		ln.Close()
		site := r.createSite(t, closed)
		var s scan.Scan
		r.call(t, "POST", "/sites/"+site.ID+"/scan", nil, &s)
		got := r.waitScan(t, site.ID, s.ID, 30*time.Second)
		if got.Status != scan.ScanFailed || got.ErrorMessage == nil || !strings.Contains(*got.ErrorMessage, "refused") {
			t.Fatalf("scan = %s %q, want failed saying the connection was refused", got.Status, deref(got.ErrorMessage))
		}
		t.Logf("errorMessage: %s", *got.ErrorMessage)
		// River records the job's end a moment after the scan's (its completer batches).
		var attempt int
		var state string
		for deadline := time.Now().Add(10 * time.Second); state != "completed" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if err := r.store.DB().NewRaw("SELECT attempt, state FROM river_job WHERE kind = 'scan'").Scan(context.Background(), &attempt, &state); err != nil {
				t.Fatal(err)
			}
		}
		if attempt != 3 || state != "completed" {
			t.Fatalf("scan job: attempt %d, state %s; want the 3rd attempt to record the failure", attempt, state)
		}
	})
}

// TestPeriodicRescan: with a rescan interval, every site's homepage is scanned without anyone
// asking, and the audit log names the job that triggered the scans: a system actor, never
// nobody.
func TestPeriodicRescan(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dialect string) {
		r := serve(t, dialect, func(c *Config) { c.RescanInterval = 500 * time.Millisecond })
		target := targetSite(t)
		sites := []*core.Site{r.createSite(t, target.URL+"/"), r.createSite(t, target.URL+"/")}
		deadline := time.Now().Add(30 * time.Second)
		for _, site := range sites {
			for {
				var scans []scan.Scan
				r.call(t, "GET", "/sites/"+site.ID+"/scans", nil, &scans)
				if len(scans) > 0 && scans[len(scans)-1].Status == scan.ScanCompleted {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("site %s: no completed rescan (scans: %+v)", site.ID, scans)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		var log identity.AuditPage
		r.call(t, "GET", "/audit-log", nil, &log)
		triggered := map[string]bool{}
		for _, e := range log.Entries {
			if e.Action == core.AuditScanTrigger {
				if e.ActorKind != core.ActorSystem || e.ActorName != riverqueue.ActorScanScheduler {
					t.Errorf("scan of site %s triggered by %s %q, want the system's %q", e.SiteID, e.ActorKind, e.ActorName, riverqueue.ActorScanScheduler)
				}
				triggered[e.SiteID] = true
			}
		}
		for _, site := range sites {
			if !triggered[site.ID] {
				t.Errorf("site %s: no scan.trigger entry in the audit log (%d entries)", site.ID, len(log.Entries))
			}
		}
	})
}

// TestWorkerRefusesSQLite: the standalone worker explains that SQLite works scans in serve.
func TestWorkerRefusesSQLite(t *testing.T) {
	t.Parallel()
	a, err := New(context.Background(), Config{DatabaseURL: databaseURL(t, "sqlite"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.RunWorker(context.Background()); !errors.Is(err, ErrWorkerNeedsPostgres) {
		t.Fatalf("RunWorker on SQLite = %v", err)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
