package app

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/crawler/browser/browsertest"
	"github.com/consentd/consentd/crawler/crawlertest"
)

// TestVerifyScanOverHTTP: on SQLite, a scan with mode verify triggered over HTTP runs the
// verification on a worker's browser against the recorded clean site (its hosts reached
// through CONSENTD_SCAN_CONNECT_TO and CONSENTD_SCAN_CA_CERT), and the Scan stores what each
// consent state saw, under the site's project key.
func TestVerifyScanOverHTTP(t *testing.T) {
	t.Parallel()
	needChromium(t)
	dir := filepath.Join("..", "testdata", "verify", "clean")
	cfg, rule, caFile := crawlertest.ServeTLS(t, dir, bannerjs.Handler())
	r := serve(t, "sqlite", func(c *Config) {
		c.ScanConnectTo = []string{rule}
		c.ScanCACert, c.ChromiumPath = caFile, browsertest.Path
		c.ScanTimeout = 2 * time.Minute
	})
	site := r.createSite(t, cfg.Start[0])
	var s scan.Scan
	r.call(t, "POST", "/sites/"+site.ID+"/scan", map[string]string{"mode": "verify"}, &s)
	if s.Mode != core.ScanVerify {
		t.Fatalf("trigger: mode %q", s.Mode)
	}
	got := r.waitScan(t, site.ID, s.ID, 2*time.Minute)
	if got.Status != scan.ScanCompleted || got.ModeUsed == nil || *got.ModeUsed != core.ScanVerify {
		t.Fatalf("scan %s (%v): %v", got.Status, got.ModeUsed, deref(got.ErrorMessage))
	}
	v := got.Verification
	if v == nil || v.Banner != core.BannerConsentd || v.ProjectKey == nil || *v.ProjectKey != site.ProjectKey || !v.RejectOnFirstLayer {
		t.Fatalf("verification %+v", v)
	}
	var states []string
	accepted := 0
	for _, st := range v.States {
		states = append(states, st.State)
		if st.State == core.StateAcceptAll {
			accepted = len(st.Requests)
		}
		if st.State == core.StateRejectAll && len(st.Requests)+len(st.Cookies) != 0 {
			t.Errorf("reject_all stored %+v", st)
		}
	}
	if len(states) != 4 || states[0] != core.StateNoDecision || states[3] != core.StateWithdrawn || accepted == 0 {
		t.Fatalf("states %v, %d requests after accept", states, accepted)
	}
	// The no_decision state is a deep scan of the 10 pages too.
	if got.PagesScanned != 10 {
		t.Errorf("%d pages scanned", got.PagesScanned)
	}
}
