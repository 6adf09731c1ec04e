package riverqueue

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/consentd/consentd/core/event"
)

// Job kinds of webhooks.
const (
	KindWebhookDelivery = "webhook_delivery"
	KindConsentDispatch = "webhook_consent_dispatch"
)

// DeliveryArgs are the arguments of a webhook delivery job.
type DeliveryArgs struct {
	DeliveryID string `json:"deliveryId"`
	// attempts is the job's attempts: one, plus one per retry of the schedule.
	attempts int
}

// Kind implements river.JobArgs.
func (DeliveryArgs) Kind() string { return KindWebhookDelivery }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (a DeliveryArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: a.attempts} }

// ConsentDispatchArgs are the arguments of the periodic job that batches consent records into
// consent.recorded deliveries.
type ConsentDispatchArgs struct{}

// Kind implements river.JobArgs.
func (ConsentDispatchArgs) Kind() string { return KindConsentDispatch }

// Webhooks is what the webhook workers need of the core.
type Webhooks interface {
	// Deliver works one attempt of a delivery; an error asks for a retry.
	Deliver(ctx context.Context, deliveryID string, lastAttempt bool) error
	// DispatchConsents makes the consent.recorded deliveries due and returns how many records
	// they carry.
	DispatchConsents(ctx context.Context) (int, error)
}

// SetWebhooks makes this process's workers deliver webhooks through w, retrying each delivery
// after the delays of schedule (core.WebhookRetrySchedule when empty), and batch consent
// records every core.ConsentDispatchEvery. Call it before Workers.
func (q *Queue) SetWebhooks(w Webhooks, schedule []time.Duration) {
	if len(schedule) == 0 {
		schedule = event.WebhookRetrySchedule()
	}
	q.webhooks, q.webhookSchedule = w, schedule
}

// EnqueueDelivery implements core.WebhookQueue: the job is inserted in tx, the store's
// transaction, so that it exists exactly when the delivery row does.
func (q *Queue) EnqueueDelivery(ctx context.Context, tx event.EventStore, deliveryID string) error {
	t, ok := txStore(tx)
	if !ok || t.SQLTx() == nil {
		return fmt.Errorf("enqueue delivery %s: not inside a store transaction on the queue's database (%T)", deliveryID, tx)
	}
	schedule := q.webhookSchedule
	if len(schedule) == 0 {
		schedule = event.WebhookRetrySchedule()
	}
	if err := q.insertTx(ctx, t.SQLTx(), DeliveryArgs{DeliveryID: deliveryID, attempts: len(schedule) + 1}); err != nil {
		return fmt.Errorf("enqueue delivery %s: %w", deliveryID, err)
	}
	return nil
}

func (q *Queue) addWebhooks(workers *river.Workers) error {
	if q.webhooks == nil {
		return nil
	}
	if err := river.AddWorkerSafely(workers, &deliveryWorker{w: q.webhooks, schedule: q.webhookSchedule}); err != nil {
		return err
	}
	return river.AddWorkerSafely(workers, &dispatchWorker{w: q.webhooks, log: q.cfg.Logger})
}

func (q *Queue) webhookJobs() []*river.PeriodicJob {
	if q.webhooks == nil {
		return nil
	}
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(event.ConsentDispatchEvery),
		func() (river.JobArgs, *river.InsertOpts) {
			return ConsentDispatchArgs{}, &river.InsertOpts{MaxAttempts: 1}
		},
		&river.PeriodicJobOpts{ID: KindConsentDispatch, RunOnStart: true})}
}

// deliveryWorker works one attempt of a delivery, retried on the schedule.
type deliveryWorker struct {
	river.WorkerDefaults[DeliveryArgs]
	w        Webhooks
	schedule []time.Duration
}

func (d *deliveryWorker) Timeout(*river.Job[DeliveryArgs]) time.Duration {
	return event.WebhookTimeout + 15*time.Second
}

func (d *deliveryWorker) Work(ctx context.Context, job *river.Job[DeliveryArgs]) error {
	return d.w.Deliver(asSystem(ctx, ActorWebhookDeliver), job.Args.DeliveryID, job.Attempt >= job.MaxAttempts)
}

// NextRetry follows the schedule: the n-th retry comes schedule[n-1] after the failed attempt.
func (d *deliveryWorker) NextRetry(job *river.Job[DeliveryArgs]) time.Time {
	i := min(max(job.Attempt-1, 0), len(d.schedule)-1)
	return time.Now().Add(d.schedule[i])
}

// dispatchWorker batches consent records into deliveries.
type dispatchWorker struct {
	river.WorkerDefaults[ConsentDispatchArgs]
	w   Webhooks
	log *slog.Logger
}

func (d *dispatchWorker) Timeout(*river.Job[ConsentDispatchArgs]) time.Duration { return time.Minute }

func (d *dispatchWorker) Work(ctx context.Context, _ *river.Job[ConsentDispatchArgs]) error {
	_, err := d.w.DispatchConsents(asSystem(ctx, ActorWebhookBatch))
	return err
}

var _ event.WebhookQueue = (*Queue)(nil)

var _ event.WebhookQueue = (*Queue)(nil)
