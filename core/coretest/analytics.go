package coretest

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/consentd/consentd/core/analytics"
	"github.com/consentd/consentd/core/usecases"
)

// AnalyticsContract is the contract of analytics.Store: every adapter's store (which also
// implements usecases.Store, for the sites the counters belong to) must pass it.
func AnalyticsContract(t *testing.T, newStore func(t *testing.T) usecases.Store) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s usecases.Store, a analytics.Store)
	}{
		{"AddAndRead", testAnalyticsAddAndRead},
		{"Range", testAnalyticsRange},
		{"UnknownAndDeletedSites", testAnalyticsUnknownSites},
		{"ConcurrentAdders", testAnalyticsConcurrent},
		{"ConsentStatBuckets", testConsentStatBuckets},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			a, ok := s.(analytics.Store)
			if !ok {
				t.Fatalf("%T does not implement analytics.Store", s)
			}
			tc.fn(t, s, a)
		})
	}
}

func analyticsKey(site string, h time.Time, variant string) analytics.Key {
	return analytics.Key{SiteID: site, Hour: h, Country: "DE", RegionRule: "regionRules[0]", Device: analytics.DeviceMobile,
		Language: "de", BannerVersion: 2, Variant: variant}
}

// sample returns counts with every counter set to a distinct multiple of n, and two categories.
func sample(n int64) analytics.Counts {
	var c analytics.Counts
	for i, p := range c.Columns() {
		*p = n * int64(i+1)
	}
	c.Categories = map[string]analytics.Tally{"statistics": {Decisions: 3 * n, Granted: n}, "marketing": {Decisions: 2 * n}}
	return c
}

func rowsByKey(rows []analytics.Row) map[analytics.Key]analytics.Counts {
	m := map[analytics.Key]analytics.Counts{}
	for _, r := range rows {
		if _, dup := m[r.Key]; dup {
			panic(fmt.Sprintf("key %+v twice", r.Key))
		}
		m[r.Key] = r.Counts
	}
	return m
}

func sameCounts(t *testing.T, what string, got, want analytics.Counts) {
	t.Helper()
	if len(got.Categories) == 0 {
		got.Categories = nil
	}
	if len(want.Categories) == 0 {
		want.Categories = nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: got %+v, want %+v", what, got, want)
	}
}

func testAnalyticsAddAndRead(t *testing.T, s usecases.Store, a analytics.Store) {
	f := seed(t, s)
	h := now().Truncate(time.Hour)
	k1, k2 := analyticsKey(f.site.ID, h, ""), analyticsKey(f.site.ID, h, "b")
	must(t, a.AddAnalytics(ctx, analytics.Merge([]analytics.Row{{Key: k1, Counts: sample(1)}, {Key: k2, Counts: sample(5)}})))
	// Adding again adds up, a new category included.
	c := sample(2)
	c.Categories["extra"] = analytics.Tally{Decisions: 1, Granted: 1}
	must(t, a.AddAnalytics(ctx, []analytics.Row{{Key: k1, Counts: c}}))
	rows, err := a.AnalyticsRows(ctx, f.site.ID, h, h.Add(time.Hour))
	must(t, err)
	got := rowsByKey(rows)
	if len(got) != 2 {
		t.Fatalf("%d rows, want 2: %+v", len(rows), rows)
	}
	want := sample(3)
	want.Categories["extra"] = analytics.Tally{Decisions: 1, Granted: 1}
	sameCounts(t, "k1", got[k1], want)
	sameCounts(t, "k2", got[k2], sample(5))
	// A key differing in one dimension only is a row of its own.
	k3 := k1
	k3.BannerVersion = 3
	k4 := k1
	k4.Device = analytics.DeviceDesktop
	must(t, a.AddAnalytics(ctx, analytics.Merge([]analytics.Row{{Key: k3, Counts: sample(1)}, {Key: k4, Counts: sample(1)}})))
	rows, err = a.AnalyticsRows(ctx, f.site.ID, h, h.Add(time.Hour))
	must(t, err)
	if got := rowsByKey(rows); len(got) != 4 {
		t.Fatalf("%d rows, want 4", len(got))
	}
	// Nothing to add is no error.
	must(t, a.AddAnalytics(ctx, nil))
}

func testAnalyticsRange(t *testing.T, s usecases.Store, a analytics.Store) {
	f, g := seed(t, s), seed(t, s)
	h := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var rows []analytics.Row
	for i := range 5 {
		rows = append(rows, analytics.Row{Key: analyticsKey(f.site.ID, h.Add(time.Duration(i)*time.Hour), ""), Counts: sample(int64(i + 1))})
		rows = append(rows, analytics.Row{Key: analyticsKey(g.site.ID, h.Add(time.Duration(i)*time.Hour), ""), Counts: sample(100)})
	}
	must(t, a.AddAnalytics(ctx, analytics.Merge(rows)))
	got, err := a.AnalyticsRows(ctx, f.site.ID, h.Add(time.Hour), h.Add(4*time.Hour))
	must(t, err)
	var hours []int
	for _, r := range got {
		if r.SiteID != f.site.ID {
			t.Fatalf("row of another site: %+v", r.Key)
		}
		if !r.Hour.Equal(r.Hour.UTC()) || r.Hour.Location() != time.UTC {
			t.Fatalf("hour %v not in UTC", r.Hour)
		}
		hours = append(hours, int(r.Hour.Sub(h)/time.Hour))
		sameCounts(t, r.Hour.String(), r.Counts, sample(int64(r.Hour.Sub(h)/time.Hour)+1))
	}
	sort.Ints(hours)
	if !reflect.DeepEqual(hours, []int{1, 2, 3}) {
		t.Fatalf("hours %v, want [1 2 3] (from inclusive, to exclusive)", hours)
	}
}

func testAnalyticsUnknownSites(t *testing.T, s usecases.Store, a analytics.Store) {
	f, g := seed(t, s), seed(t, s)
	h := now().Truncate(time.Hour)
	// A site that does not exist (deleted between count and flush) does not stop the others.
	must(t, a.AddAnalytics(ctx, analytics.Merge([]analytics.Row{
		{Key: analyticsKey(id(), h, ""), Counts: sample(1)}, {Key: analyticsKey(f.site.ID, h, ""), Counts: sample(1)},
		{Key: analyticsKey(g.site.ID, h, ""), Counts: sample(1)},
	})))
	rows, err := a.AnalyticsRows(ctx, f.site.ID, h, h.Add(time.Hour))
	must(t, err)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	// A deleted site's counters go with it.
	must(t, s.DeleteSite(ctx, g.site.ID))
	rows, err = a.AnalyticsRows(ctx, g.site.ID, h, h.Add(time.Hour))
	must(t, err)
	if len(rows) != 0 {
		t.Fatalf("deleted site: %d rows", len(rows))
	}
	must(t, a.AddAnalytics(ctx, []analytics.Row{{Key: analyticsKey(g.site.ID, h, ""), Counts: sample(1)}}))
}

// testAnalyticsConcurrent adds the same keys from several writers at once (as several
// processes flushing do): the sums are exact and no writer fails.
func testAnalyticsConcurrent(t *testing.T, s usecases.Store, a analytics.Store) {
	f := seed(t, s)
	h := now().Truncate(time.Hour)
	keys := []analytics.Key{analyticsKey(f.site.ID, h, ""), analyticsKey(f.site.ID, h, "a"), analyticsKey(f.site.ID, h, "b")}
	const writers, rounds = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				var rows []analytics.Row
				for i := range keys {
					// Every writer lists the keys in another order: the store must not deadlock.
					rows = append(rows, analytics.Row{Key: keys[(i+w)%len(keys)], Counts: sample(1)})
				}
				if err := a.AddAnalytics(ctx, analytics.Merge(rows)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rows, err := a.AnalyticsRows(ctx, f.site.ID, h, h.Add(time.Hour))
	must(t, err)
	got := rowsByKey(rows)
	for _, k := range keys {
		sameCounts(t, k.Variant, got[k], sample(writers*rounds))
	}
}
