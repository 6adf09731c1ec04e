package watch

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/event"
)

// WebhookStore persists webhook endpoints and their deliveries.
type WebhookStore interface {
	event.EventStore
	// CreateWebhookEndpoint stores a new endpoint; not_found when its organization does not exist.
	CreateWebhookEndpoint(ctx context.Context, e *event.WebhookEndpoint) error
	// WebhookEndpoint finds an endpoint of the organization ("" for any, for workers);
	// not_found when there is none.
	WebhookEndpoint(ctx context.Context, orgID, id string) (*event.WebhookEndpoint, error)
	// EndpointsSubscribedTo lists the enabled endpoints of every organization subscribed to
	// event, by ID, for deployment-wide work.
	EndpointsSubscribedTo(ctx context.Context, event string) ([]*event.WebhookEndpoint, error)
	// UpdateWebhookEndpoint stores every field but ID, organization and createdAt; not_found
	// when it does not exist.
	UpdateWebhookEndpoint(ctx context.Context, e *event.WebhookEndpoint) error
	// DeleteWebhookEndpoint removes the endpoint and its deliveries; not_found when it does
	// not exist.
	DeleteWebhookEndpoint(ctx context.Context, orgID, id string) error
	// LockWebhookEndpoint reads an endpoint, locking its row until the transaction ends (on
	// Postgres; SQLite transactions are serialized): for read-modify-write in InTx.
	LockWebhookEndpoint(ctx context.Context, id string) (*event.WebhookEndpoint, error)
	// WebhookDelivery finds a delivery of the endpoint ("" for any); not_found when there is none.
	WebhookDelivery(ctx context.Context, endpointID, id string) (*event.WebhookDelivery, error)
	// WebhookDeliveries returns page (from 1) of the endpoint's deliveries, limit a page,
	// newest first, and how many the endpoint has.
	WebhookDeliveries(ctx context.Context, endpointID string, page, limit int) ([]*event.WebhookDelivery, int, error)
	// UpdateWebhookDelivery stores the status, attempts and updatedAt; not_found when it does
	// not exist.
	UpdateWebhookDelivery(ctx context.Context, d *event.WebhookDelivery) error
	// OlderPendingWebhookDeliveries returns up to limit of the endpoint's pending deliveries
	// made before the delivery beforeID (IDs grow with time), oldest first.
	OlderPendingWebhookDeliveries(ctx context.Context, endpointID, beforeID string, limit int) ([]*event.WebhookDelivery, error)
	// ConsentRecordsOfBatches returns the site's records whose batch seq is in (afterSeq,
	// toSeq] and whose createdAt is not before since, in chain order.
	ConsentRecordsOfBatches(ctx context.Context, siteID string, afterSeq, toSeq int64, since time.Time) ([]*consent.ConsentRecord, error)
}

// WebhookRequest is one signed HTTP attempt of a delivery.
type WebhookRequest struct {
	URL    string
	Secret string
	// ID is the webhook-id header, the same on every attempt of a delivery.
	ID        string
	Timestamp time.Time
	Payload   []byte
}

// WebhookResponse is what the receiver answered.
type WebhookResponse struct {
	StatusCode int
	// Body is the start of the body, for the delivery log.
	Body string
}

// WebhookSender signs and sends deliveries (Standard Webhooks), refusing loopback and private
// addresses unless the operator allowed them.
type WebhookSender interface {
	// Send makes one attempt. An error means no HTTP answer came (refused address, timeout,
	// connection refused); its message is for the delivery log.
	Send(ctx context.Context, req WebhookRequest) (*WebhookResponse, error)
}

// Webhooks are the use cases of webhook endpoints and the delivery of events to them. Managing
// endpoints and reading their log needs the keys permission (owner, admin): an endpoint's
// secret is a credential, and its deliveries carry consent records.
type Webhooks struct {
	Store  Store
	Sender WebhookSender
	// AllowPrivate lets endpoints name loopback and private addresses.
	AllowPrivate bool
	Clock        core.Clock
	NewID        func() string
	Log          *slog.Logger
	Audit        core.Auditor
	Events       *event.Publisher
	// Mailer tells the organization's digest recipients that an endpoint was disabled (nil:
	// no email); publicURL is the base of the console link it carries.
	Mailer    core.Mailer
	PublicURL string
	// sending holds a *sync.Mutex per endpoint ID: one delivery at a time to an endpoint in
	// this process, so that a catch-up sends in order and once.
	sending sync.Map
	// recovered holds, per endpoint ID, when a delivery last reached it after it had been
	// failing: deliveries whose last attempt failed before then go at once (catchUp).
	recovered sync.Map
}

// WebhookInput creates or changes an endpoint; nil fields are left as they are on update.
type WebhookInput struct {
	URL         *string
	Description *string
	Events      []string
	Enabled     *bool
}

// Limits of endpoint fields.
const (
	MaxWebhookDescription = 500
	// MaxDeliveryID bounds a delivery ID in a path ("msg_" and 32 hex digits).
	MaxDeliveryID = 100
)

func (hooks *Webhooks) validate(in WebhookInput, create bool) error {
	if create && in.URL == nil {
		return core.FieldErrorf("url", "required")
	}
	if in.URL != nil {
		if err := core.ValidateHTTPURL("url", *in.URL); err != nil {
			return err
		}
		if err := webhookHost(*in.URL, hooks.AllowPrivate); err != nil {
			return err
		}
	}
	if in.Description != nil {
		if len([]rune(*in.Description)) > MaxWebhookDescription {
			return core.FieldErrorf("description", "must be at most %d characters", MaxWebhookDescription)
		}
		if err := core.CheckText("description", *in.Description); err != nil {
			return err
		}
	}
	if create && len(in.Events) == 0 {
		return core.FieldErrorf("events", "at least one event type is required")
	}
	if in.Events != nil && len(in.Events) == 0 {
		return core.FieldErrorf("events", "at least one event type is required")
	}
	for _, ev := range in.Events {
		if !slices.Contains(event.EventTypes(), ev) {
			return core.FieldErrorf("events", "%q is not one of %s", ev, strings.Join(event.EventTypes(), ", "))
		}
	}
	return nil
}

// webhookHost checks an endpoint URL's host against the address rule that deliveries obey
// (SpecialAddress): a literal address, in any form a URL parser reads as one (HostAddress),
// must be public unless allowPrivate (CONSENTD_WEBHOOK_ALLOW_PRIVATE); localhost names a
// loopback address. A name is checked at each delivery, on the addresses it resolves to.
func webhookHost(raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return core.FieldErrorf("url", "must be an absolute http(s) URL")
	}
	host := u.Hostname()
	for _, c := range host {
		if c > 0x7e {
			// HTTP clients map an internationalized host to ASCII (IDNA) before they dial,
			// and the mapping turns characters such as fullwidth digits into an address.
			return core.FieldErrorf("url", "write the host %q in its ASCII form (xn--…)", host)
		}
	}
	ip, literal, err := core.HostAddress(host)
	if err != nil {
		return core.FieldErrorf("url", "%s", core.ErrorMessage(err))
	}
	if allowPrivate {
		return nil
	}
	if literal {
		if reason := core.SpecialAddress(ip); reason != "" {
			return core.FieldErrorf("url", "%s is not a public address (%s), so webhooks may not reach it (the operator may allow it with CONSENTD_WEBHOOK_ALLOW_PRIVATE=true)", host, reason)
		}
		return nil
	}
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return core.FieldErrorf("url", "%s is a loopback address, which webhooks may not reach (the operator may allow it with CONSENTD_WEBHOOK_ALLOW_PRIVATE=true)", host)
	}
	return nil
}

func uniqueEvents(evs []string) []string {
	out := []string{}
	for _, ev := range event.EventTypes() {
		if slices.Contains(evs, ev) {
			out = append(out, ev)
		}
	}
	return out
}

// newWebhookSecret returns a secret in the Standard Webhooks form: whsec_ and 32 random bytes
// in base64.
func newWebhookSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// CreateEndpoint creates an endpoint of the organization, enabled, with a new secret (in the
// returned endpoint only: it is not shown again). Consent records made before it are not
// delivered to it.
func (hooks *Webhooks) CreateEndpoint(ctx context.Context, orgID string, in WebhookInput) (*event.WebhookEndpoint, error) {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return nil, err
	}
	if err := hooks.validate(in, true); err != nil {
		return nil, err
	}
	now := hooks.Clock.Now()
	e := &event.WebhookEndpoint{ID: hooks.NewID(), OrganizationID: orgID, URL: *in.URL, Events: uniqueEvents(in.Events), Enabled: true,
		Secret: newWebhookSecret(), CreatedAt: now, UpdatedAt: now, ConsentCursor: map[string]int64{}}
	if in.Description != nil {
		e.Description = *in.Description
	}
	if in.Enabled != nil {
		e.Enabled = *in.Enabled
	}
	have, err := hooks.Store.WebhookEndpoints(ctx, orgID)
	if err != nil {
		return nil, err
	}
	if len(have) >= event.MaxWebhookEndpoints {
		return nil, core.Errorf(core.CodeInvalid, "an organization has at most %d webhook endpoints", event.MaxWebhookEndpoints)
	}
	if err := hooks.startConsentCursor(ctx, e); err != nil {
		return nil, err
	}
	// The entry shows the endpoint's fields, never its secret (not a JSON field).
	err = hooks.Store.InTx(ctx, func(tx Store) error {
		if err := tx.CreateWebhookEndpoint(ctx, e); err != nil {
			return err
		}
		return hooks.Audit.Record(ctx, tx, orgID, "", core.AuditWebhookCreate, e.ID, nil, e)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// startConsentCursor places the endpoint's consent cursors at the current end of each of its
// organization's sites' chains, so that it receives the records made from now on.
func (hooks *Webhooks) startConsentCursor(ctx context.Context, e *event.WebhookEndpoint) error {
	sites, err := hooks.Store.Sites(ctx, e.OrganizationID)
	if err != nil {
		return err
	}
	cur := map[string]int64{}
	for _, s := range sites {
		ch, err := hooks.Store.ConsentChain(ctx, s.ID)
		if err != nil {
			return err
		}
		cur[s.ID] = ch.HeadSeq
	}
	e.ConsentCursor = cur
	return nil
}

// Endpoints lists the organization's endpoints.
func (hooks *Webhooks) Endpoints(ctx context.Context, orgID string) ([]*event.WebhookEndpoint, error) {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return nil, err
	}
	return hooks.Store.WebhookEndpoints(ctx, orgID)
}

// Endpoint returns one of the organization's endpoints.
func (hooks *Webhooks) Endpoint(ctx context.Context, orgID, id string) (*event.WebhookEndpoint, error) {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return nil, err
	}
	return hooks.Store.WebhookEndpoint(ctx, orgID, id)
}

// UpdateEndpoint changes an endpoint. Enabling it again clears the reason it was disabled and
// its failure streak; subscribing it to consent.recorded anew starts at the current records.
func (hooks *Webhooks) UpdateEndpoint(ctx context.Context, orgID, id string, in WebhookInput) (*event.WebhookEndpoint, error) {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return nil, err
	}
	if err := hooks.validate(in, false); err != nil {
		return nil, err
	}
	if _, err := hooks.Store.WebhookEndpoint(ctx, orgID, id); err != nil {
		return nil, err
	}
	var e *event.WebhookEndpoint
	err := hooks.Store.InTx(ctx, func(tx Store) error {
		var err error
		if e, err = tx.LockWebhookEndpoint(ctx, id); err != nil {
			return err
		}
		old := core.Snapshot(e)
		wasConsents := e.Subscribed(event.EventConsentRecorded)
		if in.URL != nil {
			e.URL = *in.URL
		}
		if in.Description != nil {
			e.Description = *in.Description
		}
		if in.Events != nil {
			e.Events = uniqueEvents(in.Events)
		}
		if in.Enabled != nil {
			if *in.Enabled && !e.Enabled {
				e.DisabledReason, e.FailingSince = nil, nil
			}
			e.Enabled = *in.Enabled
		}
		if !wasConsents && e.Subscribed(event.EventConsentRecorded) {
			if err := hooks.startConsentCursor(ctx, e); err != nil {
				return err
			}
		}
		e.UpdatedAt = hooks.Clock.Now()
		if err := tx.UpdateWebhookEndpoint(ctx, e); err != nil {
			return err
		}
		return hooks.Audit.Record(ctx, tx, orgID, "", core.AuditWebhookUpdate, e.ID, old, e)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// DeleteEndpoint removes an endpoint and its delivery log.
func (hooks *Webhooks) DeleteEndpoint(ctx context.Context, orgID, id string) error {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return err
	}
	return hooks.Store.InTx(ctx, func(tx Store) error {
		e, err := tx.WebhookEndpoint(ctx, orgID, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteWebhookEndpoint(ctx, orgID, id); err != nil {
			return err
		}
		return hooks.Audit.Record(ctx, tx, orgID, "", core.AuditWebhookDelete, e.ID, e, nil)
	})
}

// Deliveries returns a page of an endpoint's delivery log, newest first, and its size; page
// and limit as for consent records (0 takes the default).
func (hooks *Webhooks) Deliveries(ctx context.Context, orgID, endpointID string, page, limit int) ([]*event.WebhookDelivery, int, error) {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return nil, 0, err
	}
	if page == 0 {
		page = 1
	}
	if limit == 0 {
		limit = consent.DefaultConsentLimit
	}
	if page < 1 {
		return nil, 0, core.FieldErrorf("page", "must be 1 or more")
	}
	if limit < 1 || limit > event.MaxDeliveryListLimit {
		return nil, 0, core.FieldErrorf("limit", "must be 1 to %d", event.MaxDeliveryListLimit)
	}
	if _, err := hooks.Store.WebhookEndpoint(ctx, orgID, endpointID); err != nil {
		return nil, 0, err
	}
	return hooks.Store.WebhookDeliveries(ctx, endpointID, page, limit)
}

// Delivery returns one delivery of an endpoint of the organization.
func (hooks *Webhooks) Delivery(ctx context.Context, orgID, endpointID, id string) (*event.WebhookDelivery, error) {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return nil, err
	}
	if _, err := hooks.Store.WebhookEndpoint(ctx, orgID, endpointID); err != nil {
		return nil, err
	}
	return hooks.Store.WebhookDelivery(ctx, endpointID, id)
}

// Redeliver sends a delivery again as a new delivery with the same payload and a new ID (the
// receiver may have processed the first, or not: it is asked anew), to an enabled endpoint.
func (hooks *Webhooks) Redeliver(ctx context.Context, orgID, endpointID, id string) (*event.WebhookDelivery, error) {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return nil, err
	}
	e, err := hooks.Store.WebhookEndpoint(ctx, orgID, endpointID)
	if err != nil {
		return nil, err
	}
	old, err := hooks.Store.WebhookDelivery(ctx, endpointID, id)
	if err != nil {
		return nil, err
	}
	if !e.Enabled {
		return nil, core.Errorf(core.CodeInvalid, "the endpoint is disabled: enable it before redelivering")
	}
	var d *event.WebhookDelivery
	err = hooks.Store.InTx(ctx, func(tx Store) error {
		if d, err = hooks.Events.NewDelivery(ctx, tx, e, old.EventType, old.Payload); err != nil {
			return err
		}
		return hooks.Audit.Record(ctx, tx, orgID, "", core.AuditWebhookRedeliver, e.ID, nil, deliveryAudit(d, old.ID))
	})
	return d, err
}

// deliveryAudit is what the audit log shows of a delivery queued on request: its ID and
// event type, and the delivery it repeats ("" for a test event); never its payload.
func deliveryAudit(d *event.WebhookDelivery, repeats string) map[string]any {
	m := map[string]any{"deliveryId": d.ID, "eventType": d.EventType}
	if repeats != "" {
		m["redeliveryOf"] = repeats
	}
	return m
}

// WebhookTest is the data of a webhook.test event.
type WebhookTest struct {
	EndpointID string `json:"endpointId"`
	Message    string `json:"message"`
}

// SendTest queues a webhook.test delivery to an enabled endpoint of the organization, signed
// and retried like any other, so that its owner can check the receiver; it answers the
// delivery (its status and attempts then show in the delivery log).
func (hooks *Webhooks) SendTest(ctx context.Context, orgID, id string) (*event.WebhookDelivery, error) {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return nil, err
	}
	e, err := hooks.Store.WebhookEndpoint(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	if !e.Enabled {
		return nil, core.Errorf(core.CodeInvalid, "the endpoint is disabled: enable it before sending a test event")
	}
	payload, err := json.Marshal(event.Event{Type: event.EventWebhookTest, Timestamp: hooks.Clock.Now(),
		Data: WebhookTest{EndpointID: e.ID, Message: "A test event sent from consentd on request."}})
	if err != nil {
		return nil, err
	}
	var d *event.WebhookDelivery
	err = hooks.Store.InTx(ctx, func(tx Store) error {
		if d, err = hooks.Events.NewDelivery(ctx, tx, e, event.EventWebhookTest, payload); err != nil {
			return err
		}
		return hooks.Audit.Record(ctx, tx, orgID, "", core.AuditWebhookTest, e.ID, nil, deliveryAudit(d, ""))
	})
	return d, err
}
