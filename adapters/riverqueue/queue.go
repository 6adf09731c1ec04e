// Package riverqueue runs scan jobs on River: durable jobs in the same database as the data
// (riversqlite on the embedded store, riverpgxv5 on Postgres), inserted in the transaction that
// creates their scan, retried with backoff, rescued when a worker process dies, and swept so
// that no scan is left running once River gave up on its job. It also schedules the optional
// periodic rescans of every site. docs/scan-jobs.md tells the whole story.
package riverqueue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/usecases"
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
	// worker and is worked again (default JobTimeout + 1 minute: an attempt cannot run longer
	// than JobTimeout, so past that its worker is gone; at least JobTimeout). River's rescuer
	// looks for such jobs every 30 seconds.
	RescueAfter time.Duration
	// SweepInterval is how often scans whose job River gave up on (discarded after a dead
	// worker's last attempt, or an error that could not be recorded) are marked failed
	// (default 1 minute).
	SweepInterval time.Duration
	// RescanInterval, when positive, rescans every site's homepage that often.
	RescanInterval time.Duration
	// PollInterval is how often workers look for jobs besides being notified (default 1 s).
	PollInterval time.Duration
	// Logger receives the queue's own messages (periodic rescans, sweeps, shutdown).
	Logger *slog.Logger
	// RiverLogger receives River's messages (default Logger); River reports routine work
	// at Info.
	RiverLogger *slog.Logger
	// InstanceID, when set, is this process's River client ID, the same across its restarts
	// (docs/scan-jobs.md). On Postgres, the workers then hold it while they run (a second live
	// process with the same ID is refused) and, as they start, take back at once the jobs a
	// dead predecessor with that ID left running, instead of after RescueAfter; no other
	// process's job is touched. Without it River makes a new ID at each start.
	InstanceID string
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
		c.RescueAfter = c.JobTimeout + rescueMargin
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
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
	if len(c.InstanceID) > 100 {
		return fmt.Errorf("instance ID %q: at most 100 characters", c.InstanceID)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.RiverLogger == nil {
		c.RiverLogger = c.Logger
	}
	return nil
}

// rescueMargin is how long after its timeout a running attempt counts as abandoned: time for
// a worker that is alive to notice the timeout and record the outcome.
const rescueMargin = time.Minute

// riverClient is what the queue uses of a river.Client, whatever its transaction type.
type riverClient interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
}

// Queue is the core.ScanQueue on River: it inserts scan jobs in the store's transactions. The
// workers of this process are built from it by Workers, once the use cases they call exist.
type Queue struct {
	cfg Config
	// inserter is an insert-only River client: it works no jobs.
	inserter riverClient
	// newClient builds a River client on the queue's database.
	newClient func(rc *river.Config) (riverClient, error)
	// insertTx inserts a job in the store's open database/sql transaction.
	insertTx func(ctx context.Context, tx *sql.Tx, args river.JobArgs) error
	migrate  func(ctx context.Context) error
	// exec runs River's own queries on the queue's database (reclaiming orphans).
	exec  riverdriver.Executor
	close func()
	// retention, when set (SetConsentRetention), removes old consent records periodically.
	retention      ConsentRetention
	retentionEvery time.Duration
	// webhooks, when set (SetWebhooks), delivers webhook events.
	webhooks        Webhooks
	webhookSchedule []time.Duration
	// digests, when set (SetDigests), sends email digests every digestEvery.
	digests     Digests
	digestEvery time.Duration
	// gvl, when set (SetGVLRefresh), refreshes the IAB's Global Vendor List every gvlEvery.
	gvl      GVLRefresher
	gvlEvery time.Duration
	// stopping is set when the workers' Stop begins: River's reports of its own work being
	// cancelled by the stop go to the log at Debug from then on (see stopping in stoplog.go).
	stopping atomic.Bool
	// claimInstance, on Postgres, holds cfg.InstanceID for this process and returns the jobs
	// a dead predecessor with that ID left running, and how to let the ID go.
	claimInstance func(ctx context.Context, id string) (own []ownJob, release func(), err error)
}

// ownJob is a running job whose last attempt was made by this instance's ID.
type ownJob struct {
	id                   int64
	attempt, maxAttempts int
}

var _ scan.ScanQueue = (*Queue)(nil)

// TxStore is the seam between a store transaction and the queue: a store (as handed to
// core.Store.InTx's function) that is a database/sql transaction on the queue's database.
// The composition root checks at compile time that the store adapter is one.
type TxStore interface {
	usecases.Store
	// SQLTx returns the open transaction, nil outside one.
	SQLTx() *sql.Tx
}

// txStore finds the TxStore under tx: a capability's view of the store (core/usecases)
// unwraps to the store it views.
func txStore(tx any) (TxStore, bool) {
	for {
		if t, ok := tx.(TxStore); ok {
			return t, true
		}
		u, ok := tx.(interface{ Unwrap() any })
		if !ok {
			return nil, false
		}
		tx = u.Unwrap()
	}
}

// insertConfig is the River configuration of the insert-only client: what River reads at
// insert time (attempts) and nothing that would work jobs.
func (c Config) insertConfig() *river.Config {
	return &river.Config{Logger: c.RiverLogger, MaxAttempts: c.MaxAttempts}
}

// NewSQLite returns a queue on the SQLite database the store uses.
func NewSQLite(db *sql.DB, cfg Config) (*Queue, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	driver := riversqlite.New(db)
	newClient := func(rc *river.Config) (riverClient, error) { return river.NewClient(driver, rc) }
	inserter, err := river.NewClient(driver, cfg.insertConfig())
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return &Queue{
		cfg: cfg, inserter: inserter, newClient: newClient, close: func() {},
		insertTx: func(ctx context.Context, tx *sql.Tx, args river.JobArgs) error {
			_, err := inserter.InsertTx(ctx, tx, args, insertOpts(ctx))
			return err
		},
		migrate: func(ctx context.Context) error { return migrateSQLite(ctx, db, driver) },
		exec:    driver.GetExecutor(),
	}, nil
}

// poolConns is the size of the queue's Postgres pool for a process with workers scan workers
// (README.md, "Each serve or worker process holds at most…").
func poolConns(workers int) int { return max(workers+6, 8) }

// NewPostgres returns a queue on the Postgres database at databaseURL, through a pgx pool of
// its own. Close releases the pool.
//
// The store works through database/sql on pgx's stdlib driver, whereas River's Postgres driver
// wants a pgx.Tx. EnqueueScan bridges the two on the store's connection itself (see
// insertOnConn), so that the job still commits or rolls back with the scan row.
func NewPostgres(ctx context.Context, databaseURL string, cfg Config) (*Queue, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	pcfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("scan queue: database url: %w", err)
	}
	// Workers, the producer's fetches, the completer, the notifier's LISTEN connection and
	// the leader's maintenance each need a connection now and then.
	pcfg.MaxConns = int32(poolConns(cfg.Workers))
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("scan queue: connect: %w", err)
	}
	driver := riverpgxv5.New(pool)
	inserter, err := river.NewClient(driver, cfg.insertConfig())
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("river client: %w", err)
	}
	return &Queue{
		cfg: cfg, inserter: inserter, close: pool.Close,
		newClient: func(rc *river.Config) (riverClient, error) { return river.NewClient(driver, rc) },
		insertTx: func(ctx context.Context, tx *sql.Tx, args river.JobArgs) error {
			return insertOnConn(ctx, tx, func(ctx context.Context, t pgx.Tx) error {
				_, err := inserter.InsertTx(ctx, t, args, insertOpts(ctx))
				return err
			})
		},
		migrate:       func(ctx context.Context) error { return migratePostgres(ctx, pool, driver) },
		exec:          driver.GetExecutor(),
		claimInstance: func(ctx context.Context, id string) ([]ownJob, func(), error) { return claimInstance(ctx, pool, id) },
	}, nil
}

// claimInstance takes a session advisory lock named after the instance ID on a connection
// it keeps, so that two live processes never share an ID (the lock ends with the session, so
// with the process, however it ends), then lists the jobs still running under that ID: their
// worker was this instance's dead predecessor.
func claimInstance(ctx context.Context, pool *pgxpool.Pool, id string) ([]ownJob, func(), error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("instance %q: %w", id, err)
	}
	h := fnv.New64a()
	h.Write([]byte("consentd instance " + id))
	key := int64(h.Sum64())
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&ok); err != nil {
		conn.Release()
		return nil, nil, fmt.Errorf("instance %q: lock: %w", id, err)
	}
	if !ok {
		conn.Release()
		return nil, nil, fmt.Errorf("instance ID %q is in use by another live consentd process: give each process its own CONSENTD_INSTANCE_ID", id)
	}
	release := func() {
		conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", key) //nolint:errcheck // the lock also ends with the session
		conn.Release()
	}
	rows, err := conn.Query(ctx, `SELECT id, attempt, max_attempts FROM river_job
		WHERE state = 'running' AND attempted_by[array_length(attempted_by, 1)] = $1`, id)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("instance %q: %w", id, err)
	}
	var own []ownJob
	for rows.Next() {
		var j ownJob
		var attempt, maxAttempts int16
		if err := rows.Scan(&j.id, &attempt, &maxAttempts); err != nil {
			rows.Close()
			release()
			return nil, nil, err
		}
		j.attempt, j.maxAttempts = int(attempt), int(maxAttempts)
		own = append(own, j)
	}
	if err := rows.Err(); err != nil {
		release()
		return nil, nil, err
	}
	return own, release, nil
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

// migrateSQLite applies River's migrations in one transaction begun IMMEDIATE (the store's
// connections begin so), that is under the database's write lock, as the store's migrations
// are: processes creating one database together then migrate one after the other, and the
// second finds River's tables made rather than failing to create them again. River's SQLite
// migrations are plain DDL, which SQLite runs in a transaction.
func migrateSQLite(ctx context.Context, db *sql.DB, driver *riversqlite.Driver) error {
	m, err := rivermigrate.New(driver, nil)
	if err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	//nolint:staticcheck // MigrateTx is deprecated for Postgres migrations that cannot share a transaction; River's SQLite ones can, and only a transaction holds the lock across River's check and its DDL
	if _, err := m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	return tx.Commit()
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

// EnqueueScan implements core.ScanQueue: the job is inserted in tx, the store's transaction,
// so that it exists exactly when the scan row does. A tx that is no database/sql transaction
// is refused rather than the job inserted on its own.
func (q *Queue) EnqueueScan(ctx context.Context, tx scan.Store, job scan.ScanJob) error {
	t, ok := txStore(tx)
	if !ok || t.SQLTx() == nil {
		return fmt.Errorf("enqueue scan %s: not inside a store transaction on the queue's database (%T)", job.ScanID, tx)
	}
	if err := q.insertTx(ctx, t.SQLTx(), ScanArgs{job}); err != nil {
		return fmt.Errorf("enqueue scan %s: %w", job.ScanID, err)
	}
	return nil
}

// ReclaimOrphans makes every job left running by a process that died workable again at once:
// available when it has attempts left, discarded otherwise (the sweeper then fails its scan with
// a sentence). Call it only where this process owns every job of the database, as 'consentd
// serve' owns the embedded SQLite store's, before its workers start: a job another live
// process is working would be worked twice. It returns how many jobs it reclaimed.
func (q *Queue) ReclaimOrphans(ctx context.Context) (int, error) {
	now := time.Now().UTC()
	// Every job attempted before now is an orphan: no worker of this process has started.
	stuck, err := q.exec.JobGetStuck(ctx, &riverdriver.JobGetStuckParams{Max: 10000, StuckHorizon: now.Add(time.Second)})
	if err != nil || len(stuck) == 0 {
		return 0, err
	}
	jobs := make([]ownJob, 0, len(stuck))
	for _, job := range stuck {
		jobs = append(jobs, ownJob{id: job.ID, attempt: job.Attempt, maxAttempts: job.MaxAttempts})
	}
	return q.reclaim(ctx, jobs, "the process working this job stopped; reclaimed when consentd started again")
}

// reclaim makes jobs available again at once (discarded when they have no attempt left: the
// sweeper then fails their scan with a sentence), recording why in each job's errors.
func (q *Queue) reclaim(ctx context.Context, jobs []ownJob, why string) (int, error) {
	if len(jobs) == 0 {
		return 0, nil
	}
	now := time.Now().UTC()
	p := &riverdriver.JobRescueManyParams{StuckHorizon: now.Add(time.Second)}
	for _, job := range jobs {
		msg, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: max(job.attempt, 0), Error: why})
		if err != nil {
			return 0, err
		}
		// Available, not retryable: workers fetch it at once, without waiting for the leader's
		// scheduler.
		state, finalized := rivertype.JobStateAvailable, (*time.Time)(nil)
		if job.attempt >= job.maxAttempts {
			state, finalized = rivertype.JobStateDiscarded, &now
		}
		p.ID = append(p.ID, job.id)
		p.Error = append(p.Error, msg)
		p.FinalizedAt = append(p.FinalizedAt, finalized)
		p.ScheduledAt = append(p.ScheduledAt, now)
		p.State = append(p.State, string(state))
	}
	if _, err := q.exec.JobRescueMany(ctx, p); err != nil {
		return 0, fmt.Errorf("reclaim orphaned jobs: %w", err)
	}
	q.cfg.Logger.Info("reclaimed scan jobs left running by a stopped process", slog.Int("jobs", len(jobs)))
	return len(jobs), nil
}

// Workers are the scan workers of a process: a River client working scan jobs through the
// core, plus the periodic sweeps and rescans when this process is River's leader.
type Workers struct {
	cfg    Config
	client riverClient
	q      *Queue
	// release lets the instance ID go (claimInstance); nil when none is held.
	release func()
}

// Workers builds this process's workers, which run scans through scans. With cfg.Workers 0
// they are inert: Start and Stop do nothing.
func (q *Queue) Workers(scans ScanWorker) (*Workers, error) {
	w := &Workers{cfg: q.cfg, q: q}
	if q.cfg.Workers == 0 {
		return w, nil
	}
	rc, err := q.riverConfig(scans)
	if err != nil {
		return nil, err
	}
	w.client, err = q.newClient(rc)
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return w, nil
}

// Start starts working jobs. The workers outlive ctx: River would take its cancellation for
// a hard stop that cancels running scans, so a graceful stop is Stop's business.
func (w *Workers) Start(ctx context.Context) error {
	if w.client == nil {
		return nil
	}
	if id := w.cfg.InstanceID; id != "" && w.q.claimInstance != nil {
		own, release, err := w.q.claimInstance(ctx, id)
		if err != nil {
			return err
		}
		w.release = release
		if _, err := w.q.reclaim(ctx, own, "the previous process of instance "+id+" stopped while working this job; reclaimed when it started again"); err != nil {
			w.releaseInstance()
			return err
		}
	}
	if err := w.client.Start(context.WithoutCancel(ctx)); err != nil {
		w.releaseInstance()
		return fmt.Errorf("start scan workers: %w", err)
	}
	return nil
}

// releaseInstance lets the instance ID go, once the workers stopped.
func (w *Workers) releaseInstance() {
	if w.release != nil {
		w.release()
		w.release = nil
	}
}

// cancelGrace bounds how long Stop waits for cancelled jobs to return.
const cancelGrace = 10 * time.Second

// Stop stops taking jobs and waits for running ones until ctx ends; then it cancels them
// (a cancelled scan is retried by another worker) and waits a little for them to return.
func (w *Workers) Stop(ctx context.Context) error {
	if w.client == nil {
		return nil
	}
	defer w.releaseInstance()
	w.q.stopping.Store(true)
	if err := w.client.Stop(ctx); err == nil || !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return err
	}
	w.cfg.Logger.Warn("scan workers: shutdown deadline reached, cancelling running scans")
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelGrace)
	defer cancel()
	return w.client.StopAndCancel(cctx)
}

// Close releases the queue's own connections (Postgres); call it after Stop.
func (q *Queue) Close() { q.close() }
