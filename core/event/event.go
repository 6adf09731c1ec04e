package event

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// Event types a webhook endpoint subscribes to.
const (
	EventScanCompleted     = "scan.completed"
	EventScanFailed        = "scan.failed"
	EventScanChanged       = "scan.changed"
	EventComplianceChanged = "compliance.changed"
	EventConsentRecorded   = "consent.recorded"
	EventVisitorErased     = "visitor.erased"
	EventConfigChanged     = "config.changed"
)

// EventWebhookTest is the event of a test delivery (Webhooks.SendTest): sent to one endpoint
// on request, whatever it subscribes to; not an event type to subscribe to.
const EventWebhookTest = "webhook.test"

// EventTypes returns the event types, in the order the API lists them.
func EventTypes() []string {
	return []string{EventScanCompleted, EventScanFailed, EventScanChanged, EventComplianceChanged,
		EventConsentRecorded, EventVisitorErased, EventConfigChanged}
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
	// DeliveryCancelled is a delivery whose endpoint was disabled or deleted before it went out.
	DeliveryCancelled = "cancelled"
)

// DeliveryStatuses returns the delivery statuses.
func DeliveryStatuses() []string {
	return []string{DeliveryPending, DeliveryDelivered, DeliveryFailed, DeliveryCancelled}
}

// Limits of webhooks.
const (
	MaxWebhookEndpoints = 20
	// MaxConsentsPerDelivery bounds the records of one consent.recorded delivery; a busier
	// endpoint gets the rest in the next second's delivery. With one delivery a second it is
	// also the most records a second an endpoint can follow: above what one process ingests
	// (about 5,000 a second on two cores, docs/consent-records.md), so that a busy site's
	// endpoint does not fall further behind for as long as the load lasts (at 1,000 it did).
	MaxConsentsPerDelivery = 8000
	// ConsentDispatchEvery is how often consent.recorded deliveries are made: at most one per
	// endpoint per interval.
	ConsentDispatchEvery = time.Second
	// WebhookTimeout bounds one delivery attempt.
	WebhookTimeout = 15 * time.Second
	// WebhookDisableAfter is how long an endpoint may fail every delivery before a delivery
	// that exhausted its attempts disables it.
	WebhookDisableAfter = 24 * time.Hour
	// MaxDeliveryListLimit bounds a page of the delivery log.
	MaxDeliveryListLimit = 100
	// ConsentSlack bounds how long before its batch's predecessor's newest record a record
	// may have been made: far more than a consent POST may wait to be committed.
	ConsentSlack = 15 * time.Minute
	// maxResponseExcerpt bounds the response body kept per attempt.
	maxResponseExcerpt = 500
)

// WebhookRetrySchedule is the delay before each retry of a delivery: 9 attempts over about
// 27.6 hours, the schedule of the Standard Webhooks reference implementation.
func WebhookRetrySchedule() []time.Duration {
	return []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
		5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
}

// WebhookEndpoint is where an organization's events are delivered.
type WebhookEndpoint struct {
	ID             string   `json:"id"`
	OrganizationID string   `json:"organizationId"`
	URL            string   `json:"url"`
	Description    string   `json:"description"`
	Events         []string `json:"events"`
	Enabled        bool     `json:"enabled"`
	// DisabledReason says why consentd disabled the endpoint (persistent failure); null when
	// it is enabled or was disabled by hand.
	DisabledReason *string `json:"disabledReason"`
	// FailingSince is when deliveries started failing without a success since; null when the
	// last attempt succeeded.
	FailingSince *time.Time `json:"failingSince"`
	CreatedAt    time.Time  `json:"createdAt"`
	UpdatedAt    time.Time  `json:"updatedAt"`
	// Secret signs deliveries; the API shows it only when the endpoint is created.
	Secret string `json:"-"`
	// ConsentCursor is, per site, the chain sequence number of the last consent batch
	// delivered to this endpoint.
	ConsentCursor map[string]int64 `json:"-"`
}

// Subscribed reports whether the endpoint is enabled and takes events of type ev.
func (e *WebhookEndpoint) Subscribed(ev string) bool {
	return e.Enabled && slices.Contains(e.Events, ev)
}

// WebhookDelivery is one event sent to one endpoint, with its attempts. Its ID is the
// webhook-id header of every attempt, so that a receiver processes it once.
type WebhookDelivery struct {
	ID         string            `json:"id"`
	EndpointID string            `json:"endpointId"`
	EventType  string            `json:"eventType"`
	Payload    json.RawMessage   `json:"payload"`
	Status     string            `json:"status" enum:"pending,delivered,failed,cancelled"`
	Attempts   []DeliveryAttempt `json:"attempts"`
	CreatedAt  time.Time         `json:"createdAt"`
	UpdatedAt  time.Time         `json:"updatedAt"`
}

// DeliveryAttempt is one try of a delivery.
type DeliveryAttempt struct {
	At time.Time `json:"at"`
	// StatusCode is the HTTP status answered; null when no answer came.
	StatusCode *int `json:"statusCode"`
	// Error says why the attempt failed without an answer (refused address, timeout).
	Error *string `json:"error"`
	// Response is the start of the response body.
	Response   string `json:"response"`
	DurationMS int64  `json:"durationMs"`
}

// WebhookQueue schedules delivery jobs; a worker calls Webhooks.Deliver.
type WebhookQueue interface {
	// EnqueueDelivery schedules the delivery as part of tx, a transaction opened by
	// Store.InTx, so that the job exists if and only if the delivery row does.
	EnqueueDelivery(ctx context.Context, tx EventStore, deliveryID string) error
}

// Event is what a delivery's payload says, in the Standard Webhooks form.
type Event struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      any       `json:"data"`
}

// EventStore is what publishing an event reads and writes, in the transaction of the change
// it tells of.
type EventStore interface {
	// SiteOrganization returns the organization of a site; not_found when there is none.
	SiteOrganization(ctx context.Context, siteID string) (string, error)
	// WebhookEndpoints lists the organization's endpoints, oldest first.
	WebhookEndpoints(ctx context.Context, orgID string) ([]*WebhookEndpoint, error)
	// CreateWebhookDelivery stores a new delivery; not_found when its endpoint does not exist.
	CreateWebhookDelivery(ctx context.Context, d *WebhookDelivery) error
}

// Publisher records webhook events: a delivery per subscribed endpoint, queued in the
// transaction of the change it reports. Without a queue it records nothing.
type Publisher struct {
	Store Store
	Queue WebhookQueue
	Clock core.Clock
	NewID func() string
	Log   *slog.Logger
}

func (events *Publisher) NewDelivery(ctx context.Context, tx EventStore, e *WebhookEndpoint, eventType string, payload []byte) (*WebhookDelivery, error) {
	if events.Queue == nil {
		return nil, errors.New("core: webhooks need a queue")
	}
	now := events.Clock.Now()
	d := &WebhookDelivery{ID: "msg_" + strings.ReplaceAll(events.NewID(), "-", ""), EndpointID: e.ID, EventType: eventType,
		Payload: payload, Status: DeliveryPending, Attempts: []DeliveryAttempt{}, CreatedAt: now, UpdatedAt: now}
	if err := tx.CreateWebhookDelivery(ctx, d); err != nil {
		return nil, err
	}
	if err := events.Queue.EnqueueDelivery(ctx, tx, d.ID); err != nil {
		return nil, err
	}
	return d, nil
}

// Publish creates a delivery of the event for every endpoint of the site's organization
// subscribed to it, in tx, so that the deliveries exist if and only if what they report was
// committed. Without a webhook queue it does nothing (the CLI's one-off use).
func (events *Publisher) Publish(ctx context.Context, tx EventStore, siteID, eventType string, data any) error {
	if events.Queue == nil {
		return nil
	}
	orgID, err := tx.SiteOrganization(ctx, siteID)
	if err != nil {
		return err
	}
	eps, err := tx.WebhookEndpoints(ctx, orgID)
	if err != nil {
		return err
	}
	var payload []byte
	for _, e := range eps {
		if !e.Subscribed(eventType) {
			continue
		}
		if payload == nil {
			if payload, err = json.Marshal(Event{Type: eventType, Timestamp: events.Clock.Now(), Data: data}); err != nil {
				return err
			}
		}
		if _, err := events.NewDelivery(ctx, tx, e, eventType, payload); err != nil {
			return err
		}
	}
	return nil
}

// PublishNow is publish in a transaction of its own, after the change it reports was
// committed; a failure is logged, not returned: the change stands.
func (events *Publisher) PublishNow(ctx context.Context, siteID, eventType string, data any) {
	if events.Queue == nil {
		return
	}
	err := events.Store.InTx(context.WithoutCancel(ctx), func(tx Store) error { return events.Publish(ctx, tx, siteID, eventType, data) })
	if err != nil {
		events.Log.Error("could not queue a webhook event", slog.String("event", eventType), slog.String("site", siteID), slog.Any("error", err))
	}
}

// ConfigChange is the data of a config.changed event.
type ConfigChange struct {
	SiteID string `json:"siteId"`
	// What is the part that changed: site, banner, categories, services or blocking.
	What string `json:"what"`
}

// ConfigChanged publishes config.changed for a site.
func (events *Publisher) ConfigChanged(ctx context.Context, siteID, what string) {
	events.PublishNow(ctx, siteID, EventConfigChanged, ConfigChange{SiteID: siteID, What: what})
}

// ChangedIn publishes config.changed in tx when err, the outcome of a configuration change
// made in tx, is nil; it returns err otherwise.
func (events *Publisher) ChangedIn(ctx context.Context, tx EventStore, siteID, what string, err error) error {
	if err != nil {
		return err
	}
	return events.Publish(ctx, tx, siteID, EventConfigChanged, ConfigChange{SiteID: siteID, What: what})
}

func Excerpt(s string) string {
	s = strings.ReplaceAll(s, "\x00", "")
	if r := []rune(s); len(r) > maxResponseExcerpt {
		return string(r[:maxResponseExcerpt])
	}
	return s
}
