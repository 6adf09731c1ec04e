package coretest

import (
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/usecases"
)

// testScanChanges: completing a scan stores what changed since the site's previous completed
// scan of the same mode, and reads it back whole; the first scan of a mode has none.
func testScanChanges(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	worker := scanWorker(t, s)
	scanOf := func(mode string, res *core.CrawlResult) *scan.Scan {
		t.Helper()
		sc := &scan.Scan{ID: id(), SiteID: f.site.ID, URL: f.site.URL, URLs: []string{f.site.URL}, Status: scan.ScanPending, Mode: mode, CreatedAt: now()}
		must(t, s.CreateScan(ctx, sc))
		must(t, worker.CompleteScan(workerCtx, sc.ID, res))
		got, err := s.ScanByID(ctx, sc.ID)
		must(t, err)
		return got
	}
	ga := core.DetectedService{Slug: "google-analytics", Name: "Google Analytics", Category: "statistics", TrackingIDs: []string{"G-1"},
		Cookies: []core.ObservedCookie{{Name: "_ga", Domain: "shop.example", Duration: "1 year", MaxAgeSeconds: 31536000}}}
	fb := core.DetectedService{Slug: "facebook-pixel", Name: "Meta Pixel", Category: "marketing",
		Cookies: []core.ObservedCookie{{Name: "_fbp", Domain: "shop.example", Duration: "3 months", MaxAgeSeconds: 7776000}}}

	first := scanOf(core.ScanStatic, &core.CrawlResult{ModeUsed: core.ScanStatic, DetectedServices: []core.DetectedService{ga}})
	if first.Changes != nil {
		t.Fatalf("first scan's changes = %+v, want null", first.Changes)
	}
	// A scan of another mode is not compared with the static one.
	if deep := scanOf(core.ScanDeep, &core.CrawlResult{ModeUsed: core.ScanDeep}); deep.Changes != nil {
		t.Fatalf("first deep scan's changes = %+v, want null", deep.Changes)
	}
	ga2 := ga
	ga2.Cookies = []core.ObservedCookie{{Name: "_ga_new", Domain: "shop.example", Duration: "1 year", MaxAgeSeconds: 31536000}}
	second := scanOf(core.ScanStatic, &core.CrawlResult{ModeUsed: core.ScanStatic, DetectedServices: []core.DetectedService{ga2, fb}})
	c := second.Changes
	if c == nil || c.PreviousScanID != first.ID {
		t.Fatalf("second scan's changes = %+v, want a comparison with %s", c, first.ID)
	}
	if len(c.ServicesAdded) != 1 || c.ServicesAdded[0].Slug != "facebook-pixel" || len(c.ServicesRemoved) != 0 {
		t.Fatalf("services added %+v removed %+v, want facebook-pixel added", c.ServicesAdded, c.ServicesRemoved)
	}
	var added []string
	for _, k := range c.CookiesAdded {
		added = append(added, k.Service+"/"+k.Name)
	}
	if len(added) != 2 || added[0] != "facebook-pixel/_fbp" || added[1] != "google-analytics/_ga_new" ||
		len(c.CookiesRemoved) != 1 || c.CookiesRemoved[0].Name != "_ga" || c.Count != 4 {
		t.Fatalf("cookies added %v removed %+v count %d, want _fbp and _ga_new added, _ga removed, 4 changes", added, c.CookiesRemoved, c.Count)
	}
}

// testSiteSchedules: a site's schedules and auto-configure setting round-trip, on create and
// update, and a scan's auto-configured services with it.
func testSiteSchedules(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	site, err := s.Site(ctx, f.org.ID, f.site.ID)
	must(t, err)
	site.ScanSchedule, site.VerifySchedule, site.AutoConfigure = scan.ScheduleWeekly, scan.ScheduleMonthly, true
	must(t, s.UpdateSite(ctx, site))
	got, err := s.Site(ctx, f.org.ID, f.site.ID)
	must(t, err)
	if got.ScanSchedule != scan.ScheduleWeekly || got.VerifySchedule != scan.ScheduleMonthly || !got.AutoConfigure {
		t.Fatalf("site read back as %+v", got)
	}
	sc := &scan.Scan{ID: id(), SiteID: f.site.ID, URL: f.site.URL, URLs: []string{f.site.URL}, Status: scan.ScanCompleted, Mode: core.ScanStatic, CreatedAt: now()}
	must(t, s.CreateScan(ctx, sc))
	sc.AutoConfigured = []string{"meta-pixel"}
	must(t, s.UpdateScan(ctx, sc))
	if back, err := s.ScanByID(ctx, sc.ID); err != nil || len(back.AutoConfigured) != 1 {
		t.Fatalf("scan read back as %+v (%v)", back, err)
	}
}
