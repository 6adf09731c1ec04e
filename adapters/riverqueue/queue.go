// Package riverqueue runs scan jobs on River: durable jobs in the same database as the data,
// inserted in the transaction that creates their scan, retried with backoff, and rescued when
// a worker process dies.
package riverqueue

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/consentd/consentd/core"
)

// ScanArgs are the arguments of a scan job.
type ScanArgs struct {
	core.ScanJob
}

// Kind implements river.JobArgs.
func (ScanArgs) Kind() string { return "scan" }

// Config tunes the queue.
type Config struct {
	// Workers is how many scans run at once in this process; 0 makes an insert-only queue.
	Workers int
	// MaxAttempts bounds the attempts of a scan job (default 3).
	MaxAttempts int
	// JobTimeout bounds one attempt (default 5 minutes).
	JobTimeout time.Duration
	// RetryBase is the first retry delay, doubled on each further attempt (default 5 s).
	RetryBase time.Duration
	// RescueAfter is how long a job may stay running before it counts as abandoned by a dead
	// worker and is worked again (default one hour; must exceed JobTimeout).
	RescueAfter time.Duration
	// PollInterval is how often workers look for jobs (default 1 s).
	PollInterval time.Duration
	Logger       *slog.Logger
}

func (c *Config) defaults() {
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 3
	}
	if c.JobTimeout == 0 {
		c.JobTimeout = 5 * time.Minute
	}
	if c.RetryBase == 0 {
		c.RetryBase = 5 * time.Second
	}
	if c.RescueAfter == 0 {
		c.RescueAfter = time.Hour
	}
	if c.PollInterval == 0 {
		c.PollInterval = time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Queue is the core.ScanQueue on River over SQLite.
type Queue struct {
	client *river.Client[*sql.Tx]
	cfg    Config
}

var _ core.ScanQueue = (*Queue)(nil)

// Migrate applies River's own schema migrations.
func Migrate(ctx context.Context, db *sql.DB) error {
	m, err := rivermigrate.New(riversqlite.New(db), nil)
	if err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	return nil
}

// NewSQLite returns a queue on a SQLite database whose workers run scans through m.
func NewSQLite(db *sql.DB, m *core.Manager, cfg Config) (*Queue, error) {
	cfg.defaults()
	rc := &river.Config{
		Logger:               cfg.Logger,
		MaxAttempts:          cfg.MaxAttempts,
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
		RetryPolicy:          &retryPolicy{base: cfg.RetryBase},
		FetchPollInterval:    cfg.PollInterval,
		FetchCooldown:        min(cfg.PollInterval, 100*time.Millisecond),
	}
	if cfg.Workers > 0 {
		workers := river.NewWorkers()
		if err := river.AddWorkerSafely(workers, &scanWorker{m: m, timeout: cfg.JobTimeout}); err != nil {
			return nil, err
		}
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}}
	}
	client, err := river.NewClient(riversqlite.New(db), rc)
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return &Queue{client: client, cfg: cfg}, nil
}

// EnqueueScan implements core.ScanQueue. Inside a SQL store transaction the job is inserted in
// it, so that it exists exactly when the scan row does.
func (q *Queue) EnqueueScan(ctx context.Context, tx core.Store, job core.ScanJob) error {
	var err error
	if t, ok := tx.(interface{ SQLTx() *sql.Tx }); ok && t.SQLTx() != nil {
		_, err = q.client.InsertTx(ctx, t.SQLTx(), ScanArgs{job}, nil)
	} else {
		_, err = q.client.Insert(ctx, ScanArgs{job}, nil)
	}
	if err != nil {
		return fmt.Errorf("enqueue scan: %w", err)
	}
	return nil
}

// Start starts working jobs (a no-op for an insert-only queue).
func (q *Queue) Start(ctx context.Context) error {
	if q.cfg.Workers == 0 {
		return nil
	}
	return q.client.Start(ctx)
}

// Stop stops taking jobs and waits for running ones until ctx ends, then cancels them.
func (q *Queue) Stop(ctx context.Context) error {
	if q.cfg.Workers == 0 {
		return nil
	}
	if err := q.client.Stop(ctx); err != nil {
		return q.client.StopAndCancel(context.WithoutCancel(ctx))
	}
	return nil
}

type scanWorker struct {
	river.WorkerDefaults[ScanArgs]
	m       *core.Manager
	timeout time.Duration
}

func (w *scanWorker) Timeout(*river.Job[ScanArgs]) time.Duration { return w.timeout }

// Work runs the scan. On the last attempt a temporary failure ends the scan failed instead of
// being retried.
func (w *scanWorker) Work(ctx context.Context, job *river.Job[ScanArgs]) error {
	return w.m.RunScan(ctx, job.Args.ScanJob, job.Attempt >= job.MaxAttempts)
}

// retryPolicy retries after base, 2·base, 4·base…
type retryPolicy struct{ base time.Duration }

func (p *retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	n := max(job.Attempt-1, 0)
	return time.Now().Add(p.base << min(n, 10))
}
