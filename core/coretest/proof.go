package coretest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/analytics"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/usecases"
)

// randomConsent is a sealed record with random decisions, as RecordConsent would store it.
func randomConsent(rng *rand.Rand, siteID string, at time.Time, visitor string) *consent.ConsentRecord {
	jur := []string{core.JurisdictionGDPR, core.JurisdictionCCPA, core.JurisdictionNone}[rng.IntN(3)]
	r := &consent.ConsentRecord{
		ID: id(), SiteID: siteID, VisitorID: visitor, IPCountry: "DE", Jurisdiction: jur,
		CategoriesConsented: map[string]bool{"essential": true, "statistics": rng.IntN(2) == 0, "marketing": rng.IntN(3) == 0},
		GPCSignal:           rng.IntN(4) == 0, ConsentVersion: 1 + rng.IntN(3), Action: consent.ConsentActions()[rng.IntN(4)],
		CreatedAt: at.UTC().Truncate(time.Microsecond), PageURL: "https://shop.example/p/" + fmt.Sprint(rng.IntN(5)),
		UserAgent: "Firefox desktop", SnapshotHash: core.GenesisHash,
	}
	if rng.IntN(5) == 0 {
		delete(r.CategoriesConsented, "marketing") // a category created later
	}
	consent.SealConsentRecord(r)
	return r
}

func verifyOK(t *testing.T, s usecases.Store, siteID string) *consent.ChainReport {
	t.Helper()
	rep, err := consent.VerifyConsentChain(ctx, s, siteID)
	must(t, err)
	if !rep.OK {
		t.Fatalf("chain of %s does not verify: %+v", siteID, rep.Break)
	}
	return rep
}

// testConsentChain: records written concurrently to two sites form one verifiable chain per
// site; every record is in a batch, and the export carries each record's batch link.
func testConsentChain(t *testing.T, s usecases.Store) {
	f, g := seed(t, s), seed(t, s)
	rep := verifyOK(t, s, f.site.ID)
	if rep.Records != 0 || rep.Chain.HeadHash != core.GenesisHash {
		t.Fatalf("empty chain: %+v", rep)
	}
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range 25 {
				site := f.site.ID
				if i%3 == 0 {
					site = g.site.ID
				}
				if err := s.CreateConsentRecord(ctx, randomConsent(rng, site, now(), fmt.Sprint("v", w))); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		must(t, err)
	}
	rf, rg := verifyOK(t, s, f.site.ID), verifyOK(t, s, g.site.ID)
	if rf.Records+rg.Records != 16*25 || rf.Records != 16*16 {
		t.Fatalf("chains cover %d + %d records, want %d + %d", rf.Records, rg.Records, 16*16, 16*9)
	}
	if rf.Chain.HeadSeq != rf.Batches || rf.Batches < 1 {
		t.Fatalf("head %d after %d batches", rf.Chain.HeadSeq, rf.Batches)
	}
	seen := map[int64]int{}
	must(t, s.EachConsentRecord(ctx, consent.ConsentQuery{SiteID: f.site.ID}, func(r *consent.ConsentRecord) error {
		if r.BatchSeq < 1 || r.BatchHash == "" || r.PrevBatchHash == "" || r.RecordHash != consent.ConsentRecordHash(r) {
			return fmt.Errorf("record %s lacks its chain fields: %+v", r.ID, r)
		}
		seen[r.BatchSeq]++
		return nil
	}))
	if int64(len(seen)) != rf.Batches {
		t.Fatalf("export names %d batches, the chain has %d", len(seen), rf.Batches)
	}
	_, err := consent.VerifyConsentChain(ctx, s, id())
	wantCode(t, err, core.CodeNotFound)
}

// testConsentStatBuckets: the statistics' aggregates, counted by the analytics as records are
// stored (half flushed to the store, half still in memory), equal a brute-force count over
// random records.
func testConsentStatBuckets(t *testing.T, s usecases.Store, a analytics.Store) {
	an := &analytics.Analytics{Agg: &analytics.Aggregator{Store: a}}
	f, other := seed(t, s), seed(t, s)
	rng := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2026, 2, 27, 20, 0, 0, 0, time.UTC)
	want := map[time.Time]*consent.ConsentBucketStat{}
	for range 300 {
		at := base.Add(time.Duration(rng.Int64N(int64(60 * time.Hour))))
		r := randomConsent(rng, f.site.ID, at, "v")
		an.CountDecision(r, consent.ConsentInput{UserAgent: []string{"", "Mozilla/5.0 (iPhone) Mobile", "Googlebot/2.1"}[rng.IntN(3)]})
		if rng.IntN(2) == 0 {
			must(t, an.Agg.Flush(ctx))
		}
		h := r.CreatedAt.Truncate(time.Hour)
		if want[h] == nil {
			want[h] = &consent.ConsentBucketStat{Start: h}
		}
		want[h].Add(r)
	}
	an.CountDecision(randomConsent(rng, other.site.ID, base.Add(time.Hour), "o"), consent.ConsentInput{})
	from, to := base.Add(5*time.Hour), base.Add(50*time.Hour)
	got, err := an.ConsentStatBuckets(core.WithActor(ctx, core.System("coretest")), f.site.ID, from, to, consent.StatsHour)
	must(t, err)
	n := 0
	for h, w := range want {
		if h.Before(from) || !h.Before(to) {
			continue
		}
		n++
		i := slices.IndexFunc(got, func(g consent.ConsentBucketStat) bool { return g.Start.Equal(h) })
		if i < 0 {
			t.Fatalf("hour %v missing", h)
		}
		g := got[i]
		if g.Total != w.Total || g.GPCSignal != w.GPCSignal {
			t.Fatalf("hour %v: total %d gpc %d, want %d %d", h, g.Total, g.GPCSignal, w.Total, w.GPCSignal)
		}
		for k, v := range w.Actions {
			if g.Actions[k] != v {
				t.Fatalf("hour %v action %s: %d, want %d", h, k, g.Actions[k], v)
			}
		}
		for k, v := range w.Jurisdictions {
			if g.Jurisdictions[k] != v {
				t.Fatalf("hour %v jurisdiction %s: %d, want %d", h, k, g.Jurisdictions[k], v)
			}
		}
		for k, v := range w.Categories {
			if g.Categories[k] != v {
				t.Fatalf("hour %v category %s: %+v, want %+v", h, k, g.Categories[k], v)
			}
		}
	}
	if len(got) != n || !slices.IsSortedFunc(got, func(a, b consent.ConsentBucketStat) int { return a.Start.Compare(b.Start) }) {
		t.Fatalf("%d hours, want %d in order", len(got), n)
	}
}

// testConsentErasure: erasing a visitor removes their ID from their records only, the chain
// still verifies, and the visitor filter finds nothing of them afterwards.
func testConsentErasure(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 12 {
		v := "visitor-keep"
		if i%3 == 0 {
			v = "visitor-erase"
		}
		must(t, s.CreateConsentRecord(ctx, randomConsent(rng, f.site.ID, now(), v)))
	}
	page, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, VisitorID: "visitor-erase", Page: 1, Limit: 100})
	must(t, err)
	if total != 4 || len(page) != 4 || page[0].VisitorID != "visitor-erase" {
		t.Fatalf("visitor filter: %d of %d", len(page), total)
	}
	n, err := s.EraseConsentVisitor(ctx, f.site.ID, "visitor-erase")
	must(t, err)
	if n != 4 {
		t.Fatalf("erased %d records, want 4", n)
	}
	_, total, err = s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, VisitorID: "visitor-erase", Page: 1, Limit: 100})
	must(t, err)
	_, all, err2 := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 1, Limit: 100})
	must(t, err2)
	if total != 0 || all != 12 {
		t.Fatalf("after erasure: %d of the visitor's, %d in all", total, all)
	}
	verifyOK(t, s, f.site.ID)
	must(t, s.EachConsentRecord(ctx, consent.ConsentQuery{SiteID: f.site.ID}, func(r *consent.ConsentRecord) error {
		if r.VisitorID == "" && (r.VisitorSalt != "" || r.VisitorHash == "") {
			return fmt.Errorf("erased record %s keeps its salt or lost its hash", r.ID)
		}
		return nil
	}))
}

// testConsentRetention: whole old batches go, the chain verifies from its anchor, totals
// follow and the statistics keep what was removed.
func testConsentRetention(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	rng := rand.New(rand.NewPCG(8, 9))
	old := time.Date(2025, 1, 10, 12, 0, 0, 0, time.UTC)
	for i := range 9 {
		must(t, s.CreateConsentRecord(ctx, randomConsent(rng, f.site.ID, old.Add(time.Duration(i)*time.Hour), "v")))
	}
	recent := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	for i := range 5 {
		must(t, s.CreateConsentRecord(ctx, randomConsent(rng, f.site.ID, recent.Add(time.Duration(i)*time.Minute), "v")))
	}
	n, err := s.RemoveConsentBatches(ctx, f.site.ID, recent.Add(-24*time.Hour), 1000)
	must(t, err)
	if n != 9 {
		t.Fatalf("retention removed %d records, want 9", n)
	}
	rep := verifyOK(t, s, f.site.ID)
	if rep.Records != 5 || rep.Chain.AnchorSeq == 0 || rep.Chain.AnchorHash == core.GenesisHash {
		t.Fatalf("after retention: %+v", rep)
	}
	_, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 1, Limit: 10})
	must(t, err)
	from := old.Add(-time.Hour)
	_, ranged, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, From: &from, Page: 1, Limit: 10})
	must(t, err)
	if total != 5 || ranged != 5 {
		t.Fatalf("totals after retention: %d and %d, want 5", total, ranged)
	}
	n, err = s.RemoveConsentBatches(ctx, f.site.ID, recent.Add(-24*time.Hour), 1000)
	must(t, err)
	if n != 0 {
		t.Fatalf("a second run removed %d", n)
	}
}

// testConsentCursorAndVisitor: walking the listing by cursor gives the page order, each
// record once, with and without a visitor filter.
func testConsentCursorAndVisitor(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	rng := rand.New(rand.NewPCG(10, 11))
	base := now()
	var all []*consent.ConsentRecord
	for i := range 23 {
		r := randomConsent(rng, f.site.ID, base.Add(time.Duration(i%7)*time.Second), fmt.Sprint("v", i%2))
		must(t, s.CreateConsentRecord(ctx, r))
		all = append(all, r)
	}
	slices.SortFunc(all, newestFirst)
	for _, visitor := range []string{"", "v1"} {
		var want []string
		for _, r := range all {
			if visitor == "" || r.VisitorID == visitor {
				want = append(want, r.ID)
			}
		}
		var got []string
		var after *consent.ConsentKey
		for {
			page, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, VisitorID: visitor, After: after, Page: 1, Limit: 5})
			must(t, err)
			if total != len(want) {
				t.Fatalf("visitor %q: total %d, want %d", visitor, total, len(want))
			}
			if len(page) == 0 {
				break
			}
			got = append(got, ids(page)...)
			last := page[len(page)-1]
			after = &consent.ConsentKey{CreatedAt: last.CreatedAt, ID: last.ID}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("visitor %q: cursor walk gives %d records, want %d in order", visitor, len(got), len(want))
		}
	}
}

// testConsentSnapshots: a snapshot is stored once per content and found by hash.
func testConsentSnapshots(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	snap := &banner.ConsentSnapshot{SiteID: f.site.ID, Hash: core.GenesisHash[:60] + "abcd", Content: []byte(`{"a":1}`), CreatedAt: now()}
	must(t, s.SaveConsentSnapshot(ctx, snap))
	again := *snap
	again.CreatedAt = now().Add(time.Hour)
	must(t, s.SaveConsentSnapshot(ctx, &again))
	got, err := s.ConsentSnapshot(ctx, f.site.ID, snap.Hash)
	must(t, err)
	if string(got.Content) != `{"a":1}` || !got.CreatedAt.Equal(snap.CreatedAt) {
		t.Fatalf("snapshot round trip: %s at %v", got.Content, got.CreatedAt)
	}
	_, err = s.ConsentSnapshot(ctx, f.site.ID, core.GenesisHash)
	wantCode(t, err, core.CodeNotFound)
	_, err = s.ConsentSnapshot(ctx, seed(t, s).site.ID, snap.Hash)
	wantCode(t, err, core.CodeNotFound)
	missing := *snap
	missing.SiteID = id()
	wantCode(t, s.SaveConsentSnapshot(ctx, &missing), core.CodeNotFound)
}

// testConsentRegionCounts: records counted by region, else ipCountry, within [from, to) and
// the site only, equal to a brute-force count.
func testConsentRegionCounts(t *testing.T, s usecases.Store) {
	f, other := seed(t, s), seed(t, s)
	rng := rand.New(rand.NewPCG(5, 6))
	base := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	from, to := base.Add(time.Hour), base.Add(20*time.Hour)
	places := []struct{ country, region string }{{"FR", ""}, {"US", "US-CA"}, {"US", "US-CO"}, {"US", ""}, {"", ""}, {"JP", ""}}
	want := map[string]int64{}
	for range 120 {
		at := base.Add(time.Duration(rng.Int64N(int64(22 * time.Hour))))
		p := places[rng.IntN(len(places))]
		r := randomConsent(rng, f.site.ID, at, "v")
		r.IPCountry, r.Region = p.country, p.region
		consent.SealConsentRecord(r)
		must(t, s.CreateConsentRecord(ctx, r))
		if !at.Before(from) && at.Before(to) {
			k := p.region
			if k == "" {
				k = p.country
			}
			want[k]++
		}
	}
	edge := randomConsent(rng, f.site.ID, from, "edge") // from is included
	edge.IPCountry = "DE"
	consent.SealConsentRecord(edge)
	must(t, s.CreateConsentRecord(ctx, edge))
	want["DE"]++
	late := randomConsent(rng, f.site.ID, to, "late") // to is not
	consent.SealConsentRecord(late)
	must(t, s.CreateConsentRecord(ctx, late))
	must(t, s.CreateConsentRecord(ctx, randomConsent(rng, other.site.ID, base.Add(2*time.Hour), "o")))
	got, err := s.ConsentRegionCounts(ctx, f.site.ID, from, to)
	must(t, err)
	if len(got) != len(want) {
		t.Fatalf("region counts %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("region counts %v, want %v", got, want)
		}
	}
	if got, err := s.ConsentRegionCounts(ctx, id(), from, to); err != nil || len(got) != 0 {
		t.Fatalf("unknown site: %v %v", got, err)
	}
}
