package bunstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
)

// pgStoreWithSites returns a fresh Postgres database's URL, a migrated store on it and the IDs
// of n sites of one organization.
func pgStoreWithSites(tb testing.TB, n int) (string, *Store, []string) {
	tb.Helper()
	url := pgtest.FreshURL(tb)
	s, sites := storeWithSites(tb, url, n)
	return url, s, sites
}

// storeWithSites opens and migrates a store on the database at url and creates n sites of one
// organization in it, returning their IDs.
func storeWithSites(tb testing.TB, url string, n int) (*Store, []string) {
	tb.Helper()
	ctx := context.Background()
	s, err := Open(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	now := time.Now().UTC()
	org := &identity.Organization{ID: uuid.NewString(), Name: "o", CreatedAt: now}
	if err := s.CreateOrganization(ctx, org); err != nil {
		tb.Fatal(err)
	}
	sites := make([]string, n)
	for i := range sites {
		site := &core.Site{ID: uuid.NewString(), OrganizationID: org.ID, Name: "s", URL: "https://s.example",
			ProjectKey: "pk_" + uuid.NewString(), CreatedAt: now, UpdatedAt: now}
		if err := s.CreateSite(ctx, site); err != nil {
			tb.Fatal(err)
		}
		sites[i] = site.ID
	}
	return s, sites
}

// TestPGIngestBatchOfSeveralSites: one batch (one statement, pgWriteBatch) with the records of
// three sites interleaved moves each site's head by one link whose hash is
// consent.ConsentBatchHash of the site's own records in the batch, and every chain verifies;
// a batch with a record of a deleted site fails whole, storing nothing of the other sites.
func TestPGIngestBatchOfSeveralSites(t *testing.T) {
	ctx := context.Background()
	url, s, sites := pgStoreWithSites(t, 3)
	p := newPGIngest(url, nil)
	defer p.close()
	n := 0
	batch := func(siteOf ...int) []*consent.ConsentRecord {
		rs := make([]*consent.ConsentRecord, len(siteOf))
		for i, k := range siteOf {
			n++
			rs[i] = &consent.ConsentRecord{ID: uuid.Must(uuid.NewV7()).String(), SiteID: sites[k], VisitorID: fmt.Sprint("v", n),
				Jurisdiction: "gdpr", CategoriesConsented: map[string]bool{"essential": true}, ConsentVersion: 1,
				Action: "accept_all", CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
			consent.SealConsentRecord(rs[i])
		}
		return rs
	}
	prev := map[string]string{}
	for round, siteOf := range [][]int{{2, 0, 1, 0, 2, 2}, {1, 2, 0, 1}} {
		rs := batch(siteOf...)
		if err := p.write(ctx, 1, rs); err != nil {
			t.Fatal(err)
		}
		for _, site := range sites {
			var hashes []string
			var mine []*consent.ConsentRecord
			for _, r := range rs {
				if r.SiteID == site {
					hashes, mine = append(hashes, r.RecordHash), append(mine, r)
				}
			}
			want := consent.ConsentBatchHash(cmp.Or(prev[site], core.GenesisHash), hashes)
			for i, r := range mine {
				if r.BatchSeq != int64(round+1) || r.BatchIndex != i || r.BatchHash != want {
					t.Errorf("round %d, site %d's record %d: batch %d, index %d, hash %s; want %d, %d, %s", round, slices.Index(sites, site), i, r.BatchSeq, r.BatchIndex, r.BatchHash, round+1, i, want)
				}
			}
			prev[site] = want
		}
	}
	for i, site := range sites {
		rep, err := consent.VerifyConsentChain(ctx, s, site)
		if err != nil || !rep.OK || rep.Batches != 2 {
			t.Errorf("site %d's chain: %+v, %v; want 2 batches, OK", i, rep, err)
		}
	}

	if err := s.DeleteSite(ctx, sites[2]); err != nil {
		t.Fatal(err)
	}
	if err := p.write(ctx, 1, batch(0, 2, 1)); err == nil {
		t.Fatal("a batch with a deleted site's record was written")
	}
	for i, site := range sites[:2] {
		var stored int
		if err := s.db.NewSelect().Table("consent_records").ColumnExpr("count(*)").Where("site_id = ?", site).Scan(ctx, &stored); err != nil {
			t.Fatal(err)
		}
		if want := 3; stored != want {
			t.Errorf("site %d has %d records after the failed batch, want %d", i, stored, want)
		}
	}
}
