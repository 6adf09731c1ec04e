package riverqueue

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// KindDigest is the job kind of the periodic email digests.
const KindDigest = "email_digest"

// DigestArgs are the arguments of the periodic digest job.
type DigestArgs struct{}

// Kind implements river.JobArgs.
func (DigestArgs) Kind() string { return KindDigest }

// Digests is what the digest worker needs of the core.
type Digests interface {
	// SendDigests emails what changed since each site's last digest; it returns how many.
	SendDigests(ctx context.Context) (int, error)
}

// SetDigests makes this process's workers send digests through d every 'every' (on the
// elected leader only). Call it before Workers.
func (q *Queue) SetDigests(d Digests, every time.Duration) {
	q.digests, q.digestEvery = d, every
}

func (q *Queue) addDigests(workers *river.Workers) error {
	if q.digests == nil {
		return nil
	}
	return river.AddWorkerSafely(workers, &digestWorker{d: q.digests, log: q.cfg.Logger})
}

func (q *Queue) digestJobs() []*river.PeriodicJob {
	if q.digests == nil || q.digestEvery <= 0 {
		return nil
	}
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(q.digestEvery),
		func() (river.JobArgs, *river.InsertOpts) { return DigestArgs{}, &river.InsertOpts{MaxAttempts: 1} },
		&river.PeriodicJobOpts{ID: KindDigest})}
}

type digestWorker struct {
	river.WorkerDefaults[DigestArgs]
	d   Digests
	log *slog.Logger
}

func (w *digestWorker) Timeout(*river.Job[DigestArgs]) time.Duration { return 30 * time.Minute }

func (w *digestWorker) Work(ctx context.Context, _ *river.Job[DigestArgs]) error {
	n, err := w.d.SendDigests(asSystem(ctx, ActorDigest))
	if n > 0 || err != nil {
		w.log.Info("email digests", slog.Int("sent", n), slog.Any("error", err))
	}
	return err
}
