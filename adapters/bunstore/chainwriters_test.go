package bunstore_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// TestConsentChainSharedByProcesses: two stores on one Postgres database (two consentd
// processes) and writes inside InTx extend one site's chain by turns. One store chains its
// batches in the database (its committers' own connections); the other (a database URL that
// sets a query mode) writes a batch in one round trip on the head it wrote last, and when
// another writer moved the head meanwhile, that write must fail whole and the batch go the
// locking way. Every record is stored once, the chain verifies, and the total is exact.
func TestConsentChainSharedByProcesses(t *testing.T) {
	t.Parallel()
	url := pgtest.FreshURL(t)
	ctx := core.WithActor(context.Background(), core.System("tests"))
	// a chains its batches in the database with prepared statements on its committers' own
	// connections, b (the URL sets a query mode) writes on known heads as one simple query on
	// the pool: both ways extend one chain by turns.
	a, b := openPostgresURL(t, url), openPostgresURL(t, withQueryMode(t, url, "simple_protocol"))
	e := newProofEnv(t, a, time.Now)
	cat, err := library.Load("")
	if err != nil {
		t.Fatal(err)
	}
	mb, err := usecases.New(usecases.Deps{Store: b, Catalog: cat, AllSites: b, Now: time.Now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
	if err != nil {
		t.Fatal(err)
	}
	other := &proofEnv{s: b, m: mb, org: e.org, site: e.site}
	n := 0
	for round := range 6 {
		for _, env := range []*proofEnv{e, other, e, e, other} {
			env.record(t, 5, func(i int) string { return fmt.Sprintf("r%d-%d-%d", round, n, i) })
			n += 5
		}
		// a record written inside a transaction of its own, around the committers
		r := &consent.ConsentRecord{ID: uuid.Must(uuid.NewV7()).String(), SiteID: e.site.ID, VisitorID: fmt.Sprintf("tx-%d", round),
			Jurisdiction: core.JurisdictionNone, CategoriesConsented: map[string]bool{"essential": true}, ConsentVersion: 1,
			Action: "reject_all", CreatedAt: time.Now().UTC(), SnapshotHash: core.GenesisHash}
		consent.SealConsentRecord(r)
		if err := a.InTx(ctx, func(tx usecases.Store) error { return tx.CreateConsentRecord(ctx, r) }); err != nil {
			t.Fatal(err)
		}
		n++
	}
	rep := e.verify(t)
	if !rep.OK || rep.Records != int64(n) {
		t.Fatalf("chain: ok %v, %d records of %d, break %+v", rep.OK, rep.Records, n, rep.Break)
	}
	if _, total, err := a.ConsentRecords(ctx, consent.ConsentQuery{SiteID: e.site.ID, Page: 1, Limit: 1}); err != nil || total != n {
		t.Fatalf("total %d of %d (%v)", total, n, err)
	}
}

// TestConsentChainConcurrentProcesses: two stores on one Postgres database (two consentd
// processes) post into one site's chain at the same time, each through its committers' own
// connections, which chain every batch in the database. No batch may fail or be written
// twice, every record's answer must carry its batch's link as the chain has it (the hash
// computed by Postgres equal to consent.ConsentBatchHash), and the chain verifies.
func TestConsentChainConcurrentProcesses(t *testing.T) {
	t.Parallel()
	url := pgtest.FreshURL(t)
	a, b := openPostgresURL(t, url), openPostgresURL(t, url)
	e := newProofEnv(t, a, time.Now)
	ctx := context.Background()
	const writers, each = 16, 20
	var (
		mu   sync.Mutex
		got  []*consent.ConsentRecord
		wg   sync.WaitGroup
		errs = make(chan error, writers*each)
	)
	for w := range writers {
		s := []*bunstore.Store{a, b}[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				r := &consent.ConsentRecord{ID: uuid.Must(uuid.NewV7()).String(), SiteID: e.site.ID, VisitorID: fmt.Sprintf("w%d-%d", w, i),
					Jurisdiction: core.JurisdictionGDPR, CategoriesConsented: map[string]bool{"essential": true, "statistics": i%2 == 0},
					ConsentVersion: 1, Action: "custom", CreatedAt: time.Now().UTC().Truncate(time.Microsecond), SnapshotHash: core.GenesisHash}
				consent.SealConsentRecord(r)
				if err := s.CreateConsentRecord(ctx, r); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				got = append(got, r)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	batches := map[int64][]*consent.ConsentRecord{}
	for _, r := range got {
		batches[r.BatchSeq] = append(batches[r.BatchSeq], r)
	}
	for seq, rs := range batches {
		slices.SortFunc(rs, func(x, y *consent.ConsentRecord) int { return x.BatchIndex - y.BatchIndex })
		hashes := make([]string, len(rs))
		for i, r := range rs {
			if r.BatchIndex != i || r.BatchHash != rs[0].BatchHash || r.PrevBatchHash != rs[0].PrevBatchHash {
				t.Fatalf("batch %d: record %d of %d answered index %d, link %s after %s", seq, i, len(rs), r.BatchIndex, r.BatchHash, r.PrevBatchHash)
			}
			hashes[i] = r.RecordHash
		}
		if want := consent.ConsentBatchHash(rs[0].PrevBatchHash, hashes); rs[0].BatchHash != want {
			t.Fatalf("batch %d: answered hash %s, the records chain to %s", seq, rs[0].BatchHash, want)
		}
	}
	rep := e.verify(t)
	if !rep.OK || rep.Records != writers*each {
		t.Fatalf("chain: ok %v, %d records of %d, break %+v", rep.OK, rep.Records, writers*each, rep.Break)
	}
	t.Logf("%d records in %d batches", len(got), len(batches))
}
