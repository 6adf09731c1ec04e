package bunstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/core/consent"
)

// BenchmarkConsentBatchPostgres: one committer's batch of 1, 8 or 16 records written by
// pgIngest.write, one after the other, on a fresh database (the ingest's critical path:
// under load the committer waits for each answer before it writes the next batch).
//
//	CONSENTD_TEST_POSTGRES_URL=… go test -run '^$' -bench ConsentBatchPostgres -count 3 ./adapters/bunstore/
func BenchmarkConsentBatchPostgres(b *testing.B) {
	ctx := context.Background()
	url, _, sites := pgStoreWithSites(b, 1)
	p := newPGIngest(url, nil)
	defer p.close()
	for _, n := range []int{1, 8, 16} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			seq := 0
			for b.Loop() {
				rs := make([]*consent.ConsentRecord, n)
				for i := range rs {
					seq++
					r := &consent.ConsentRecord{ID: uuid.Must(uuid.NewV7()).String(), SiteID: sites[0], VisitorID: fmt.Sprint("v", seq),
						IPCountry: "FR", Jurisdiction: "gdpr", CategoriesConsented: map[string]bool{"essential": true, "marketing": false},
						ConsentVersion: 1, Action: "custom", CreatedAt: time.Now().UTC().Truncate(time.Microsecond),
						PageURL: "https://bench.example/", UserAgent: "Chrome desktop", RegionRule: "regionRules[0]"}
					consent.SealConsentRecord(r)
					rs[i] = r
				}
				if err := p.write(ctx, 1, rs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
