package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/consentd/consentd/core/event"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

// ConsentBatchEvent is the data of a consent.recorded event: records of the endpoint's
// organization's sites, in each site's chain order.
type ConsentBatchEvent struct {
	Records []*consent.ConsentRecord `json:"records"`
}

// DispatchConsents makes, for every endpoint subscribed to consent.recorded, one delivery of
// the records committed since its last one (at most MaxConsentsPerDelivery), and moves its
// cursors past them in the same transaction. Records are read in chain order from the
// committed chain heads, which only move forward once everything before them committed, so no
// record is skipped. Queues run it every ConsentDispatchEvery on one process. It returns how
// many records it handed to deliveries.
func (hooks *Webhooks) DispatchConsents(ctx context.Context) (int, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return 0, err
	}
	eps, err := hooks.Store.EndpointsSubscribedTo(ctx, event.EventConsentRecorded)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, ep := range eps {
		n, err := hooks.dispatchConsentsTo(ctx, ep.ID)
		if err != nil {
			return total, fmt.Errorf("consent webhooks of endpoint %s: %w", ep.ID, err)
		}
		total += n
	}
	return total, nil
}

func (hooks *Webhooks) dispatchConsentsTo(ctx context.Context, endpointID string) (int, error) {
	n := 0
	err := hooks.Store.InTx(ctx, func(tx Store) error {
		e, err := tx.LockWebhookEndpoint(ctx, endpointID)
		if err != nil {
			return err
		}
		if !e.Subscribed(event.EventConsentRecorded) {
			return nil
		}
		sites, err := tx.Sites(ctx, e.OrganizationID)
		if err != nil {
			return err
		}
		if e.ConsentCursor == nil {
			e.ConsentCursor = map[string]int64{}
		}
		var records []*consent.ConsentRecord
		moved := false
		for _, s := range sites {
			if len(records) >= event.MaxConsentsPerDelivery {
				break
			}
			ch, err := tx.ConsentChain(ctx, s.ID)
			if err != nil {
				return err
			}
			from := e.ConsentCursor[s.ID]
			if ch.HeadSeq <= from {
				continue
			}
			// Whole batches, up to the limit (at least one batch).
			batches, err := tx.ConsentBatches(ctx, s.ID, from, ch.HeadSeq, 1000)
			if err != nil {
				return err
			}
			to, room := from, event.MaxConsentsPerDelivery-len(records)
			for i, b := range batches {
				if i > 0 && b.Records > room {
					break
				}
				to, room = b.Seq, room-b.Records
			}
			if to == from {
				continue
			}
			// A record of a later batch was made (createdAt) before its batch committed, so no
			// earlier than consentSlack before the newest record of the batch at the cursor:
			// a bound that lets the store read the recent records through its createdAt index.
			var since time.Time
			if from > 0 {
				prev, err := tx.ConsentBatches(ctx, s.ID, from-1, from, 1)
				if err != nil {
					return err
				}
				if len(prev) == 1 {
					since = prev[0].NewestAt.Add(-event.ConsentSlack)
				}
			}
			rs, err := tx.ConsentRecordsOfBatches(ctx, s.ID, from, to, since)
			if err != nil {
				return err
			}
			records = append(records, rs...)
			e.ConsentCursor[s.ID], moved = to, true
		}
		if !moved {
			return nil
		}
		if len(records) > 0 {
			payload, err := json.Marshal(event.Event{Type: event.EventConsentRecorded, Timestamp: hooks.Clock.Now(), Data: ConsentBatchEvent{Records: records}})
			if err != nil {
				return err
			}
			if _, err := hooks.Events.NewDelivery(ctx, tx, e, event.EventConsentRecorded, payload); err != nil {
				return err
			}
		}
		n = len(records)
		return tx.UpdateWebhookEndpoint(ctx, e)
	})
	return n, err
}

// Deliver works one attempt of a delivery job: it signs and sends the payload and records the
// attempt. It returns an error when the attempt failed and another should follow (the queue
// retries on the WebhookRetrySchedule); on the last attempt the delivery ends failed, and an
// endpoint failing for WebhookDisableAfter is disabled. A delivered, cancelled or deleted
// delivery is not sent again. To an endpoint that is failing, the endpoint's older pending
// deliveries go first, oldest first (catchUp), so that a receiver that comes back gets what it
// missed within seconds and in order, not on each delivery's next retry step.
func (hooks *Webhooks) Deliver(ctx context.Context, deliveryID string, lastAttempt bool) error {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return err
	}
	if hooks.Sender == nil {
		return errors.New("core: webhooks need a sender")
	}
	d, err := hooks.Store.WebhookDelivery(ctx, "", deliveryID)
	if core.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if d.Status != event.DeliveryPending {
		return nil
	}
	mu, _ := hooks.sending.LoadOrStore(d.EndpointID, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	// Read again: a catch-up of another delivery to the endpoint may have sent it meanwhile.
	if d, err = hooks.Store.WebhookDelivery(ctx, "", deliveryID); core.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if d.Status != event.DeliveryPending {
		return nil
	}
	e, err := hooks.Store.WebhookEndpoint(ctx, "", d.EndpointID)
	if core.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !e.Enabled {
		d.Status, d.UpdatedAt = event.DeliveryCancelled, hooks.Clock.Now()
		return hooks.Store.UpdateWebhookDelivery(ctx, d)
	}
	held, err := hooks.catchUp(ctx, e, d)
	if err != nil {
		return err
	}
	if held != nil {
		failure, err := hooks.record(ctx, e, d, *held, false, lastAttempt)
		if err != nil {
			return err
		}
		return failure
	}
	at, ok := hooks.send(ctx, e, d)
	failure, err := hooks.record(ctx, e, d, at, ok, lastAttempt)
	if err != nil {
		return err
	}
	return failure
}

// catchUpBatch is how many older pending deliveries catchUp reads at a time.
const catchUpBatch = 100

// catchUpProbeEvery is how long after a pending delivery's last failed attempt catchUp tries
// it again, ahead of its own retry schedule: a twelfth of the time since its first attempt,
// from the first retry step (5 s) to 5 minutes. A receiver back after a short outage is caught
// up within seconds, and one down for a day gets no more than a request every 5 minutes on top
// of the schedule, however many new deliveries are made meanwhile.
func catchUpProbeEvery(failingFor time.Duration) time.Duration {
	return min(max(failingFor/12, 5*time.Second), 5*time.Minute)
}

// catchUp keeps an endpoint's deliveries in order: before d goes out, the endpoint's pending
// deliveries older than d go, oldest first. One not yet attempted (its job has not run yet)
// goes at once; one that failed while the endpoint was down goes at once once a delivery has
// reached the endpoint again (in this process: recovered); any other failed one goes when
// catchUpProbeEvery has passed since its last attempt.
// When one finds the receiver unavailable (no answer, a 5xx, 408 or 429), or waits for its
// probe while the endpoint is failing, d is held back: catchUp returns the attempt that says
// so, which d's log shows, and d follows its own retry schedule (or the next delivery's
// catch-up, whichever is first). An older delivery that the receiver refused (another 4xx)
// keeps its own schedule and does not hold the newer ones back. This is how a receiver that
// comes back after an outage gets what it missed within seconds of the first delivery that
// reaches it, in order, instead of on each delivery's next retry step.
func (hooks *Webhooks) catchUp(ctx context.Context, e *event.WebhookEndpoint, d *event.WebhookDelivery) (*event.DeliveryAttempt, error) {
	held := func(format string, args ...any) *event.DeliveryAttempt {
		msg := fmt.Sprintf(format, args...)
		return &event.DeliveryAttempt{At: hooks.Clock.Now(), Error: &msg}
	}
	failing := e.FailingSince != nil
	tried := map[string]bool{}
	for {
		older, err := hooks.Store.OlderPendingWebhookDeliveries(ctx, e.ID, d.ID, catchUpBatch)
		if err != nil {
			return nil, err
		}
		progress := false
		for _, o := range older {
			if tried[o.ID] {
				continue
			}
			tried[o.ID], progress = true, true
			if n := len(o.Attempts); n > 0 {
				now, last := hooks.Clock.Now(), o.Attempts[n-1]
				back, _ := hooks.recovered.Load(e.ID)
				duringOutage := back != nil && last.At.Before(back.(time.Time))
				if !duringOutage && now.Sub(last.At) < catchUpProbeEvery(now.Sub(o.Attempts[0].At)) {
					if failing && unavailable(last) {
						return held("not sent: the endpoint is failing and the older delivery %s waits to go first", o.ID), nil
					}
					continue
				}
			}
			at, ok := hooks.send(ctx, e, o)
			if _, err := hooks.record(ctx, e, o, at, ok, false); err != nil {
				return nil, err
			}
			if ok {
				failing = false
				continue
			}
			failing = true
			if unavailable(at) {
				return held("not sent: the older delivery %s failed first (%s)", o.ID, attemptOutcome(at)), nil
			}
		}
		if !progress {
			return nil, nil
		}
	}
}

// unavailable tells an attempt that found the receiver unable to take deliveries (no answer,
// 408, 429, 5xx) from one it refused.
func unavailable(a event.DeliveryAttempt) bool {
	if a.StatusCode == nil {
		return true
	}
	c := *a.StatusCode
	return c == 408 || c == 429 || c >= 500
}

// send makes one signed attempt of d and says whether the receiver acknowledged it.
func (hooks *Webhooks) send(ctx context.Context, e *event.WebhookEndpoint, d *event.WebhookDelivery) (event.DeliveryAttempt, bool) {
	start := hooks.Clock()
	sctx, cancel := context.WithTimeout(ctx, event.WebhookTimeout)
	res, sendErr := hooks.Sender.Send(sctx, WebhookRequest{URL: e.URL, Secret: e.Secret, ID: d.ID, Timestamp: start, Payload: d.Payload})
	cancel()
	at := event.DeliveryAttempt{At: hooks.Clock.Now(), DurationMS: hooks.Clock().Sub(start).Milliseconds()}
	ok := false
	if sendErr != nil {
		msg := sendErr.Error()
		at.Error = &msg
	} else {
		code := res.StatusCode
		at.StatusCode, at.Response = &code, event.Excerpt(res.Body)
		ok = code >= 200 && code < 300
	}
	return at, ok
}

// record stores the attempt at of d and what it means for the endpoint. failure is non-nil
// when the attempt failed and another should follow; err when the store failed.
func (hooks *Webhooks) record(ctx context.Context, e *event.WebhookEndpoint, d *event.WebhookDelivery, at event.DeliveryAttempt, ok, lastAttempt bool) (failure, err error) {
	var disabled *event.WebhookEndpoint
	recovered := false
	err = hooks.Store.InTx(context.WithoutCancel(ctx), func(tx Store) error {
		d.Attempts = append(d.Attempts, at)
		d.UpdatedAt = at.At
		ep, err := tx.LockWebhookEndpoint(ctx, e.ID)
		if err != nil {
			return err
		}
		before := core.Snapshot(ep)
		switch {
		case ok:
			d.Status = event.DeliveryDelivered
			if ep.FailingSince != nil {
				recovered = true
			}
			ep.FailingSince = nil
		default:
			if ep.FailingSince == nil {
				ep.FailingSince = &at.At
			}
			if lastAttempt {
				d.Status = event.DeliveryFailed
				if ep.Enabled && at.At.Sub(*ep.FailingSince) >= event.WebhookDisableAfter {
					reason := fmt.Sprintf("disabled by consentd on %s: every delivery failed since %s; the last answer: %s",
						at.At.Format(time.RFC3339), ep.FailingSince.Format(time.RFC3339), attemptOutcome(at))
					ep.Enabled, ep.DisabledReason = false, &reason
					disabled = ep
					hooks.Log.Warn("webhook endpoint disabled after persistent failure", slog.String("endpoint", ep.ID), slog.String("url", ep.URL))
				}
			} else {
				failure = fmt.Errorf("delivery %s to endpoint %s: %s", d.ID, ep.ID, attemptOutcome(at))
			}
		}
		ep.UpdatedAt = at.At
		if err := tx.UpdateWebhookEndpoint(ctx, ep); err != nil {
			return err
		}
		if disabled != nil {
			// No key or member acts: the delivery worker, as the named system actor Deliver
			// requires (the River worker's "webhook delivery").
			if err := hooks.Audit.Record(ctx, tx, ep.OrganizationID, "", core.AuditWebhookUpdate, ep.ID, before, ep); err != nil {
				return err
			}
		}
		return tx.UpdateWebhookDelivery(ctx, d)
	})
	if err != nil {
		return nil, err
	}
	if recovered {
		hooks.recovered.Store(e.ID, at.At)
	}
	if disabled != nil {
		hooks.noticeDisabled(context.WithoutCancel(ctx), disabled)
	}
	return failure, nil
}

// noticeDisabled emails the digest recipients of the endpoint's organization's sites (each
// address once) that consentd disabled the endpoint: deliveries stop until someone enables
// it again, so the people who watch the sites should know. A failure is logged: the
// endpoint stays disabled either way, and its reason is in the API and the console.
func (hooks *Webhooks) noticeDisabled(ctx context.Context, e *event.WebhookEndpoint) {
	if hooks.Mailer == nil {
		return
	}
	sites, err := hooks.Store.Sites(ctx, e.OrganizationID)
	if err != nil {
		hooks.Log.Error("could not email that a webhook endpoint was disabled", slog.String("endpoint", e.ID), slog.Any("error", err))
		return
	}
	seen := map[string]bool{}
	for _, s := range sites {
		for _, r := range s.DigestRecipients {
			if seen[r.Email] {
				continue
			}
			seen[r.Email] = true
			unsub := hooks.PublicURL + core.APIPrefix + "/unsubscribe/" + r.Token
			msg := core.EmailMessage{To: r.Email, Unsubscribe: unsub,
				Subject: "consentd: a webhook endpoint was disabled after failures",
				Text: fmt.Sprintf("consentd stopped delivering events to the webhook endpoint %s of your organization.\n\n%s\n\n"+
					"Deliveries resume once someone fixes the receiver and enables the endpoint again: %s/webhooks\n\n--\n"+
					"You get this email because an administrator added %s to the digest of %s.\nUnsubscribe: %s\n",
					e.URL, core.Deref(e.DisabledReason), hooks.PublicURL, r.Email, s.Name, unsub)}
			if err := hooks.Mailer.Send(ctx, msg); err != nil {
				hooks.Log.Error("could not email that a webhook endpoint was disabled", slog.String("endpoint", e.ID),
					slog.String("to", r.Email), slog.Any("error", err))
			}
		}
	}
}

func attemptOutcome(a event.DeliveryAttempt) string {
	if a.StatusCode != nil {
		return fmt.Sprintf("HTTP %d", *a.StatusCode)
	}
	if a.Error != nil {
		return *a.Error
	}
	return "no answer"
}
