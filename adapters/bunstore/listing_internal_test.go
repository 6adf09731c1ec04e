package bunstore

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/usecases"
)

// TestConsentPageWithoutStatistics: a listing's page walks its index in the listing's order
// and stops after the page even when the database has no statistics for the site yet (a new
// database, or a site added to a large table since its last ANALYZE): with 3,000 records
// written to a new database, the plans of page 1, of page 3 of a date range and of a visitor's
// records, as listingRead runs them, scan consent_records_site_created or
// consent_records_visitor without a sort. On Postgres the premise is checked too: page 1
// planned without listingRead's setting reads every record of the site into a sort. Postgres
// runs twice: with the listing pool, and behind a pooler (a URL with default_query_exec_mode),
// where the setting is made in a transaction instead.
func TestConsentPageWithoutStatistics(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{"sqlite", "postgres", "postgres-pooler"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url := "sqlite://" + filepath.Join(t.TempDir(), "t.db")
			if dialect != "sqlite" {
				url = pgtest.FreshURL(t)
			}
			if dialect == "postgres-pooler" {
				url += "&default_query_exec_mode=simple_protocol"
			}
			s, sites := storeWithSites(t, url, 1)
			if pool := s.listing != nil; pool != (dialect == "postgres") {
				t.Fatalf("%s: a listing pool of its own is %v", dialect, pool)
			}
			now := time.Now().UTC().Truncate(time.Microsecond)
			const n = 3000
			rs := make([]*consent.ConsentRecord, n)
			for i := range rs {
				rs[i] = &consent.ConsentRecord{ID: uuid.Must(uuid.NewV7()).String(), SiteID: sites[0], VisitorID: fmt.Sprint("v", i),
					Jurisdiction: "gdpr", CategoriesConsented: map[string]bool{"essential": true}, ConsentVersion: 1,
					Action: "accept_all", CreatedAt: now.Add(time.Duration(i-n) * time.Second)}
				consent.SealConsentRecord(rs[i])
			}
			err := s.InTx(ctx, func(tx usecases.Store) error {
				_, err := insertConsents(ctx, tx.(*Store).db, 0, rs)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}

			plan := func(q consent.ConsentQuery, run func(ctx context.Context, read func(ctx context.Context, db bun.IDB) error) error) string {
				t.Helper()
				var lines []string
				err := run(ctx, func(ctx context.Context, db bun.IDB) error {
					var ms []consentRecord
					explain := "EXPLAIN "
					if dialect == "sqlite" {
						explain = "EXPLAIN QUERY PLAN "
					}
					rows, err := db.QueryContext(ctx, explain+consentPage(db, q, &ms).String())
					if err != nil {
						return err
					}
					defer rows.Close()
					cols, _ := rows.Columns()
					for rows.Next() {
						vals := make([]any, len(cols))
						ptrs := make([]any, len(cols))
						for i := range vals {
							ptrs[i] = &vals[i]
						}
						if err := rows.Scan(ptrs...); err != nil {
							return err
						}
						lines = append(lines, fmt.Sprintf("%s", vals[len(vals)-1]))
					}
					return rows.Err()
				})
				if err != nil {
					t.Fatal(err)
				}
				return strings.Join(lines, "\n")
			}

			from, to := now.Add(-40*time.Minute), now.Add(-10*time.Minute)
			for _, c := range []struct {
				name  string
				q     consent.ConsentQuery
				index string
			}{
				{"page 1", consent.ConsentQuery{SiteID: sites[0], Page: 1, Limit: 50}, "consent_records_site_created"},
				{"page 3 of a range", consent.ConsentQuery{SiteID: sites[0], Page: 3, Limit: 50, From: &from, To: &to}, "consent_records_site_created"},
				{"a visitor's", consent.ConsentQuery{SiteID: sites[0], VisitorID: "v7", Page: 1, Limit: 50}, "consent_records_visitor"},
			} {
				got := plan(c.q, s.listingRead)
				if !strings.Contains(got, c.index) || strings.Contains(got, "Sort") ||
					strings.Contains(got, "Bitmap") || strings.Contains(got, "TEMP B-TREE") {
					t.Errorf("%s: does not walk %s in the listing's order:\n%s", c.name, c.index, got)
				}
			}
			q := consent.ConsentQuery{SiteID: sites[0], Page: 1, Limit: 50}
			if dialect != "sqlite" {
				if bare := plan(q, func(ctx context.Context, read func(ctx context.Context, db bun.IDB) error) error {
					return read(ctx, s.db)
				}); !strings.Contains(bare, "Sort") {
					t.Errorf("premise: without statistics, Postgres was expected to plan the page as a sort of the site's records; it planned:\n%s", bare)
				}
			}

			page, total, err := s.ConsentRecords(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if total != n || len(page) != 50 || page[0].ID != rs[n-1].ID || page[49].ID != rs[n-50].ID {
				t.Fatalf("page 1: %d records of %d, want the 50 newest of %d", len(page), total, n)
			}
		})
	}
}
