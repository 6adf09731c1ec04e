package core_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/usecases"
)

// TestRunSchedules: sites follow their own schedule or the deployment's default, a scan is
// triggered once per run of the schedule, verification follows its own schedule, and the
// runs of many sites spread over the period.
func TestRunSchedules(t *testing.T) {
	clock := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	var n int
	q := &fakeQueue{}
	var sites listerOf
	store := memstore.New()
	m, err := usecases.New(usecases.Deps{Store: store, Queue: q, Catalog: emptyCatalog(t), AllSites: &sites, ScanMode: core.ScanStatic,
		DefaultScanPeriod: 30 * 24 * time.Hour, Now: func() time.Time { return clock },
		NewID: func() string { n++; return fmt.Sprintf("00000000-0000-7000-8000-%012d", n) }})
	if err != nil {
		t.Fatal(err)
	}
	org, _ := m.Orgs.CreateOrganization(ctx, "acme")
	mk := func(name string, in site.SiteInput) *core.Site {
		in.Name, in.URL = ptr(name), ptr("https://"+name+".example")
		s, err := m.Sites.CreateSite(ctx, org.ID, in)
		if err != nil {
			t.Fatal(err)
		}
		sites = append(sites, s)
		return s
	}
	daily := mk("daily", site.SiteInput{ScanSchedule: ptr(scan.ScheduleDaily), VerifySchedule: ptr(scan.ScheduleWeekly)})
	mk("default", site.SiteInput{})
	mk("off", site.SiteInput{ScanSchedule: ptr(scan.ScheduleOff)})

	// Never scanned: every schedule is due at once (the off site excepted).
	got, err := m.ScanWorker.RunSchedules(ctx)
	if err != nil || got != 3 {
		t.Fatalf("first tick triggered %d scans (%v), want 3: daily, its verification, default", got, err)
	}
	// Pending scans are not doubled.
	if got, _ := m.ScanWorker.RunSchedules(ctx); got != 0 {
		t.Fatalf("second tick triggered %d scans, want 0", got)
	}
	for _, j := range q.jobs {
		if err := m.ScanWorker.FailScan(ctx, j.ScanID, "test"); err != nil {
			t.Fatal(err)
		}
	}
	// A day later the daily scan is due again, the weekly verification only if its run
	// (spread over the week) started meanwhile; within a run, once.
	start := clock
	clock = clock.Add(24*time.Hour + time.Minute)
	q.jobs = nil
	want := 1
	if !scan.NextScheduledRun(start, 7*24*time.Hour, daily.ID, core.ScanVerify).After(clock) {
		want = 2
	}
	if got, _ := m.ScanWorker.RunSchedules(ctx); got != want || q.jobs[0].SiteID != daily.ID || q.jobs[0].Mode != core.ScanStatic {
		t.Fatalf("a day later: %d scans %+v, want %d of the daily site", got, q.jobs, want)
	}
	if got, _ := m.ScanWorker.RunSchedules(ctx); got != 0 {
		t.Fatalf("a second tick in the same run triggered %d scans", got)
	}

	// Spread: the next runs of 1,000 sites on a daily schedule fall in many hours of the day.
	hours := map[int]bool{}
	for i := range 1000 {
		next := scan.NextScheduledRun(clock, 24*time.Hour, fmt.Sprintf("site-%d", i), core.ScanStatic)
		if !next.After(clock) || next.Sub(clock) > 24*time.Hour {
			t.Fatalf("next run %s is not within a day of %s", next, clock)
		}
		hours[next.Hour()] = true
	}
	if len(hours) < 24 {
		t.Errorf("1,000 daily runs fall in %d hours of the day, want all 24", len(hours))
	}
}

// TestAutoConfigure: with the setting on, a completed scan's new services are added to the
// site and named on the scan; off (the default), nothing is added.
func TestAutoConfigure(t *testing.T) {
	m, q, c := newCore(t)
	org, s := mustSite(t, m)
	c.res = &core.CrawlResult{DetectedServices: []core.DetectedService{{Slug: "stats", Name: "Stats", Category: "statistics"}}}
	run := func() *scan.Scan {
		t.Helper()
		sc, err := m.Scans.TriggerScan(ctx, org, s.ID, scan.ScanInput{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.ScanWorker.RunScan(ctx, q.jobs[len(q.jobs)-1], false); err != nil {
			t.Fatal(err)
		}
		got, _ := m.Scans.Scan(ctx, org, s.ID, sc.ID)
		return got
	}
	if sc := run(); len(sc.AutoConfigured) != 0 {
		t.Fatalf("auto-configure off, yet %v added", sc.AutoConfigured)
	}
	if svcs, _ := m.Services.Services(ctx, org, s.ID); len(svcs) != 0 {
		t.Fatalf("auto-configure off, yet %d services", len(svcs))
	}
	if _, err := m.Sites.UpdateSite(ctx, org, s.ID, site.SiteInput{AutoConfigure: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if sc := run(); fmt.Sprint(sc.AutoConfigured) != "[stats]" {
		t.Fatalf("auto-configured %v, want [stats]", sc.AutoConfigured)
	}
	if svcs, _ := m.Services.Services(ctx, org, s.ID); len(svcs) != 1 || svcs[0].Slug != "stats" {
		t.Fatalf("services after auto-configure: %v", svcs)
	}
	if sc := run(); len(sc.AutoConfigured) != 0 {
		t.Fatalf("a second scan added %v again", sc.AutoConfigured)
	}
}
