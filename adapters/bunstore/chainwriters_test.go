package bunstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// TestConsentChainSharedByProcesses: two stores on one Postgres database (two consentd
// processes) and writes inside InTx extend one site's chain by turns. A committer writes a
// batch in one round trip on the head it wrote last; when another writer moved the head
// meanwhile, that write must fail whole and the batch go the locking way. Every record is
// stored once, the chain verifies, and the total is exact.
func TestConsentChainSharedByProcesses(t *testing.T) {
	t.Parallel()
	url := pgtest.FreshURL(t)
	ctx := core.WithActor(context.Background(), core.System("tests"))
	// a writes its batches on known heads with prepared statements on its committers' own
	// connections, b (the URL sets a query mode) as one simple query on the pool: both ways
	// extend one chain by turns.
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
