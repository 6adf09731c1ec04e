package riverqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
)

// Job kinds, as stored in River's job table.
const (
	KindScan   = "scan"
	KindRescan = "rescan_sites"
	KindSweep  = "scan_sweep"
)

// ScanArgs are the arguments of a scan job.
type ScanArgs struct {
	scan.ScanJob
}

// Kind implements river.JobArgs.
func (ScanArgs) Kind() string { return KindScan }

// RescanArgs are the arguments of the periodic job that rescans every site.
type RescanArgs struct{}

// Kind implements river.JobArgs.
func (RescanArgs) Kind() string { return KindRescan }

// SweepArgs are the arguments of the periodic job that fails scans River gave up on.
type SweepArgs struct{}

// Kind implements river.JobArgs.
func (SweepArgs) Kind() string { return KindSweep }

// ScanWorker is what the workers need of the core: run a scan job, fail the scan of a job River
// gives up on, and rescan every site.
type ScanWorker interface {
	// RunScan works one attempt of a job and returns the scan's status after it.
	RunScan(ctx context.Context, job scan.ScanJob, lastAttempt bool) (string, error)
	// FailUnfinished fails a scan that is still pending or running with reason, a sentence
	// for the site owner; a finished or deleted scan is left alone.
	FailUnfinished(ctx context.Context, scanID, reason string) error
	// RescanAll triggers a scan of every site and returns how many.
	RescanAll(ctx context.Context) (int, error)
	// RunSchedules triggers the scheduled scans that are due and returns how many.
	RunSchedules(ctx context.Context) (int, error)
}

// riverConfig is the workers' River configuration, shared by both databases.
func (q *Queue) riverConfig(m ScanWorker) (*river.Config, error) {
	cfg := q.cfg
	rc := &river.Config{
		ID:                   cfg.InstanceID,
		Logger:               slog.New(stopping{cfg.RiverLogger.Handler(), &q.stopping}),
		MaxAttempts:          cfg.MaxAttempts,
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
		RetryPolicy:          &retryPolicy{base: cfg.RetryBase},
		FetchPollInterval:    cfg.PollInterval,
		FetchCooldown:        min(cfg.PollInterval, 100*time.Millisecond),
		ErrorHandler:         &errorHandler{m: m, log: cfg.Logger},
		Middleware:           []rivertype.Middleware{&tracing{tracer: otel.Tracer("consentd/riverqueue")}},
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &scanWorker{m: m, timeout: cfg.JobTimeout}); err != nil {
		return nil, err
	}
	sweeper := &sweepWorker{m: m, jobs: q.inserter, log: cfg.Logger}
	if err := river.AddWorkerSafely(workers, sweeper); err != nil {
		return nil, err
	}
	if err := river.AddWorkerSafely(workers, &rescanWorker{m: m, log: cfg.Logger}); err != nil {
		return nil, err
	}
	if err := q.addRetention(workers); err != nil {
		return nil, err
	}
	if err := q.addWebhooks(workers); err != nil {
		return nil, err
	}
	if err := q.addDigests(workers); err != nil {
		return nil, err
	}
	if err := q.addGVLRefresh(workers); err != nil {
		return nil, err
	}
	rc.Workers = workers
	if cfg.Workers > 0 {
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}}
		// Periodic jobs are enqueued by the elected leader only, so one process does it
		// however many run.
		rc.PeriodicJobs = []*river.PeriodicJob{
			river.NewPeriodicJob(river.PeriodicInterval(cfg.SweepInterval),
				func() (river.JobArgs, *river.InsertOpts) { return SweepArgs{}, &river.InsertOpts{MaxAttempts: 1} },
				&river.PeriodicJobOpts{ID: KindSweep, RunOnStart: true}),
		}
		// Scheduled scans, the deployment's rescan interval being the default schedule: the
		// job looks for due scans every core.ScheduleTick (or as often as a shorter interval).
		tick := scan.ScheduleTick
		if cfg.RescanInterval > 0 {
			tick = min(tick, cfg.RescanInterval)
		}
		rc.PeriodicJobs = append(rc.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(tick),
			func() (river.JobArgs, *river.InsertOpts) { return RescanArgs{}, &river.InsertOpts{MaxAttempts: 1} },
			&river.PeriodicJobOpts{ID: KindRescan}))
		rc.PeriodicJobs = append(rc.PeriodicJobs, q.retentionJobs()...)
		rc.PeriodicJobs = append(rc.PeriodicJobs, q.webhookJobs()...)
		rc.PeriodicJobs = append(rc.PeriodicJobs, q.digestJobs()...)
		rc.PeriodicJobs = append(rc.PeriodicJobs, q.gvlJobs()...)
	}
	return rc, nil
}

// The system actors the jobs act as: the audit log names them as the authors of what they
// change (a scan's automatic configuration, records removed by retention...).
const (
	ActorScanWorker     = "scan worker"
	ActorScanSweeper    = "scan sweeper"
	ActorScanScheduler  = "scan scheduler"
	ActorRetention      = "retention job"
	ActorWebhookDeliver = "webhook delivery"
	ActorWebhookBatch   = "webhook consent batching"
	ActorDigest         = "digest job"
	ActorGVLRefresh     = "GVL refresh job"
)

// asSystem is ctx acting as the system actor name.
func asSystem(ctx context.Context, name string) context.Context {
	return core.WithActor(ctx, core.System(name))
}

type scanWorker struct {
	river.WorkerDefaults[ScanArgs]
	m       ScanWorker
	timeout time.Duration
}

func (w *scanWorker) Timeout(*river.Job[ScanArgs]) time.Duration { return w.timeout }

// Work runs the scan. On the last attempt a temporary failure ends the scan failed instead of
// being retried.
func (w *scanWorker) Work(ctx context.Context, job *river.Job[ScanArgs]) error {
	ctx = asSystem(ctx, ActorScanWorker)
	start := time.Now()
	status, err := w.m.RunScan(ctx, job.Args.ScanJob, job.Attempt >= job.MaxAttempts)
	observeScan(job.JobRow, status, time.Since(start))
	if span := trace.SpanFromContext(ctx); span.IsRecording() && status != "" {
		span.SetAttributes(attribute.String("consentd.scan.status", status))
	}
	return err
}

// errorHandler fails the scan of a job River is about to discard: its last attempt returned
// an error, which means RunScan could not record the outcome itself (the database was
// unreachable, say), or it panicked. Should this fail too, the sweeper tries again later.
type errorHandler struct {
	m   ScanWorker
	log *slog.Logger
}

func (h *errorHandler) HandleError(ctx context.Context, job *rivertype.JobRow, err error) *river.ErrorHandlerResult {
	if job.Attempt >= job.MaxAttempts {
		h.log.Error("scan job failed on its last attempt", slog.Int64("job", job.ID), slog.Any("error", err))
		h.failScan(ctx, job, scan.ScanInternalFailure)
	}
	return nil
}

func (h *errorHandler) HandlePanic(ctx context.Context, job *rivertype.JobRow, v any, stack string) *river.ErrorHandlerResult {
	h.log.Error("scan job panicked", slog.Int64("job", job.ID), slog.Any("panic", v), slog.String("stack", stack))
	if job.Attempt >= job.MaxAttempts {
		h.failScan(ctx, job, scan.ScanInternalFailure)
	}
	return nil
}

func (h *errorHandler) failScan(ctx context.Context, job *rivertype.JobRow, reason string) {
	if job.Kind != KindScan {
		return
	}
	var args ScanArgs
	if err := json.Unmarshal(job.EncodedArgs, &args); err != nil {
		return
	}
	if err := h.m.FailUnfinished(asSystem(context.WithoutCancel(ctx), ActorScanWorker), args.ScanID, reason); err != nil {
		h.log.Warn("could not fail the scan of a discarded job; the sweeper will retry",
			slog.String("scan", args.ScanID), slog.Any("error", err))
	}
}

// sweepWindow is how far back the sweeper looks at jobs River gave up on.
const sweepWindow = 24 * time.Hour

// sweepWorker fails the scans of jobs that River discarded or cancelled while the scan was
// still pending or running: River's rescuer discards a job whose worker died during its last
// attempt without running any of our code, and the error handler may have failed to write.
type sweepWorker struct {
	river.WorkerDefaults[SweepArgs]
	m ScanWorker
	// jobs lists River's jobs (the queue's insert-only client does).
	jobs riverClient
	log  *slog.Logger
}

func (w *sweepWorker) Timeout(*river.Job[SweepArgs]) time.Duration { return time.Minute }

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[SweepArgs]) error {
	ctx = asSystem(ctx, ActorScanSweeper)
	params := river.NewJobListParams().Kinds(KindScan).
		States(rivertype.JobStateDiscarded, rivertype.JobStateCancelled).
		OrderBy(river.JobListOrderByFinalizedAt, river.SortOrderDesc).First(500)
	res, err := w.jobs.JobList(ctx, params)
	if err != nil {
		return fmt.Errorf("sweep: list jobs: %w", err)
	}
	since := time.Now().Add(-sweepWindow)
	for _, job := range res.Jobs {
		if job.FinalizedAt != nil && job.FinalizedAt.Before(since) {
			break
		}
		var args ScanArgs
		if err := json.Unmarshal(job.EncodedArgs, &args); err != nil {
			continue
		}
		if err := w.m.FailUnfinished(ctx, args.ScanID, abandonedReason(job)); err != nil {
			return fmt.Errorf("sweep: scan %s: %w", args.ScanID, err)
		}
	}
	return nil
}

// abandonedReason explains, to the site owner, a scan whose job River gave up on; the job's
// own errors stay in River's table and the log.
func abandonedReason(job *rivertype.JobRow) string {
	if job.State == rivertype.JobStateCancelled {
		return scan.ScanCancelled
	}
	if n := len(job.Errors); n > 0 && job.Errors[n-1].Attempt == job.Attempt {
		return scan.ScanInternalFailure
	}
	return scan.ScanAbandoned
}

// rescanWorker triggers the scheduled scans that are due (docs/scan-jobs.md).
type rescanWorker struct {
	river.WorkerDefaults[RescanArgs]
	m   ScanWorker
	log *slog.Logger
}

func (w *rescanWorker) Timeout(*river.Job[RescanArgs]) time.Duration { return 30 * time.Minute }

func (w *rescanWorker) Work(ctx context.Context, _ *river.Job[RescanArgs]) error {
	ctx = asSystem(ctx, ActorScanScheduler)
	n, err := w.m.RunSchedules(ctx)
	if n > 0 || err != nil {
		w.log.Info("scheduled scans", slog.Int("scans", n), slog.Any("error", err))
	}
	return err
}

// retryPolicy retries after base, 2·base, 4·base… (capped at 1024·base), with up to 10%
// jitter so that scans failing together do not all come back at once.
type retryPolicy struct{ base time.Duration }

func (p *retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	n := max(job.Attempt-1, 0)
	d := p.base << min(n, 10)
	d += time.Duration(rand.Int64N(int64(d)/10 + 1))
	return time.Now().Add(d)
}
