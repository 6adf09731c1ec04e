package riverqueue

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// KindConsentRetention is the job kind of the periodic removal of old consent records and of
// the audit entries their retention has expired.
const KindConsentRetention = "consent_retention"

// ConsentRetentionArgs are the arguments of the periodic consent retention job.
type ConsentRetentionArgs struct{}

// Kind implements river.JobArgs.
func (ConsentRetentionArgs) Kind() string { return KindConsentRetention }

// ConsentRetention is what the retention worker needs of the core: remove the records every
// site's consentRetentionDays has expired, whole chain batches at a time, and the audit
// entries that retention has expired, oldest first.
type ConsentRetention interface {
	// ApplyConsentRetention removes them and returns how many records it removed.
	ApplyConsentRetention(ctx context.Context) (int, error)
	// ApplyAuditRetention removes them and returns how many audit entries it removed.
	ApplyAuditRetention(ctx context.Context) (int, error)
}

// DefaultRetentionInterval is how often the retention job runs when none is given.
const DefaultRetentionInterval = time.Hour

// SetConsentRetention makes this process's workers run r periodically (every 'every', or
// DefaultRetentionInterval when it is not positive). Call it before Workers. Like the other
// periodic jobs, only the elected leader enqueues it, so one process runs it at a time.
func (q *Queue) SetConsentRetention(r ConsentRetention, every time.Duration) {
	if every <= 0 {
		every = DefaultRetentionInterval
	}
	q.retention, q.retentionEvery = r, every
}

func (q *Queue) addRetention(workers *river.Workers) error {
	if q.retention == nil {
		return nil
	}
	return river.AddWorkerSafely(workers, &retentionWorker{r: q.retention, log: q.cfg.Logger})
}

func (q *Queue) retentionJobs() []*river.PeriodicJob {
	if q.retention == nil {
		return nil
	}
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(q.retentionEvery),
		func() (river.JobArgs, *river.InsertOpts) {
			return ConsentRetentionArgs{}, &river.InsertOpts{MaxAttempts: 1}
		},
		&river.PeriodicJobOpts{ID: KindConsentRetention, RunOnStart: true})}
}

// retentionWorker runs one pass of consent retention.
type retentionWorker struct {
	river.WorkerDefaults[ConsentRetentionArgs]
	r   ConsentRetention
	log *slog.Logger
}

func (w *retentionWorker) Timeout(*river.Job[ConsentRetentionArgs]) time.Duration {
	return 30 * time.Minute
}

// Work removes expired records, then expired audit entries (one failing does not stop the
// other); a failure is returned (River records it) and the next run takes up where this one
// stopped, since each step removes whole batches or entries in one transaction.
func (w *retentionWorker) Work(ctx context.Context, _ *river.Job[ConsentRetentionArgs]) error {
	ctx = asSystem(ctx, ActorRetention)
	n, err := w.r.ApplyConsentRetention(ctx)
	if n > 0 {
		w.log.Info("consent retention", slog.Int("removed", n))
	}
	na, errAudit := w.r.ApplyAuditRetention(ctx)
	if na > 0 {
		w.log.Info("audit retention", slog.Int("removed", na))
	}
	return errors.Join(err, errAudit)
}
