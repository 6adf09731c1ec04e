package bunstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	sitepkg "github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// stores are the SQL stores the proof tests run on.
var stores = map[string]func(t *testing.T) *bunstore.Store{
	"sqlite":   openSQLite,
	"postgres": func(t *testing.T) *bunstore.Store { return openPostgres(t) },
}

// proofEnv is real core on a real store, with one site.
type proofEnv struct {
	s    *bunstore.Store
	m    *usecases.UseCases
	org  string
	site *core.Site
}

func newProofEnv(t *testing.T, s *bunstore.Store, now func() time.Time) *proofEnv {
	t.Helper()
	cat, err := library.Load("")
	if err != nil {
		t.Fatal(err)
	}
	m, err := usecases.New(usecases.Deps{Store: s, Catalog: cat, AllSites: s, Now: now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := core.WithActor(context.Background(), core.System("tests"))
	o, err := m.Orgs.CreateOrganization(ctx, "acme-"+uuid.NewString()[:8])
	if err != nil {
		t.Fatal(err)
	}
	name, url := "Shop", "https://shop.example"
	site, err := m.Sites.CreateSite(ctx, o.ID, sitepkg.SiteInput{Name: &name, URL: &url})
	if err != nil {
		t.Fatal(err)
	}
	return &proofEnv{s: s, m: m, org: o.ID, site: site}
}

// record posts n decisions from concurrent visitors, so that batches hold several records.
func (e *proofEnv) record(t *testing.T, n int, visitor func(i int) string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := visitor(i)
			_, err := e.m.PublicBanner.RecordConsent(context.Background(), e.site.ProjectKey, consent.ConsentInput{
				VisitorID: &v, Categories: map[string]bool{"statistics": i%2 == 0, "marketing": i%3 == 0}, ConsentVersion: 1,
				Country: []string{"DE", "US", "BR"}[i%3], GPC: i%5 == 0, Language: []string{"", "de"}[i%2], RuntimeVersion: "1.4.0",
				PageURL: fmt.Sprintf("https://shop.example/p/%d?token=secret", i%4), UserAgent: "Mozilla/5.0 Firefox/130.0",
			})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (e *proofEnv) verify(t *testing.T) *consent.ChainReport {
	t.Helper()
	rep, err := e.m.ConsentLog.VerifyConsentChain(core.WithActor(context.Background(), core.System("tests")), e.org, e.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// target picks a record in the middle of a batch of several records, when there is one.
func (e *proofEnv) target(t *testing.T) *consent.ConsentRecord {
	t.Helper()
	var recs []*consent.ConsentRecord
	sizes := map[int64]int{}
	if err := e.s.EachConsentRecord(context.Background(), consent.ConsentQuery{SiteID: e.site.ID}, func(r *consent.ConsentRecord) error {
		recs = append(recs, r)
		sizes[r.BatchSeq]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	best := recs[len(recs)/2]
	for _, r := range recs {
		if sizes[r.BatchSeq] >= 3 && r.BatchIndex == 1 {
			return r
		}
	}
	return best
}

func (e *proofEnv) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := e.s.DB().ExecContext(context.Background(), query, args...); err != nil {
		t.Fatal(err)
	}
}

// consentColumns are the columns of consent_records before proof of consent existed, which
// a forger unaware of the chain would fill.
const consentColumns = "site_id, visitor_id, ip_country, jurisdiction, categories_consented, gpc_signal, do_not_sell, consent_version, action, created_at"

// TestConsentTamper edits the log by SQL, behind the store's back, in each way a forger
// could, and checks that verification reports the first break where it is; an untouched log
// verifies.
func TestConsentTamper(t *testing.T) {
	t.Parallel()
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				name   string
				tamper func(t *testing.T, e *proofEnv, r *consent.ConsentRecord)
				// check the break against the target record
				check func(b *consent.ChainBreak, r *consent.ConsentRecord) bool
			}{
				{"untouched", nil, nil},
				{"change one field", func(t *testing.T, e *proofEnv, r *consent.ConsentRecord) {
					e.exec(t, "UPDATE consent_records SET action = CASE WHEN action = 'custom' THEN 'accept_all' ELSE 'custom' END WHERE id = ?", r.ID)
				}, func(b *consent.ChainBreak, r *consent.ConsentRecord) bool {
					return b.BatchSeq == r.BatchSeq && b.RecordID == r.ID && b.Index == r.BatchIndex && strings.Contains(b.Problem, "a field was changed")
				}},
				{"change a field and its record hash", func(t *testing.T, e *proofEnv, r *consent.ConsentRecord) {
					c := *r
					c.IPCountry = "FR"
					e.exec(t, "UPDATE consent_records SET ip_country = 'FR', record_hash = ? WHERE id = ?", consent.ConsentRecordHash(&c), r.ID)
				}, func(b *consent.ChainBreak, r *consent.ConsentRecord) bool {
					return b.BatchSeq == r.BatchSeq && b.Index == -1 && strings.Contains(b.Problem, "stored hash")
				}},
				{"delete one record", func(t *testing.T, e *proofEnv, r *consent.ConsentRecord) {
					e.exec(t, "DELETE FROM consent_records WHERE id = ?", r.ID)
				}, func(b *consent.ChainBreak, r *consent.ConsentRecord) bool {
					return b.BatchSeq == r.BatchSeq && b.Index == r.BatchIndex
				}},
				{"insert a copy into a batch", func(t *testing.T, e *proofEnv, r *consent.ConsentRecord) {
					e.exec(t, "INSERT INTO consent_records (id, "+consentColumns+", page_url, user_agent, snapshot_hash, visitor_salt, visitor_hash, record_hash, batch_seq, batch_index) "+
						"SELECT ?, "+consentColumns+", page_url, user_agent, snapshot_hash, visitor_salt, visitor_hash, record_hash, batch_seq, batch_index FROM consent_records WHERE id = ?",
						"ffffffff-0000-4000-8000-000000000001", r.ID)
				}, func(b *consent.ChainBreak, r *consent.ConsentRecord) bool {
					return b.BatchSeq == r.BatchSeq && b.RecordID == "ffffffff-0000-4000-8000-000000000001"
				}},
				{"insert a record outside the chain", func(t *testing.T, e *proofEnv, r *consent.ConsentRecord) {
					e.exec(t, "INSERT INTO consent_records (id, "+consentColumns+") SELECT ?, "+consentColumns+" FROM consent_records WHERE id = ?",
						"ffffffff-0000-4000-8000-000000000002", r.ID)
				}, func(b *consent.ChainBreak, r *consent.ConsentRecord) bool {
					return b.RecordID == "ffffffff-0000-4000-8000-000000000002" && strings.Contains(b.Problem, "not part of the chain")
				}},
				{"delete the last batch", func(t *testing.T, e *proofEnv, r *consent.ConsentRecord) {
					ch, err := e.s.ConsentChain(context.Background(), e.site.ID)
					if err != nil {
						t.Fatal(err)
					}
					e.exec(t, "DELETE FROM consent_records WHERE site_id = ? AND batch_seq = ?", e.site.ID, ch.HeadSeq)
					e.exec(t, "DELETE FROM consent_batches WHERE site_id = ? AND seq = ?", e.site.ID, ch.HeadSeq)
				}, func(b *consent.ChainBreak, r *consent.ConsentRecord) bool {
					return strings.Contains(b.Problem, "batches were removed")
				}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					e := newProofEnv(t, open(t), time.Now)
					e.record(t, 60, func(i int) string { return fmt.Sprint("visitor-", i) })
					if rep := e.verify(t); !rep.OK || rep.Records != 60 {
						t.Fatalf("before tampering: %+v %+v", rep, rep.Break)
					}
					if tc.tamper == nil {
						return
					}
					r := e.target(t)
					tc.tamper(t, e, r)
					rep := e.verify(t)
					if rep.OK || rep.Break == nil {
						t.Fatalf("tampered log verifies: %+v", rep)
					}
					if !tc.check(rep.Break, r) {
						t.Fatalf("break reported at %+v; target record %s batch %d index %d", rep.Break, r.ID, r.BatchSeq, r.BatchIndex)
					}
				})
			}
		})
	}
}

// TestConsentErasureEverywhere erases a visitor and then searches every column of every table
// of the database for the visitor ID: none holds it, and the chain still verifies.
func TestConsentErasureEverywhere(t *testing.T) {
	t.Parallel()
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newProofEnv(t, open(t), time.Now)
			const victim = "erase-me-7f3a9c"
			e.record(t, 30, func(i int) string {
				if i%4 == 0 {
					return victim
				}
				return fmt.Sprint("keep-", i)
			})
			ctx := core.WithActor(context.Background(), core.System("tests"))
			if n := e.occurrences(t, victim); n == 0 {
				t.Fatal("the search finds nothing before erasure: it could not fail")
			}
			n, err := e.m.ConsentLog.EraseVisitor(ctx, e.org, e.site.ID, victim)
			if err != nil || n != 8 {
				t.Fatalf("erased %d records (%v), want 8", n, err)
			}
			if n := e.occurrences(t, victim); n != 0 {
				t.Fatalf("the visitor ID is still in %d places", n)
			}
			if rep := e.verify(t); !rep.OK || rep.Records != 30 {
				t.Fatalf("after erasure: %+v %+v", rep, rep.Break)
			}
		})
	}
}

// occurrences counts the cells, in every column of every table, whose text contains s.
func (e *proofEnv) occurrences(t *testing.T, s string) int {
	t.Helper()
	ctx := context.Background()
	db := e.s.DB()
	type col struct{ table, column string }
	var cols []col
	if e.s.Dialect() == "postgres" {
		rows, err := db.QueryContext(ctx, "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c col
			if err := rows.Scan(&c.table, &c.column); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c)
		}
		rows.Close()
	} else {
		var tables []string
		if err := db.NewRaw("SELECT name FROM sqlite_master WHERE type = 'table'").Scan(ctx, &tables); err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			var names []string
			if err := db.NewRaw("SELECT name FROM pragma_table_info(?)", tb).Scan(ctx, &names); err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				cols = append(cols, col{tb, n})
			}
		}
	}
	if len(cols) < 20 {
		t.Fatalf("found only %d columns", len(cols))
	}
	total := 0
	for _, c := range cols {
		var n int
		q := fmt.Sprintf(`SELECT count(*) FROM %q WHERE CAST(%q AS TEXT) LIKE ?`, c.table, c.column)
		if err := db.QueryRowContext(ctx, q, "%"+s+"%").Scan(&n); err != nil {
			t.Fatalf("%s.%s: %v", c.table, c.column, err)
		}
		total += n
	}
	return total
}

// TestConsentStatsBruteForce: the statistics endpoint's use case equals a count over the
// records, for random records, hours, intervals and bounds given in random time zones
// (buckets are UTC whatever the zone of the bounds).
func TestConsentStatsBruteForce(t *testing.T) {
	t.Parallel()
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(42, 43))
			base := time.Date(2026, 3, 28, 0, 0, 0, 0, time.UTC) // spans the EU DST change
			var clock time.Time
			var mu sync.Mutex
			now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
			e := newProofEnv(t, open(t), now)
			var recs []*consent.ConsentRecord
			ctx := core.WithActor(context.Background(), core.System("tests"))
			for i := range 400 {
				mu.Lock()
				clock = base.Add(time.Duration(rng.Int64N(int64(20 * 24 * time.Hour))))
				mu.Unlock()
				v := fmt.Sprint("v", i)
				r, err := e.m.PublicBanner.RecordConsent(ctx, e.site.ProjectKey, consent.ConsentInput{VisitorID: &v,
					Categories: map[string]bool{"statistics": rng.IntN(2) == 0, "marketing": rng.IntN(3) == 0}, ConsentVersion: 1,
					Country: []string{"DE", "US", "JP", ""}[rng.IntN(4)], GPC: rng.IntN(4) == 0})
				if err != nil {
					t.Fatal(err)
				}
				recs = append(recs, r)
			}
			zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("PST", -8*3600), time.FixedZone("NPT", 5*3600+2700)}
			for trial := range 40 {
				interval := []string{consent.StatsHour, consent.StatsDay, consent.StatsWeek}[trial%3]
				span := time.Duration(rng.Int64N(int64(25 * 24 * time.Hour)))
				if interval == consent.StatsHour {
					span = time.Duration(rng.Int64N(int64(3 * 24 * time.Hour)))
				}
				from := base.Add(-2 * 24 * time.Hour).Add(time.Duration(rng.Int64N(int64(20 * 24 * time.Hour)))).Truncate(time.Second)
				to := from.Add(span + time.Minute)
				zf, zt := from.In(zones[rng.IntN(len(zones))]), to.In(zones[rng.IntN(len(zones))])
				st, err := e.m.ConsentLog.ConsentStats(ctx, e.org, consent.ConsentStatsQuery{SiteID: e.site.ID, From: &zf, To: &zt, Interval: interval})
				if err != nil {
					t.Fatal(err)
				}
				// Brute force: bucket every record by hand.
				type agg struct{ total, gpc, accept, gdpr, statYes, statAll int64 }
				want := map[time.Time]*agg{}
				lo, hi := consent.StatsBucketStart(from, interval), consent.StatsBucketStart(to, interval)
				if hi.Before(to) {
					switch interval {
					case consent.StatsHour:
						hi = hi.Add(time.Hour)
					case consent.StatsDay:
						hi = hi.AddDate(0, 0, 1)
					default:
						hi = hi.AddDate(0, 0, 7)
					}
				}
				for _, r := range recs {
					if r.CreatedAt.Before(lo) || !r.CreatedAt.Before(hi) {
						continue
					}
					u := r.CreatedAt.UTC()
					var b time.Time
					switch interval {
					case consent.StatsHour:
						b = time.Date(u.Year(), u.Month(), u.Day(), u.Hour(), 0, 0, 0, time.UTC)
					case consent.StatsDay:
						b = time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
					default:
						d := time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
						for d.Weekday() != time.Monday {
							d = d.AddDate(0, 0, -1)
						}
						b = d
					}
					a := want[b]
					if a == nil {
						a = &agg{}
						want[b] = a
					}
					a.total++
					if r.GPCSignal {
						a.gpc++
					}
					if r.Action == "accept_all" {
						a.accept++
					}
					if r.Jurisdiction == core.JurisdictionGDPR {
						a.gdpr++
					}
					a.statAll++
					if r.CategoriesConsented["statistics"] {
						a.statYes++
					}
				}
				var sum int64
				for _, b := range st.Buckets {
					w := want[b.Start]
					if w == nil {
						w = &agg{}
					}
					sum += b.Total
					var statYes, statAll int64
					if c := b.Categories["statistics"]; c != nil {
						statYes, statAll = c.Granted, c.Decisions
					}
					if b.Total != w.total || b.GPCSignal != w.gpc || b.Actions["accept_all"] != w.accept ||
						b.Jurisdictions[core.JurisdictionGDPR] != w.gdpr || statYes != w.statYes || statAll != w.statAll {
						t.Fatalf("trial %d (%s, %v to %v): bucket %v: got total %d gpc %d accept %d gdpr %d stats %d/%d, want %+v",
							trial, interval, zf, zt, b.Start, b.Total, b.GPCSignal, b.Actions["accept_all"], b.Jurisdictions["gdpr"], statYes, statAll, *w)
					}
				}
				var wantSum int64
				for _, w := range want {
					wantSum += w.total
				}
				if sum != wantSum || !st.From.Equal(lo) || !st.To.Equal(hi) || st.TimeZone != "UTC" {
					t.Fatalf("trial %d: %d records in %d buckets from %v to %v, want %d from %v to %v", trial, sum, len(st.Buckets), st.From, st.To, wantSum, lo, hi)
				}
			}
		})
	}
}
