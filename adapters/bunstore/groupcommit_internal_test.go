package bunstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/core/consent"
)

// TestFourCommittersManySites: the group commit with four committers, as a Postgres store runs
// from eight cores (pgCommitters), under concurrent posts to sixteen sites. The machines CI
// runs on have two cores and so one committer, which would leave several committers side by
// side untested: each site's chain verifies with every record in it, each site's listing
// total is exact, and the hour counters were written by more than one committer's shard.
func TestFourCommittersManySites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, s, sites := pgStoreWithSites(t, 16)
	s.ingest.close()
	s.ingest = newGroupCommit(s.root, 4, 256, url, nil) // closed by the store's Close
	const writers, each = 16, 25
	var (
		mu   sync.Mutex
		sent = map[string]int{}
		wg   sync.WaitGroup
		errs = make(chan error, writers)
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				site := sites[(w+i)%len(sites)]
				r := &consent.ConsentRecord{ID: uuid.Must(uuid.NewV7()).String(), SiteID: site, VisitorID: fmt.Sprintf("w%d-%d", w, i),
					Jurisdiction: "gdpr", CategoriesConsented: map[string]bool{"essential": true}, ConsentVersion: 1,
					Action: "accept_all", CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
				consent.SealConsentRecord(r)
				if err := s.CreateConsentRecord(ctx, r); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				sent[site]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, site := range sites {
		rep, err := consent.VerifyConsentChain(ctx, s, site)
		if err != nil || !rep.OK || rep.Records != int64(sent[site]) {
			t.Errorf("site %d's chain: %+v, %v; want OK with %d records", i, rep, err, sent[site])
		}
		if _, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: site, Page: 1, Limit: 1}); err != nil || total != sent[site] {
			t.Errorf("site %d: total %d, want %d (%v)", i, total, sent[site], err)
		}
	}
	var shards int
	if err := s.db.NewRaw("SELECT count(DISTINCT shard) FROM consent_counts").Scan(ctx, &shards); err != nil {
		t.Fatal(err)
	}
	if shards < 2 {
		t.Errorf("the counters have %d shard(s): the sixteen sites' records went through fewer than two committers", shards)
	}
}
