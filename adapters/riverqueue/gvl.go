package riverqueue

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/consentd/consentd/core/tcf"
)

// KindGVLRefresh is the job kind of the periodic refresh of the IAB's Global Vendor List.
const KindGVLRefresh = "tcf_gvl_refresh"

// GVLRefreshArgs are the arguments of the GVL refresh job.
type GVLRefreshArgs struct{}

// Kind implements river.JobArgs.
func (GVLRefreshArgs) Kind() string { return KindGVLRefresh }

// GVLRefresher is what the GVL refresh worker needs of the core (core.TCF).
type GVLRefresher interface {
	// RefreshGVL fetches what has expired of the GVL and its translations and stores each
	// new version.
	RefreshGVL(ctx context.Context) (*tcf.GVLRefresh, error)
}

// DefaultGVLRefreshEvery is how often the refresh job runs when no interval is given: the IAB
// publishes weekly and each resource is asked again only once its Cache-Control max-age has
// passed, so an hourly run costs nothing while the list is fresh.
const DefaultGVLRefreshEvery = time.Hour

// GVLRefreshAttempts bounds the attempts of one refresh: a failed attempt (the IAB's server
// unreachable, a 5xx) is retried by River on the queue's retry policy (Config.RetryBase,
// doubled at each attempt).
const GVLRefreshAttempts = 5

// SetGVLRefresh makes this process's workers run r.RefreshGVL every 'every'
// (DefaultGVLRefreshEvery when not positive) and at start, on the elected leader only. Call
// it before Workers.
func (q *Queue) SetGVLRefresh(r GVLRefresher, every time.Duration) {
	if every <= 0 {
		every = DefaultGVLRefreshEvery
	}
	q.gvl, q.gvlEvery = r, every
}

func (q *Queue) addGVLRefresh(workers *river.Workers) error {
	if q.gvl == nil {
		return nil
	}
	return river.AddWorkerSafely(workers, &gvlWorker{r: q.gvl, log: q.cfg.Logger})
}

func (q *Queue) gvlJobs() []*river.PeriodicJob {
	if q.gvl == nil {
		return nil
	}
	every := q.gvlEvery
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(every),
		func() (river.JobArgs, *river.InsertOpts) {
			return GVLRefreshArgs{}, &river.InsertOpts{MaxAttempts: GVLRefreshAttempts, UniqueOpts: river.UniqueOpts{ByPeriod: every}}
		},
		&river.PeriodicJobOpts{ID: KindGVLRefresh, RunOnStart: true})}
}

type gvlWorker struct {
	river.WorkerDefaults[GVLRefreshArgs]
	r   GVLRefresher
	log *slog.Logger
}

func (w *gvlWorker) Timeout(*river.Job[GVLRefreshArgs]) time.Duration { return 5 * time.Minute }

// Work runs one refresh; an error is returned for River to retry the job.
func (w *gvlWorker) Work(ctx context.Context, job *river.Job[GVLRefreshArgs]) error {
	r, err := w.r.RefreshGVL(asSystem(ctx, ActorGVLRefresh))
	if err != nil {
		w.log.Warn("tcf: Global Vendor List refresh failed", slog.Int("attempt", job.Attempt), slog.Any("error", err))
		return err
	}
	if len(r.Saved) > 0 {
		w.log.Info("tcf: Global Vendor List refreshed", slog.Int("version", r.Version), slog.String("saved", strings.Join(r.Saved, ",")))
	}
	return nil
}
