package coretest

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/usecases"
)

func consentAt(siteID string, at time.Time, visitor string) *consent.ConsentRecord {
	return &consent.ConsentRecord{
		ID: id(), SiteID: siteID, VisitorID: visitor, IPCountry: "FR", Jurisdiction: core.JurisdictionGDPR,
		CategoriesConsented: map[string]bool{"essential": true, "statistics": true, "marketing": false},
		ConsentVersion:      2, Action: "custom", CreatedAt: at,
	}
}

// newestFirst is the listing order: createdAt descending, then id descending.
func newestFirst(a, b *consent.ConsentRecord) int {
	return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
}

func inRange(r *consent.ConsentRecord, from, to *time.Time) bool {
	return (from == nil || r.CreatedAt.After(*from)) && (to == nil || r.CreatedAt.Before(*to))
}

func ids(rs []*consent.ConsentRecord) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// testConsentTotals checks exact totals and pages for date ranges whose bounds fall on hour
// boundaries, on record timestamps, inside hours and outside the data, as stores that keep
// per-period counters must get every edge right.
func testConsentTotals(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	other := seed(t, s)
	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	var all []*consent.ConsentRecord
	add := func(at time.Time) {
		r := consentAt(f.site.ID, at, fmt.Sprint("v", len(all)))
		must(t, s.CreateConsentRecord(ctx, r))
		all = append(all, r)
	}
	for h := range 6 {
		add(base.Add(time.Duration(h) * time.Hour)) // exactly on the hour
		for range 4 {
			add(base.Add(time.Duration(h)*time.Hour + time.Duration(rng.Int64N(int64(time.Hour)))).Truncate(time.Microsecond))
		}
	}
	add(all[3].CreatedAt) // a tie on createdAt
	add(base.Add(30 * 24 * time.Hour))
	must(t, s.CreateConsentRecord(ctx, consentAt(other.site.ID, base.Add(90*time.Minute), "other")))
	slices.SortFunc(all, newestFirst)

	bounds := []*time.Time{nil}
	for _, d := range []time.Duration{-time.Hour, 0, time.Microsecond, 30 * time.Minute, time.Hour, 2*time.Hour + time.Second, 3 * time.Hour, 5*time.Hour + 59*time.Minute, 24 * time.Hour, 40 * 24 * time.Hour} {
		b := base.Add(d)
		bounds = append(bounds, &b)
	}
	for _, r := range all[:4] {
		b := r.CreatedAt
		bounds = append(bounds, &b)
	}
	for _, from := range bounds {
		for _, to := range bounds {
			var want []*consent.ConsentRecord
			for _, r := range all {
				if inRange(r, from, to) {
					want = append(want, r)
				}
			}
			page, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, From: from, To: to, Page: 1, Limit: 7})
			must(t, err)
			if total != len(want) {
				t.Fatalf("from %v to %v: total %d, want %d", from, to, total, len(want))
			}
			if !slices.Equal(ids(page), ids(want[:min(7, len(want))])) {
				t.Fatalf("from %v to %v: page 1 is not the newest 7", from, to)
			}
		}
	}
	// Every page, in order, is the whole history once.
	var got []*consent.ConsentRecord
	for p := 1; ; p++ {
		page, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: p, Limit: 4})
		must(t, err)
		if total != len(all) {
			t.Fatalf("total %d, want %d", total, len(all))
		}
		if len(page) == 0 {
			break
		}
		got = append(got, page...)
	}
	if !slices.Equal(ids(got), ids(all)) {
		t.Fatal("pages do not list every record once, newest first")
	}
	if !got[0].CategoriesConsented["statistics"] || got[0].ConsentVersion != 2 || got[0].IPCountry != "FR" {
		t.Fatalf("record round trip: %+v", got[0])
	}
	_, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: id(), Page: 1, Limit: 10})
	must(t, err)
	if total != 0 {
		t.Fatal("a site with no records has a total")
	}
}

// testConsentConcurrentAndExport writes records from many goroutines at once (many sharing a
// timestamp), then checks that the total is exact, that none was lost, and that
// EachConsentRecord streams exactly the listing order, across any internal batch size.
func testConsentConcurrentAndExport(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	other := seed(t, s)
	base := time.Date(2026, 5, 4, 23, 0, 0, 0, time.UTC)
	const writers, each = 12, 110
	recs := make([][]*consent.ConsentRecord, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				// 20 distinct timestamps over two hours and a day boundary: many ties.
				r := consentAt(f.site.ID, base.Add(time.Duration((w*each+i)%20)*6*time.Minute), fmt.Sprint("w", w, "-", i))
				if err := s.CreateConsentRecord(ctx, r); err != nil {
					errs[w] = err
					return
				}
				recs[w] = append(recs[w], r)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 20 {
			if err := s.CreateConsentRecord(ctx, consentAt(other.site.ID, base, fmt.Sprint("o", i))); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
	must(t, errors.Join(errs...))
	all := slices.Concat(recs...)
	slices.SortFunc(all, newestFirst)

	_, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 1, Limit: 100})
	must(t, err)
	if total != writers*each {
		t.Fatalf("total %d after %d concurrent writes", total, writers*each)
	}
	var got []*consent.ConsentRecord
	must(t, s.EachConsentRecord(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 3, Limit: 1}, func(r *consent.ConsentRecord) error {
		got = append(got, r)
		return nil
	}))
	if !slices.Equal(ids(got), ids(all)) {
		t.Fatalf("export: %d records, want %d, newest first, each once", len(got), len(all))
	}
	if got[0].SiteID != f.site.ID || got[0].Action != "custom" || !got[0].CategoriesConsented["essential"] {
		t.Fatalf("export round trip: %+v", got[0])
	}
	from, to := base.Add(30*time.Minute), base.Add(90*time.Minute)
	var want []string
	for _, r := range all {
		if inRange(r, &from, &to) {
			want = append(want, r.ID)
		}
	}
	got = got[:0]
	must(t, s.EachConsentRecord(ctx, consent.ConsentQuery{SiteID: f.site.ID, From: &from, To: &to}, func(r *consent.ConsentRecord) error {
		got = append(got, r)
		return nil
	}))
	if !slices.Equal(ids(got), want) {
		t.Fatalf("export with dates: %d records, want %d", len(got), len(want))
	}
	stop := errors.New("stop")
	n := 0
	err = s.EachConsentRecord(ctx, consent.ConsentQuery{SiteID: f.site.ID}, func(*consent.ConsentRecord) error {
		n++
		if n == 5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 5 {
		t.Fatalf("export did not stop at fn's error: %v after %d", err, n)
	}
	n = 0
	must(t, s.EachConsentRecord(ctx, consent.ConsentQuery{SiteID: id()}, func(*consent.ConsentRecord) error { n++; return nil }))
	if n != 0 {
		t.Fatal("export of an unknown site is not empty")
	}
}

func testConsentMissingSite(t *testing.T, s usecases.Store) {
	wantCode(t, s.CreateConsentRecord(ctx, consentAt(id(), now(), "v")), core.CodeNotFound)
	// A failing record does not take the records written with it down.
	f := seed(t, s)
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			site := f.site.ID
			if i%4 == 0 {
				site = id()
			}
			errs[i] = s.CreateConsentRecord(ctx, consentAt(site, now(), "v"))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if i%4 == 0 {
			wantCode(t, err, core.CodeNotFound)
		} else {
			must(t, err)
		}
	}
	_, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 1, Limit: 1})
	must(t, err)
	if total != 30 {
		t.Fatalf("total %d, want 30", total)
	}
}

// testMissingParents: a write naming a parent that does not exist is not_found.
func testMissingParents(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	wantCode(t, s.CreateSite(ctx, &core.Site{ID: id(), OrganizationID: id(), Name: "x", URL: "https://x", ProjectKey: "pk_" + id(), CreatedAt: now(), UpdatedAt: now()}), core.CodeNotFound)
	wantCode(t, s.CreateAPIKey(ctx, &identity.APIKey{ID: id(), OrganizationID: id(), Hash: "h" + id(), CreatedAt: now()}), core.CodeNotFound)
	wantCode(t, s.CreateCategory(ctx, &banner.Category{ID: id(), SiteID: id(), Slug: "x", Name: "x",
		NameTranslations: map[string]string{}, DescriptionTranslations: map[string]string{}, CreatedAt: now(), UpdatedAt: now()}), core.CodeNotFound)
	wantCode(t, s.CreateScan(ctx, &scan.Scan{ID: id(), SiteID: id(), URL: "https://x", URLs: []string{"https://x"}, Status: scan.ScanPending, CreatedAt: now()}), core.CodeNotFound)
	svc := newService(f, "orphan", "marketing", "c")
	svc.CategoryID = id()
	wantCode(t, s.CreateService(ctx, svc), core.CodeNotFound)
	list, err := s.Services(ctx, f.site.ID)
	must(t, err)
	if len(list) != 0 {
		t.Fatal("a failed service create left a row")
	}
}

// testMalformedIDs: an identifier that is not a UUID finds nothing (Postgres uuid columns
// must not turn it into an internal error).
func testMalformedIDs(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	const bad = "not-a-uuid"
	for name, err := range map[string]error{
		"Organization":  second(s.Organization(ctx, bad)),
		"Site":          second(s.Site(ctx, bad, f.site.ID)),
		"Banner":        second(s.Banner(ctx, bad)),
		"Category":      second(s.Category(ctx, f.site.ID, bad)),
		"Service":       second(s.Service(ctx, f.site.ID, bad)),
		"Scan":          second(s.Scan(ctx, f.site.ID, bad)),
		"ScanByID":      second(s.ScanByID(ctx, bad)),
		"UpdateSite":    s.UpdateSite(ctx, &core.Site{ID: bad}),
		"DeleteSite":    s.DeleteSite(ctx, bad),
		"DeleteService": s.DeleteService(ctx, f.site.ID, bad),
		"DeleteCat":     s.DeleteCategory(ctx, f.site.ID, bad),
	} {
		if core.ErrorCode(err) != core.CodeNotFound {
			t.Errorf("%s(%q): %v, want not_found", name, bad, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// testConsentIdempotencyKey: a record's idempotency key is unique per site (a second record
// under it is a conflict, another site may use it) and finds the record.
func testConsentIdempotencyKey(t *testing.T, s usecases.Store) {
	f, g := seed(t, s), seed(t, s)
	r := consentAt(f.site.ID, now(), "v1")
	r.IdempotencyKey = "key-0123456789abcdef"
	must(t, s.CreateConsentRecord(ctx, r))
	again := consentAt(f.site.ID, now(), "v1")
	again.IdempotencyKey = r.IdempotencyKey
	wantCode(t, s.CreateConsentRecord(ctx, again), core.CodeConflict)
	elsewhere := consentAt(g.site.ID, now(), "v1")
	elsewhere.IdempotencyKey = r.IdempotencyKey
	must(t, s.CreateConsentRecord(ctx, elsewhere))
	for range 2 { // records without a key are not one another's duplicates
		must(t, s.CreateConsentRecord(ctx, consentAt(f.site.ID, now(), "v2")))
	}
	got, err := s.ConsentRecordByKey(ctx, f.site.ID, r.IdempotencyKey)
	must(t, err)
	if got.ID != r.ID || got.IdempotencyKey != r.IdempotencyKey || got.VisitorID != "v1" {
		t.Fatalf("by key: %+v, want record %s", got, r.ID)
	}
	_, err = s.ConsentRecordByKey(ctx, f.site.ID, "key-not-stored-000000")
	wantCode(t, err, core.CodeNotFound)
	_, err = s.ConsentRecordByKey(ctx, f.site.ID, "")
	wantCode(t, err, core.CodeNotFound)
	_, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 1, Limit: 10})
	must(t, err)
	if total != 3 {
		t.Fatalf("%d records, want 3", total)
	}
}
