package bunstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
)

// benchStores opens each store a benchmark runs on: SQLite always, Postgres when
// CONSENTD_TEST_POSTGRES_URL is set.
func benchStores(b *testing.B) map[string]*bunstore.Store {
	ctx := context.Background()
	out := map[string]*bunstore.Store{}
	s, err := bunstore.Open(ctx, "sqlite://"+filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	out["sqlite"] = s
	if os.Getenv("CONSENTD_TEST_POSTGRES_URL") != "" {
		out["postgres"] = openPostgres(b)
	} else {
		b.Log("CONSENTD_TEST_POSTGRES_URL is not set: benchmarking SQLite only")
	}
	return out
}

// benchSite creates an organization and a site to hold benchmark records.
func benchSite(b *testing.B, s *bunstore.Store) string {
	ctx := context.Background()
	org := &identity.Organization{ID: uuid.NewString(), Name: "bench", CreatedAt: time.Now().UTC()}
	site := &core.Site{ID: uuid.NewString(), OrganizationID: org.ID, Name: "bench", URL: "https://bench.example",
		ProjectKey: "pk_" + uuid.NewString(), CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()}
	if err := s.CreateOrganization(ctx, org); err != nil {
		b.Fatal(err)
	}
	if err := s.CreateSite(ctx, site); err != nil {
		b.Fatal(err)
	}
	return site.ID
}

// seedBase is when seeded history starts; it covers one year.
var seedBase = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

const seedSpan = 365 * 24 * time.Hour

// seedConsents bulk-inserts n records for site, spread evenly over a year, with one
// INSERT ... SELECT per chunk and the counters rebuilt from them: a fast path for benchmarks
// only, equivalent to n CreateConsentRecord calls.
func seedConsents(b *testing.B, s *bunstore.Store, site string, n int) {
	ctx := context.Background()
	db := s.DB()
	step := seedSpan.Microseconds() / int64(n)
	start := time.Now()
	const chunk = 100_000
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		var q string
		if s.Dialect() == "postgres" {
			q = fmt.Sprintf(`INSERT INTO consent_records (id, site_id, visitor_id, ip_country, jurisdiction, categories_consented,
				gpc_signal, do_not_sell, consent_version, action, created_at)
				SELECT gen_random_uuid(), '%s', 'visitor-' || i, 'DE', 'gdpr', '{"essential":true,"statistics":true,"marketing":false}',
				false, false, 1, 'custom', TIMESTAMPTZ '%s' + make_interval(secs => i::bigint * %d / 1e6)
				FROM generate_series(%d, %d) AS i`, site, seedBase.Format(time.RFC3339), step, lo, hi-1)
		} else {
			q = fmt.Sprintf(`WITH RECURSIVE seq(i) AS (SELECT %d UNION ALL SELECT i + 1 FROM seq WHERE i < %d)
				INSERT INTO consent_records (id, site_id, visitor_id, ip_country, jurisdiction, categories_consented,
				gpc_signal, do_not_sell, consent_version, action, created_at)
				SELECT printf('%s%%012x', i), '%s', 'visitor-' || i, 'DE', 'gdpr',
				'{"essential":true,"statistics":true,"marketing":false}', 0, 0, 1, 'custom',
				strftime('%%Y-%%m-%%d %%H:%%M:%%f', '%s', '+' || (i * %d / 1000000.0) || ' seconds') || '+00:00'
				FROM seq`, lo, hi-1, site[:24], site, seedBase.Format("2006-01-02 15:04:05"), step)
		}
		if _, err := db.ExecContext(ctx, q); err != nil {
			b.Fatalf("seed: %v", err)
		}
	}
	var rebuild string
	if s.Dialect() == "postgres" {
		rebuild = `INSERT INTO consent_counts (site_id, bucket, shard, n)
			SELECT site_id, date_trunc('hour', created_at, 'UTC'), 0, count(*) FROM consent_records WHERE site_id = ? GROUP BY 1, 2`
	} else {
		rebuild = `INSERT INTO consent_counts (site_id, bucket, shard, n)
			SELECT site_id, strftime('%Y-%m-%d %H:00:00', created_at) || '+00:00', 0, count(*) FROM consent_records WHERE site_id = ? GROUP BY 1, 2`
	}
	if _, err := db.NewRaw(rebuild, site).Exec(ctx); err != nil {
		b.Fatalf("seed counts: %v", err)
	}
	if s.Dialect() == "postgres" {
		for _, t := range []string{"consent_records", "consent_counts"} {
			if _, err := db.ExecContext(ctx, "VACUUM ANALYZE "+t); err != nil {
				b.Fatal(err)
			}
		}
	} else if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d records in %v", n, time.Since(start).Round(time.Millisecond))
}

// reportLatency reports the median and 99th percentile of the iterations' durations.
func reportLatency(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(ds[len(ds)/2]), "p50-ms")
	b.ReportMetric(ms(ds[min(len(ds)-1, len(ds)*99/100)]), "p99-ms")
}

// BenchmarkConsentList measures listing page 1 (limit 50, with its exact total) of a site
// holding 100,000 and 1,000,000 records, without and with a date filter whose bounds fall
// inside hours. Seeding takes a while (about a minute for 1M on SQLite); it happens only when
// this benchmark runs, never in go test's default run.
func BenchmarkConsentList(b *testing.B) {
	ctx := context.Background()
	for name, s := range benchStores(b) {
		for _, n := range []int{100_000, 1_000_000} {
			site := benchSite(b, s)
			seedConsents(b, s, site, n)
			from := seedBase.Add(100*24*time.Hour + 17*time.Minute + 3*time.Second)
			to := seedBase.Add(130*24*time.Hour + 42*time.Minute + 9*time.Second)
			for _, c := range []struct {
				name     string
				from, to *time.Time
			}{{"all", nil, nil}, {"dates", &from, &to}, {"from", &from, nil}} {
				b.Run(fmt.Sprintf("%s/%dk/%s", name, n/1000, c.name), func(b *testing.B) {
					var ds []time.Duration
					for b.Loop() {
						t0 := time.Now()
						page, total, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: site, From: c.from, To: c.to, Page: 1, Limit: 50})
						ds = append(ds, time.Since(t0))
						if err != nil || len(page) != 50 || total < 50 {
							b.Fatalf("page of %d, total %d: %v", len(page), total, err)
						}
					}
					reportLatency(b, ds)
				})
			}
		}
	}
}

// BenchmarkConsentIngest measures CreateConsentRecord from 64 concurrent writers (the store's
// group commit batches them), as the public consent endpoint calls it. On Postgres it also
// measures the batches written as one simple query on the pool ("postgres-simple-protocol",
// what a database URL with default_query_exec_mode gets) against the committers' own
// connections with prepared statements ("postgres", pgIngest).
func BenchmarkConsentIngest(b *testing.B) {
	ctx := context.Background()
	stores := benchStores(b)
	if os.Getenv("CONSENTD_TEST_POSTGRES_URL") != "" {
		s := openPostgresURL(b, withQueryMode(b, pgtest.FreshURL(b), "simple_protocol"))
		stores["postgres-simple-protocol"] = s
	}
	for name, s := range stores {
		site := benchSite(b, s)
		b.Run(name, func(b *testing.B) {
			var (
				mu  sync.Mutex
				ds  []time.Duration
				seq atomic.Int64
			)
			b.SetParallelism(32) // 32 × GOMAXPROCS writers
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				var local []time.Duration
				for pb.Next() {
					r := &consent.ConsentRecord{ID: uuid.Must(uuid.NewV7()).String(), SiteID: site, VisitorID: fmt.Sprint("v", seq.Add(1)),
						Jurisdiction: "gdpr", CategoriesConsented: map[string]bool{"essential": true}, ConsentVersion: 1,
						Action: "accept_all", CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
					t0 := time.Now()
					if err := s.CreateConsentRecord(ctx, r); err != nil {
						b.Error(err)
						return
					}
					local = append(local, time.Since(t0))
				}
				mu.Lock()
				ds = append(ds, local...)
				mu.Unlock()
			})
			b.ReportMetric(float64(len(ds))/time.Since(start).Seconds(), "records/s")
			reportLatency(b, ds)
		})
	}
}

// BenchmarkPostgresQueryMode compares pgx's query modes under bun, which writes every argument
// into the SQL text: simple_protocol (what bunstore sets) against cache_statement (pgx's
// default, which prepares each distinct text before running it). It measures a listing page
// of a site with 10,000 records and the API-key lookup every management request makes.
func BenchmarkPostgresQueryMode(b *testing.B) {
	if os.Getenv("CONSENTD_TEST_POSTGRES_URL") == "" {
		b.Skip("CONSENTD_TEST_POSTGRES_URL is not set")
	}
	ctx := context.Background()
	base := pgtest.FreshURL(b)
	for _, mode := range []string{"simple_protocol", "cache_statement"} {
		s := openPostgresURL(b, withQueryMode(b, base, mode))
		site := benchSite(b, s)
		seedConsents(b, s, site, 10_000)
		b.Run(mode+"/list", func(b *testing.B) {
			for b.Loop() {
				if page, _, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: site, Page: 1, Limit: 50}); err != nil || len(page) != 50 {
					b.Fatalf("page of %d: %v", len(page), err)
				}
			}
		})
		b.Run(mode+"/key", func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				// A distinct hash each time, as distinct keys are: a distinct SQL text.
				if _, err := s.APIKeyByHash(ctx, fmt.Sprintf("%064x", i)); !core.IsNotFound(err) {
					b.Fatal(err)
				}
			}
		})
	}
}
