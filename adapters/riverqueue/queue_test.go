package riverqueue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
	sitepkg "github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// spans records every span of the package's tests; tests pick theirs by scan ID.
var spans = tracetest.NewSpanRecorder()

func init() {
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)))
}

// testCtx is the tests' caller: the system, as the operator's command line would be. The
// workers are started without one (startWorkers): each job names its own.
var testCtx = core.WithActor(context.Background(), core.System("riverqueue tests"))

// crawlFunc is a test crawler.
type crawlFunc func(ctx context.Context, req scan.CrawlRequest) (*core.CrawlResult, error)

func (f crawlFunc) Crawl(ctx context.Context, req scan.CrawlRequest) (*core.CrawlResult, error) {
	return f(ctx, req)
}

type env struct {
	url   string
	store *bunstore.Store
	m     *usecases.UseCases
	q     *Queue
	site  *core.Site
}

// dialects runs a test on SQLite and on Postgres, in parallel subtests of a parallel test:
// each has its own database and queue, and waits on River's workers, mostly.
func dialects(t *testing.T, fn func(t *testing.T, dialect string)) {
	t.Parallel()
	for _, d := range []string{"sqlite", "postgres"} {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			fn(t, d)
		})
	}
}

// noCatalog is an empty service library: the queue's tests configure no services.
type noCatalog struct{}

func (noCatalog) Services() []*library.Service            { return nil }
func (noCatalog) Service(string) (*library.Service, bool) { return nil, false }
func (noCatalog) Search(string) []*library.Service        { return nil }

// startWorkers starts q's workers on scans when q has any, and stops them when t ends.
func startWorkers(t *testing.T, q *Queue, scans ScanWorker) {
	t.Helper()
	ctx := context.Background()
	w, err := q.Workers(scans)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := w.Stop(sctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
}

// newStoreAndQueue opens a migrated store of dialect (a fresh SQLite file or Postgres
// database) and a migrated queue with cfg on it, both closed when t ends.
func newStoreAndQueue(t *testing.T, dialect string, cfg Config) (*bunstore.Store, *Queue, string) {
	t.Helper()
	ctx := testCtx
	url := "sqlite://" + filepath.Join(t.TempDir(), "q.db")
	if dialect == "postgres" {
		url = pgtest.FreshURL(t)
	}
	store, err := bunstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var q *Queue
	if dialect == "postgres" {
		q, err = NewPostgres(ctx, url, cfg)
	} else {
		q, err = NewSQLite(store.DB().DB, cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	if err := q.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return store, q, url
}

// newEnv builds a migrated store, a manager with the crawler and a queue with cfg; the queue
// is started when cfg.Workers > 0 and stopped when t ends.
func newEnv(t *testing.T, dialect string, crawler scan.SiteCrawler, cfg Config) *env {
	t.Helper()
	ctx := testCtx
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 50 * time.Millisecond
	}
	if cfg.RetryBase == 0 {
		cfg.RetryBase = 20 * time.Millisecond
	}
	store, q, url := newStoreAndQueue(t, dialect, cfg)
	m, err := usecases.New(usecases.Deps{Store: store, Queue: q, Crawler: crawler, Catalog: noCatalog{}, Now: time.Now,
		NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
	if err != nil {
		t.Fatal(err)
	}
	org, err := m.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	site, err := m.Sites.CreateSite(ctx, org.ID, sitepkg.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example/")})
	if err != nil {
		t.Fatal(err)
	}
	startWorkers(t, q, m.ScanWorker)
	return &env{url: url, store: store, m: m, q: q, site: site}
}

func ptr[T any](v T) *T { return &v }

// waitFinished polls the scan until it is completed or failed.
func (e *env) waitFinished(t *testing.T, scanID string, within time.Duration) *scan.Scan {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		s, err := e.store.ScanByID(testCtx, scanID)
		if err != nil {
			t.Fatal(err)
		}
		if s.Status == scan.ScanCompleted || s.Status == scan.ScanFailed {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("scan %s still %s after %s", scanID, s.Status, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// scanJobs lists the River jobs of kind scan.
func (e *env) scanJobs(t *testing.T) []*rivertype.JobRow {
	t.Helper()
	res, err := e.q.inserter.JobList(testCtx, river.NewJobListParams().Kinds(KindScan).First(1000))
	if err != nil {
		t.Fatal(err)
	}
	return res.Jobs
}

func (e *env) countScanJobs(t *testing.T) int { return len(e.scanJobs(t)) }

// TestEnqueueJoinsTransaction: the job commits and rolls back with the scan row.
func TestEnqueueJoinsTransaction(t *testing.T) {
	dialects(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, nil, Config{})
		ctx := testCtx
		newScan := func() *scan.Scan {
			return &scan.Scan{ID: uuid.Must(uuid.NewV7()).String(), SiteID: e.site.ID, URL: e.site.URL, URLs: []string{e.site.URL},
				Status: scan.ScanPending, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
		}
		errBoom := errors.New("boom")
		rolled := newScan()
		err := e.store.InTx(ctx, func(tx usecases.Store) error {
			if err := tx.CreateScan(ctx, rolled); err != nil {
				return err
			}
			if err := e.q.EnqueueScan(ctx, usecases.ForScan(tx), scan.ScanJob{ScanID: rolled.ID, SiteID: e.site.ID, URLs: rolled.URLs}); err != nil {
				return err
			}
			if n := e.countScanJobs(t); n != 0 {
				t.Errorf("job visible outside its transaction before commit: %d jobs", n)
			}
			return errBoom
		})
		if !errors.Is(err, errBoom) {
			t.Fatalf("InTx = %v, want the rollback cause", err)
		}
		if _, err := e.store.ScanByID(ctx, rolled.ID); !core.IsNotFound(err) {
			t.Fatalf("rolled back scan: %v, want not found", err)
		}
		if n := e.countScanJobs(t); n != 0 {
			t.Fatalf("%d scan jobs after rollback, want 0", n)
		}

		s, err := e.m.Scans.TriggerScan(ctx, e.site.OrganizationID, e.site.ID, scan.ScanInput{})
		if err != nil {
			t.Fatal(err)
		}
		jobs := e.scanJobs(t)
		if len(jobs) != 1 || !strings.Contains(string(jobs[0].EncodedArgs), s.ID) {
			t.Fatalf("after commit: %d jobs, want 1 for scan %s", len(jobs), s.ID)
		}

		// A failing insert rolls the scan back too.
		failing := newScan()
		cctx, cancel := context.WithCancel(ctx)
		err = e.store.InTx(ctx, func(tx usecases.Store) error {
			if err := tx.CreateScan(ctx, failing); err != nil {
				return err
			}
			cancel()
			return e.q.EnqueueScan(cctx, usecases.ForScan(tx), scan.ScanJob{ScanID: failing.ID, SiteID: e.site.ID})
		})
		if err == nil {
			t.Fatal("enqueue on a cancelled context succeeded")
		}
		if _, err := e.store.ScanByID(ctx, failing.ID); !core.IsNotFound(err) {
			t.Fatalf("scan whose job failed to insert: %v, want not found", err)
		}
	})
}

// TestScanCompletes: a worker moves a scan to completed with the crawl's results, and traces
// the attempt.
func TestScanCompletes(t *testing.T) {
	dialects(t, func(t *testing.T, dialect string) {
		crawler := crawlFunc(func(_ context.Context, req scan.CrawlRequest) (*core.CrawlResult, error) {
			return &core.CrawlResult{PagesScanned: 2, DetectedServices: []core.DetectedService{{Slug: "google-analytics", Name: "Google Analytics", Category: "statistics"}}}, nil
		})
		e := newEnv(t, dialect, crawler, Config{Workers: 2})
		s, err := e.m.Scans.TriggerScan(testCtx, e.site.OrganizationID, e.site.ID, scan.ScanInput{})
		if err != nil {
			t.Fatal(err)
		}
		got := e.waitFinished(t, s.ID, 20*time.Second)
		if got.Status != scan.ScanCompleted || got.PagesScanned != 2 || len(got.DetectedServices) != 1 || got.StartedAt == nil {
			t.Fatalf("scan = %+v, want completed with 2 pages and 1 service", got)
		}
		attempts := scanSpans(t, s.ID, 1)
		if a := attrs(attempts[0]); a[AttrOutcome] != "ok" || a[AttrJobAttempt] != "1" || a["consentd.scan.status"] != "completed" {
			t.Fatalf("span attributes %v", a)
		}
	})
}

// TestTemporaryFailureRetriesThenFails: a temporary error is retried up to MaxAttempts while
// the scan stays running; then the scan fails with the last error.
func TestTemporaryFailureRetriesThenFails(t *testing.T) {
	dialects(t, func(t *testing.T, dialect string) {
		var calls atomic.Int32
		var e *env
		var scanID atomic.Value
		var mu sync.Mutex
		var statuses []string
		crawler := crawlFunc(func(ctx context.Context, _ scan.CrawlRequest) (*core.CrawlResult, error) {
			n := calls.Add(1)
			if id, ok := scanID.Load().(string); ok {
				s, err := e.store.ScanByID(ctx, id)
				if err == nil {
					mu.Lock()
					statuses = append(statuses, s.Status)
					mu.Unlock()
				}
			}
			return nil, core.Temporary(&scan.CrawlError{Message: fmt.Sprintf("the site refused the connection (attempt %d)", n),
				Err: errors.New("dial tcp 10.0.0.1:443: connection refused")})
		})
		e = newEnv(t, dialect, crawler, Config{Workers: 1, MaxAttempts: 3})
		s, err := e.m.Scans.TriggerScan(testCtx, e.site.OrganizationID, e.site.ID, scan.ScanInput{})
		if err != nil {
			t.Fatal(err)
		}
		scanID.Store(s.ID)
		got := e.waitFinished(t, s.ID, 30*time.Second)
		if got.Status != scan.ScanFailed || got.ErrorMessage == nil || *got.ErrorMessage != "the site refused the connection (attempt 3)" {
			t.Fatalf("scan = %s %v, want failed with the last attempt's error", got.Status, deref(got.ErrorMessage))
		}
		if n := calls.Load(); n != 3 {
			t.Fatalf("crawled %d times, want 3", n)
		}
		mu.Lock()
		defer mu.Unlock()
		for i, st := range statuses {
			if st != scan.ScanRunning {
				t.Fatalf("attempt %d saw the scan %s, want running throughout", i+1, st)
			}
		}
		outcomes := []string{}
		for _, sp := range scanSpans(t, s.ID, 3) {
			outcomes = append(outcomes, attrs(sp)[AttrOutcome])
		}
		if strings.Join(outcomes, ",") != "retry,retry,ok" {
			t.Fatalf("attempt outcomes %v, want retry,retry,ok (the last attempt records the failure)", outcomes)
		}
	})
}

// TestPanicOnLastAttemptFailsScan: a job River discards after a panic leaves its scan failed.
func TestPanicOnLastAttemptFailsScan(t *testing.T) {
	dialects(t, func(t *testing.T, dialect string) {
		crawler := crawlFunc(func(context.Context, scan.CrawlRequest) (*core.CrawlResult, error) { panic("parser exploded") })
		e := newEnv(t, dialect, crawler, Config{Workers: 1, MaxAttempts: 1})
		s, err := e.m.Scans.TriggerScan(testCtx, e.site.OrganizationID, e.site.ID, scan.ScanInput{})
		if err != nil {
			t.Fatal(err)
		}
		got := e.waitFinished(t, s.ID, 20*time.Second)
		// The site owner reads a sentence; the panic value goes to the log only.
		if got.Status != scan.ScanFailed || deref(got.ErrorMessage) != scan.ScanInternalFailure {
			t.Fatalf("scan = %s %q, want failed with the internal-failure sentence", got.Status, deref(got.ErrorMessage))
		}
	})
}

// TestSweepFailsAbandonedScans: a scan whose job River gave up on without running our code
// (here: cancelled before any worker took it) ends failed at the next sweep.
func TestSweepFailsAbandonedScans(t *testing.T) {
	dialects(t, func(t *testing.T, dialect string) {
		ctx := testCtx
		e := newEnv(t, dialect, nil, Config{}) // insert-only: nothing works the job
		s, err := e.m.Scans.TriggerScan(ctx, e.site.OrganizationID, e.site.ID, scan.ScanInput{})
		if err != nil {
			t.Fatal(err)
		}
		job := e.scanJobs(t)[0]
		switch c := e.q.inserter.(type) {
		case *river.Client[*sql.Tx]:
			_, err = c.JobCancel(ctx, job.ID)
		case *river.Client[pgx.Tx]:
			_, err = c.JobCancel(ctx, job.ID)
		default:
			t.Fatalf("client %T", c)
		}
		if err != nil {
			t.Fatal(err)
		}
		// A worker process with a short sweep interval comes up: its sweep fails the scan.
		cfg := e.q.cfg
		cfg.Workers, cfg.SweepInterval = 1, 200*time.Millisecond
		var q *Queue
		if dialect == "postgres" {
			q, err = NewPostgres(ctx, e.url, cfg)
		} else {
			q, err = NewSQLite(e.store.DB().DB, cfg)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		startWorkers(t, q, e.m.ScanWorker)
		got := e.waitFinished(t, s.ID, 20*time.Second)
		if got.Status != scan.ScanFailed || deref(got.ErrorMessage) != scan.ScanCancelled {
			t.Fatalf("scan = %s %q, want failed as cancelled", got.Status, deref(got.ErrorMessage))
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// scanSpans waits for n ended job spans of the scan and returns them by attempt.
func scanSpans(t *testing.T, scanID string, n int) []sdktrace.ReadOnlySpan {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var out []sdktrace.ReadOnlySpan
		for _, sp := range spans.Ended() {
			if attrs(sp)[AttrScanID] == scanID {
				out = append(out, sp)
			}
		}
		if len(out) >= n || time.Now().After(deadline) {
			if len(out) != n {
				t.Fatalf("%d spans for scan %s, want %d", len(out), scanID, n)
			}
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func attrs(sp sdktrace.ReadOnlySpan) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, kv := range sp.Attributes() {
		m[kv.Key] = kv.Value.String()
	}
	return m
}
