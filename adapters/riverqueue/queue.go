// Package riverqueue runs scan jobs on River: durable jobs in the same database as the data
// (riversqlite on the embedded store, riverpgxv5 on Postgres), inserted in the transaction that
// creates their scan, retried with backoff, rescued when a worker process dies, and swept so
// that no scan is left running once River gave up on its job. It also schedules the optional
// periodic rescans of every site. docs/scan-jobs.md tells the whole story.
package riverqueue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/consentd/consentd/core"
)

// Config tunes the queue. Zero values take the defaults given on each field.
type Config struct {
	// Workers is how many scans run at once in this process; 0 makes an insert-only queue
	// that never works jobs (nor rescues, sweeps or schedules rescans: workers do that).
	Workers int
	// MaxAttempts bounds the attempts of a scan job (default 3).
	MaxAttempts int
	// JobTimeout bounds one attempt (default 5 minutes).
	JobTimeout time.Duration
	// RetryBase is the first retry delay, doubled on each further attempt (default 5 s).
	RetryBase time.Duration
	// RescueAfter is how long a job may stay running before it counts as abandoned by a dead
	// worker and is worked again (default JobTimeout + 5 minutes; at least JobTimeout). River's
	// rescuer looks for such jobs every 30 seconds.
	RescueAfter time.Duration
	// SweepInterval is how often scans whose job River gave up on (discarded after a dead
	// worker's last attempt, or an error that could not be recorded) are marked failed
	// (default 1 minute).
	SweepInterval time.Duration
	// RescanInterval, when positive, rescans every site's homepage that often; Sites must
	// then be set.
	RescanInterval time.Duration
	// Sites lists every site for periodic rescans.
	Sites core.SiteLister
	// PollInterval is how often workers look for jobs besides being notified (default 1 s).
	PollInterval time.Duration
	Logger       *slog.Logger
}

func (c *Config) defaults() error {
	if c.Workers < 0 {
		return fmt.Errorf("scan workers: %d: must be 0 or more", c.Workers)
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 3
	}
	if c.JobTimeout <= 0 {
		c.JobTimeout = 5 * time.Minute
	}
	if c.RetryBase <= 0 {
		c.RetryBase = 5 * time.Second
	}
	if c.RescueAfter <= 0 {
		c.RescueAfter = c.JobTimeout + 5*time.Minute
	}
	if c.RescueAfter < c.JobTimeout {
		return fmt.Errorf("scan rescue-after %s is shorter than the scan timeout %s: live scans would be worked twice", c.RescueAfter, c.JobTimeout)
	}
	if c.SweepInterval <= 0 {
		c.SweepInterval = time.Minute
	}
	if c.RescanInterval < 0 {
		return fmt.Errorf("rescan interval %s: must be positive, or 0 for none", c.RescanInterval)
	}
	if c.RescanInterval > 0 && c.Sites == nil {
		return errors.New("periodic rescans need a site lister")
	}
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// riverClient is what the queue uses of a river.Client, whatever its transaction type.
type riverClient interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
}

// Queue is the core.ScanQueue on River, and the scan workers of this process.
type Queue struct {
	cfg    Config
	client riverClient
	// insertTx inserts a job in the store's open database/sql transaction.
	insertTx func(ctx context.Context, tx *sql.Tx, args river.JobArgs) error
	migrate  func(ctx context.Context) error
	close    func()
}

var _ core.ScanQueue = (*Queue)(nil)

// NewSQLite returns a queue on the SQLite database the store uses; its workers run scans
// through m.
func NewSQLite(db *sql.DB, m *core.Manager, cfg Config) (*Queue, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	q := &Queue{cfg: cfg, close: func() {}}
	rc, err := q.riverConfig(m)
	if err != nil {
		return nil, err
	}
	driver := riversqlite.New(db)
	client, err := river.NewClient(driver, rc)
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	q.client = client
	q.insertTx = func(ctx context.Context, tx *sql.Tx, args river.JobArgs) error {
		_, err := client.InsertTx(ctx, tx, args, nil)
		return err
	}
	q.migrate = func(ctx context.Context) error { return migrate(ctx, driver) }
	return q, nil
}

// NewPostgres returns a queue on the Postgres database at databaseURL, through a pgx pool of
// its own; its workers run scans through m. Close releases the pool.
//
// The store works through database/sql on pgx's stdlib driver, whereas River's Postgres driver
// wants a pgx.Tx. EnqueueScan bridges the two on the store's connection itself (see
// insertOnConn), so that the job still commits or rolls back with the scan row.
func NewPostgres(ctx context.Context, databaseURL string, m *core.Manager, cfg Config) (*Queue, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	pcfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("scan queue: database url: %w", err)
	}
	// Workers, the producer's fetches, the completer, the notifier's LISTEN connection and
	// the leader's maintenance each need a connection now and then.
	pcfg.MaxConns = int32(max(cfg.Workers+6, 8))
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("scan queue: connect: %w", err)
	}
	q := &Queue{cfg: cfg, close: pool.Close}
	rc, err := q.riverConfig(m)
	if err != nil {
		pool.Close()
		return nil, err
	}
	driver := riverpgxv5.New(pool)
	client, err := river.NewClient(driver, rc)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("river client: %w", err)
	}
	q.client = client
	q.insertTx = func(ctx context.Context, tx *sql.Tx, args river.JobArgs) error {
		return insertOnConn(ctx, tx, func(ctx context.Context, t pgx.Tx) error {
			_, err := client.InsertTx(ctx, t, args, nil)
			return err
		})
	}
	q.migrate = func(ctx context.Context) error { return migratePostgres(ctx, pool, driver) }
	return q, nil
}

// Migrate applies River's own schema migrations (on Postgres under an advisory lock, so that
// processes starting together migrate one after the other).
func (q *Queue) Migrate(ctx context.Context) error { return q.migrate(ctx) }

func migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) error {
	m, err := rivermigrate.New(driver, nil)
	if err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	return nil
}

func migratePostgres(ctx context.Context, pool *pgxpool.Pool, driver *riverpgxv5.Driver) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	defer conn.Release()
	const lockID = 0x7269766572 // "river"
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockID); err != nil {
		return fmt.Errorf("river migrate: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockID) //nolint:errcheck // the lock also ends with the session
	return migrate[pgx.Tx](ctx, driver)
}

// EnqueueScan implements core.ScanQueue. Inside a store transaction on SQL the job is
// inserted in that transaction, so that it exists exactly when the scan row does; outside
// one it is inserted on its own.
func (q *Queue) EnqueueScan(ctx context.Context, tx core.Store, job core.ScanJob) error {
	var err error
	if t, ok := tx.(interface{ SQLTx() *sql.Tx }); ok && t.SQLTx() != nil {
		err = q.insertTx(ctx, t.SQLTx(), ScanArgs{job})
	} else {
		_, err = q.client.Insert(ctx, ScanArgs{job}, nil)
	}
	if err != nil {
		return fmt.Errorf("enqueue scan %s: %w", job.ScanID, err)
	}
	return nil
}

// Start starts working jobs (a no-op for an insert-only queue).
func (q *Queue) Start(ctx context.Context) error {
	if q.cfg.Workers == 0 {
		return nil
	}
	if err := q.client.Start(ctx); err != nil {
		return fmt.Errorf("start scan workers: %w", err)
	}
	return nil
}

// cancelGrace bounds how long Stop waits for cancelled jobs to return.
const cancelGrace = 10 * time.Second

// Stop stops taking jobs and waits for running ones until ctx ends; then it cancels them
// (a cancelled scan is retried by another worker) and waits a little for them to return.
func (q *Queue) Stop(ctx context.Context) error {
	if q.cfg.Workers == 0 {
		return nil
	}
	if err := q.client.Stop(ctx); err == nil || !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return err
	}
	q.cfg.Logger.Warn("scan workers: shutdown deadline reached, cancelling running scans")
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelGrace)
	defer cancel()
	return q.client.StopAndCancel(cctx)
}

// Close releases the queue's own connections (Postgres); call it after Stop.
func (q *Queue) Close() { q.close() }
