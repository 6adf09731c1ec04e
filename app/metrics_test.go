package app

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
)

// TestMetricsFamilies scrapes /metrics after some traffic (requests, a consent decision, a
// scan, a failed query) and finds each family the dashboard uses, with its labels. It is not
// parallel: the metrics live in process-wide state (the global meter provider each server
// sets, Prometheus' default registry), which another test's server started meanwhile takes
// over (seen in CI: the queue depth and the connection pool's gauges missing).
func TestMetricsFamilies(t *testing.T) {
	r := serve(t, "sqlite", nil)
	target := targetSite(t)
	site := r.createSite(t, target.URL+"/")
	var s scan.Scan
	r.call(t, "POST", "/sites/"+site.ID+"/scan", map[string]any{"mode": "static"}, &s)
	if got := r.waitScan(t, site.ID, s.ID, 30*time.Second); got.Status != scan.ScanCompleted {
		t.Fatalf("scan %s", got.Status)
	}
	r.call(t, "POST", "/public/"+site.ProjectKey+"/consent", map[string]any{
		"categories": map[string]bool{"statistics": true, "marketing": false}, "consentVersion": 1}, nil)
	// A query the database refuses (a duplicate primary key) counts as a store error.
	org := &identity.Organization{ID: site.OrganizationID, Name: "dup", CreatedAt: time.Now()}
	if err := r.store.CreateOrganization(t.Context(), org); err == nil {
		t.Fatal("duplicate organization stored")
	}

	res, err := http.Get(strings.TrimSuffix(r.base, "/api/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	text := string(b)
	for _, want := range []string{
		`consentd_http_requests_total{method="POST",route="POST /api/v1/sites/{id}/scan",status="201"}`,
		`consentd_http_request_duration_seconds_bucket{route="GET /api/v1/sites/{id}/scans/{scanId}",le=`,
		`consentd_consent_records_total{action="custom",jurisdiction="none"}`,
		`consentd_scans_total{mode="static",status="completed"}`,
		`consentd_scan_duration_seconds_count{mode="static",status="completed"}`,
		`consentd_crawler_pages_total `,
		`consentd_crawler_bytes_total `,
		`consentd_crawler_matches_total{kind="service"}`,
		`consentd_queue_jobs{state="available"}`,
		`consentd_queue_jobs{state="running"}`,
		`consentd_job_latency_seconds_count{kind="scan"}`,
		`consentd_store_errors_total{operation="INSERT"}`,
		`go_sql_open_connections{db_name="consentd"}`,
		`go_sql_in_use_connections{db_name="consentd"}`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if m := regexp.MustCompile(`consentd_crawler_pages_total (\d+)`).FindStringSubmatch(text); m == nil || m[1] == "0" {
		t.Errorf("no pages counted: %v", m)
	}
}
