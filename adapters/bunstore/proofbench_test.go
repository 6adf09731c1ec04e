package bunstore_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/analytics"
	"github.com/consentd/consentd/core/consent"
)

// BenchmarkConsentAtScale measures, on Postgres, the first listing page, a deep page by cursor,
// a visitor's records and the statistics of a site holding CONSENTD_BENCH_RECORDS records
// (default 10,000,000) spread over one year. Seeding uses generate_series with the indexes
// dropped and rebuilt afterwards, and rebuilds the hour aggregates from the records: several
// minutes, only when this benchmark runs.
//
//	CONSENTD_TEST_POSTGRES_URL=postgres://... go test -run '^$' -bench ConsentAtScale -benchtime 300x -timeout 60m ./adapters/bunstore/
func BenchmarkConsentAtScale(b *testing.B) {
	if os.Getenv("CONSENTD_TEST_POSTGRES_URL") == "" {
		b.Skip("Postgres only: set CONSENTD_TEST_POSTGRES_URL")
	}
	n := 10_000_000
	if v := os.Getenv("CONSENTD_BENCH_RECORDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	s := openPostgres(b)
	site := benchSite(b, s)
	db := s.DB()
	exec := func(q string, args ...any) {
		b.Helper()
		t0 := time.Now()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
		b.Logf("%6.1f s  %.70s", time.Since(t0).Seconds(), q)
	}
	start := time.Now()
	exec("ALTER TABLE consent_records DROP CONSTRAINT consent_records_pkey")
	for _, ix := range []string{"consent_records_site_created", "consent_records_visitor"} {
		exec("DROP INDEX " + ix)
	}
	step := seedSpan.Microseconds() / int64(n)
	const chunk = 1_000_000
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		exec(fmt.Sprintf(`INSERT INTO consent_records (id, site_id, visitor_id, ip_country, jurisdiction, categories_consented,
			gpc_signal, do_not_sell, consent_version, action, created_at, page_url, user_agent, snapshot_hash, visitor_salt,
			visitor_hash, record_hash, batch_seq, batch_index)
			SELECT gen_random_uuid(), '%s', 'visitor-' || (i %% 3000000), 'DE', (ARRAY['gdpr','ccpa','none'])[1 + i %% 3],
			jsonb_build_object('essential', true, 'statistics', i %% 2 = 0, 'marketing', i %% 5 = 0),
			i %% 7 = 0, false, 1, (ARRAY['accept_all','reject_all','custom','gpc'])[1 + i %% 4],
			TIMESTAMPTZ '%s' + make_interval(secs => i::bigint * %d / 1e6), 'https://bench.example/p', 'Chrome desktop',
			repeat('a', 64), 'salt', repeat('b', 64), repeat('c', 64), 1 + i / 50, i %% 50
			FROM generate_series(%d, %d) AS i`, site, seedBase.Format(time.RFC3339), step, lo, hi-1))
	}
	exec("ALTER TABLE consent_records ADD PRIMARY KEY (id)")
	exec("CREATE INDEX consent_records_site_created ON consent_records (site_id, created_at DESC, id DESC)")
	exec("CREATE INDEX consent_records_visitor ON consent_records (site_id, visitor_id, created_at DESC, id DESC)")
	// One pass over the records for both aggregate tables: the hour counters with the three
	// categories' grants beside them, then unpivoted into consent_category_counts.
	// Live ingest spreads every hour over the group commit's committers (one counter shard
	// each; four from eight cores), so the seed does too: four rows per hour, as in production.
	exec(`CREATE TEMP TABLE seed_hours AS
		SELECT date_trunc('hour', created_at, 'UTC') AS bucket, abs(hashtext(id::text)) % 4 AS shard, count(*) AS n,
		count(*) FILTER (WHERE action = 'accept_all') AS accept_all, count(*) FILTER (WHERE action = 'reject_all') AS reject_all,
		count(*) FILTER (WHERE action = 'custom') AS custom, count(*) FILTER (WHERE action = 'gpc') AS gpc,
		count(*) FILTER (WHERE jurisdiction = 'gdpr') AS gdpr, count(*) FILTER (WHERE jurisdiction = 'ccpa') AS ccpa,
		count(*) FILTER (WHERE jurisdiction = 'none') AS jur_none, count(*) FILTER (WHERE gpc_signal) AS gpc_signal,
		count(*) FILTER (WHERE (categories_consented->>'essential')::boolean) AS essential,
		count(*) FILTER (WHERE (categories_consented->>'statistics')::boolean) AS statistics,
		count(*) FILTER (WHERE (categories_consented->>'marketing')::boolean) AS marketing
		FROM consent_records WHERE site_id = ? GROUP BY 1, 2`, site)
	exec(`INSERT INTO consent_counts (site_id, bucket, shard, n) SELECT ?, bucket, shard, n FROM seed_hours`, site)
	// The statistics read the analytics' counters (core/analytics, #46): one key per hour here
	// (a live site has one per hour, country, rule, device, language, version and variant seen).
	exec(`INSERT INTO analytics_counts (site_id, hour, country, region_rule, device, language, banner_version, variant,
		decided, accept_all, reject_all, custom, gpc, gdpr, ccpa, jur_none, gpc_signal)
		SELECT ?, bucket, 'DE', '', 'desktop', '', 1, '', sum(n), sum(accept_all), sum(reject_all), sum(custom), sum(gpc),
		sum(gdpr), sum(ccpa), sum(jur_none), sum(gpc_signal) FROM seed_hours GROUP BY bucket`, site)
	exec(`INSERT INTO analytics_category_counts (site_id, hour, country, region_rule, device, language, banner_version, variant,
		category, decisions, granted)
		SELECT ?, bucket, 'DE', '', 'desktop', '', 1, '', c.category, sum(n), sum(c.granted) FROM seed_hours,
		LATERAL (VALUES ('essential', essential), ('statistics', statistics), ('marketing', marketing)) AS c(category, granted)
		GROUP BY bucket, c.category`, site)
	for _, t := range []string{"consent_records", "consent_counts", "analytics_counts", "analytics_category_counts"} {
		exec("VACUUM ANALYZE " + t)
	}
	b.Logf("seeded %d records in %v", n, time.Since(start).Round(time.Second))

	mid := seedBase.Add(seedSpan / 2)
	var midKey consent.ConsentKey
	if err := db.NewRaw("SELECT created_at, id FROM consent_records WHERE site_id = ? AND created_at < ? ORDER BY created_at DESC, id DESC LIMIT 1",
		site, mid).Scan(ctx, &midKey.CreatedAt, &midKey.ID); err != nil {
		b.Fatal(err)
	}
	from30, to := seedBase.Add(300*24*time.Hour+17*time.Minute), seedBase.Add(330*24*time.Hour+42*time.Minute)
	fromYear := seedBase.Add(time.Hour)
	end := seedBase.Add(seedSpan)
	list := func(q consent.ConsentQuery, min int) func() error {
		return func() error {
			page, total, err := s.ConsentRecords(ctx, q)
			if err == nil && (len(page) < min || total < min) {
				err = fmt.Errorf("page of %d, total %d", len(page), total)
			}
			return err
		}
	}
	an := &analytics.Analytics{Agg: &analytics.Aggregator{Store: s}}
	stats := func(from, to time.Time, interval string) func() error {
		return func() error {
			hs, err := an.ConsentStatBuckets(core.WithActor(ctx, core.System("bench")), site, from, to, interval)
			if err == nil && len(hs) == 0 {
				err = fmt.Errorf("no statistics")
			}
			return err
		}
	}
	for _, c := range []struct {
		name string
		fn   func() error
	}{
		{"list/page1", list(consent.ConsentQuery{SiteID: site, Page: 1, Limit: 50}, 50)},
		{"list/page1-30days", list(consent.ConsentQuery{SiteID: site, From: &from30, To: &to, Page: 1, Limit: 50}, 50)},
		{"list/cursor-middle", list(consent.ConsentQuery{SiteID: site, After: &midKey, Page: 1, Limit: 50}, 50)},
		{"list/visitor", list(consent.ConsentQuery{SiteID: site, VisitorID: "visitor-123", Page: 1, Limit: 50}, 1)},
		{"stats/31days-by-hour", stats(from30, from30.Add(31*24*time.Hour), consent.StatsHour)},
		{"stats/30days-by-day", stats(from30, to, consent.StatsDay)},
		{"stats/year-by-day", stats(fromYear, end, consent.StatsDay)},
		{"stats/year-by-week", stats(fromYear, end, consent.StatsWeek)},
	} {
		b.Run(fmt.Sprintf("%dM/%s", n/1_000_000, c.name), func(b *testing.B) {
			var ds []time.Duration
			for b.Loop() {
				t0 := time.Now()
				err := c.fn()
				ds = append(ds, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
			}
			reportLatency(b, ds)
		})
	}
}
