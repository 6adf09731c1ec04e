package core_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/identity"
	sitepkg "github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/core/watch"
)

// hookQueue records delivery jobs; hookSender answers with the next status of its script.
type hookQueue struct{ ids []string }

func (q *hookQueue) EnqueueDelivery(_ context.Context, _ event.EventStore, id string) error {
	q.ids = append(q.ids, id)
	return nil
}

// mailbox records emails.
type mailbox struct{ sent []core.EmailMessage }

func (m *mailbox) Send(_ context.Context, msg core.EmailMessage) error {
	m.sent = append(m.sent, msg)
	return nil
}

type hookSender struct {
	statuses []int
	sent     []watch.WebhookRequest
}

func (s *hookSender) Send(_ context.Context, r watch.WebhookRequest) (*watch.WebhookResponse, error) {
	s.sent = append(s.sent, r)
	if len(s.statuses) == 0 {
		return nil, errors.New("connection refused")
	}
	code := s.statuses[0]
	s.statuses = s.statuses[1:]
	return &watch.WebhookResponse{StatusCode: code, Body: "answer\x00"}, nil
}

// TestWebhookDelivery: events of a site reach the subscribed endpoints of its organization
// only; a delivery keeps its ID over attempts, ends delivered on a 2xx, failed after its last
// attempt, and an endpoint failing for a day is disabled with a reason; a disabled endpoint's
// deliveries are cancelled; redelivery makes a new delivery with the same payload. The
// organization's digest recipients are emailed, each once, when consentd disables an
// endpoint, and not when a person does.
func TestWebhookDelivery(t *testing.T) {
	clock := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	store := memstore.New()
	q, snd, mails := &hookQueue{}, &hookSender{}, &mailbox{}
	var n int
	m, err := usecases.New(usecases.Deps{Store: store, Catalog: emptyCatalog(t), Now: now, WebhookQueue: q, WebhookSender: snd,
		Mailer: mails, PublicURL: "https://consent.example/",
		NewID: func() string { n++; return fmt.Sprintf("00000000-0000-7000-8000-%012d", n) }})
	if err != nil {
		t.Fatal(err)
	}
	org, _ := m.Orgs.CreateOrganization(ctx, "acme")
	other, _ := m.Orgs.CreateOrganization(ctx, "other")
	site, err := m.Sites.CreateSite(ctx, org.ID, sitepkg.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
	if err != nil {
		t.Fatal(err)
	}
	// Two sites with digest recipients, one address on both.
	if _, err := m.Sites.UpdateSite(ctx, org.ID, site.ID, sitepkg.SiteInput{DigestEmails: []string{"dpo@acme.example", "web@acme.example"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Sites.CreateSite(ctx, org.ID, sitepkg.SiteInput{Name: ptr("Blog"), URL: ptr("https://blog.example"), DigestEmails: []string{"dpo@acme.example"}}); err != nil {
		t.Fatal(err)
	}
	ep, err := m.Webhooks.CreateEndpoint(ctx, org.ID, watch.WebhookInput{URL: ptr("https://hooks.example/a"), Events: []string{event.EventConfigChanged}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Webhooks.CreateEndpoint(ctx, other.ID, watch.WebhookInput{URL: ptr("https://hooks.example/b"), Events: []string{event.EventConfigChanged}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Banners.SetScriptBlocking(ctx, org.ID, site.ID, false); err != nil {
		t.Fatal(err)
	}
	if len(q.ids) != 1 {
		t.Fatalf("%d deliveries queued for one change, want 1 (the other organization's endpoint gets none)", len(q.ids))
	}
	id := q.ids[0]
	snd.statuses = []int{500, 204}
	if err := m.Webhooks.Deliver(ctx, id, false); err == nil {
		t.Fatal("a 500 answer asked for no retry")
	}
	if err := m.Webhooks.Deliver(ctx, id, false); err != nil {
		t.Fatalf("a 204 answer: %v", err)
	}
	if err := m.Webhooks.Deliver(ctx, id, false); err != nil || len(snd.sent) != 2 {
		t.Fatalf("a delivered delivery was sent again (%d sends, %v)", len(snd.sent), err)
	}
	if snd.sent[0].ID != id || snd.sent[1].ID != id || snd.sent[0].Secret != ep.Secret {
		t.Fatalf("attempts sent %+v, want the delivery's ID and the endpoint's secret", snd.sent)
	}
	d, err := m.Webhooks.Delivery(ctx, org.ID, ep.ID, id)
	if err != nil || d.Status != event.DeliveryDelivered || len(d.Attempts) != 2 || *d.Attempts[0].StatusCode != 500 || d.Attempts[1].Response != "answer" {
		t.Fatalf("delivery %+v (%v)", d, err)
	}

	// Persistent failure: no answer for more than a day, then the last attempt.
	if err := m.Banners.SetScriptBlocking(ctx, org.ID, site.ID, true); err != nil {
		t.Fatal(err)
	}
	id2 := q.ids[len(q.ids)-1]
	if err := m.Webhooks.Deliver(ctx, id2, false); err == nil {
		t.Fatal("no answer asked for no retry")
	}
	clock = clock.Add(25 * time.Hour)
	if err := m.Webhooks.Deliver(ctx, id2, true); err != nil {
		t.Fatalf("last attempt: %v", err)
	}
	got, _ := m.Webhooks.Endpoint(ctx, org.ID, ep.ID)
	if got.Enabled || got.DisabledReason == nil {
		t.Fatalf("endpoint after a day of failures: %+v, want disabled with a reason", got)
	}
	// Disabling it is a change of the organization's configuration: audited, as the system.
	log, err := m.AuditLog.AuditEntries(core.WithActor(ctx, core.System("test")), org.ID, identity.AuditQuery{Action: core.AuditWebhookUpdate}, "")
	if err != nil || len(log.Entries) != 1 || log.Entries[0].ActorKind != core.ActorSystem || log.Entries[0].ActorName != "core tests" ||
		!strings.Contains(string(mustJSON(t, log.Entries[0].Changes)), `{"field":"enabled","old":true,"new":false}`) ||
		strings.Contains(string(mustJSON(t, log.Entries)), ep.Secret) {
		t.Fatalf("the endpoint's disabling in the audit log: %s (%v)", mustJSON(t, log), err)
	}
	if len(mails.sent) != 2 || mails.sent[0].To == mails.sent[1].To {
		t.Fatalf("disabled-endpoint emails: %+v, want one to each of the 2 digest addresses", mails.sent)
	}
	for _, msg := range mails.sent {
		if !strings.Contains(msg.Subject, "disabled") || !strings.Contains(msg.Text, "https://hooks.example/a") ||
			!strings.Contains(msg.Text, *got.DisabledReason) || !strings.Contains(msg.Text, "https://consent.example/webhooks") ||
			!strings.HasPrefix(msg.Unsubscribe, "https://consent.example/api/v1/unsubscribe/") {
			t.Fatalf("disabled-endpoint email: %+v", msg)
		}
	}
	if d, _ := m.Webhooks.Delivery(ctx, org.ID, ep.ID, id2); d.Status != event.DeliveryFailed || *d.Attempts[0].Error != "connection refused" {
		t.Fatalf("failed delivery %+v", d)
	}
	if _, err := m.Webhooks.Redeliver(ctx, org.ID, ep.ID, id2); core.ErrorCode(err) != core.CodeInvalid {
		t.Fatalf("redelivery to a disabled endpoint: %v", err)
	}
	// Enabled again: the failure streak is forgotten; redelivery is a new delivery.
	if got, err = m.Webhooks.UpdateEndpoint(ctx, org.ID, ep.ID, watch.WebhookInput{Enabled: ptr(true)}); err != nil || got.DisabledReason != nil || got.FailingSince != nil {
		t.Fatalf("enabled again: %+v (%v)", got, err)
	}
	re, err := m.Webhooks.Redeliver(ctx, org.ID, ep.ID, id2)
	if err != nil || re.ID == id2 || string(re.Payload) != string(d.Payload) || q.ids[len(q.ids)-1] != re.ID {
		t.Fatalf("redelivery %+v (%v)", re, err)
	}
	// A test event goes to the endpoint whatever it subscribes to.
	td, err := m.Webhooks.SendTest(ctx, org.ID, ep.ID)
	if err != nil || td.EventType != event.EventWebhookTest || q.ids[len(q.ids)-1] != td.ID || !strings.Contains(string(td.Payload), `"type":"webhook.test"`) {
		t.Fatalf("test event %+v (%v)", td, err)
	}
	if _, err := m.Webhooks.SendTest(ctx, other.ID, ep.ID); core.ErrorCode(err) != core.CodeNotFound {
		t.Fatalf("a test event to another organization's endpoint: %v", err)
	}
	// A delivery of an endpoint disabled by hand is cancelled, not sent.
	if _, err := m.Webhooks.UpdateEndpoint(ctx, org.ID, ep.ID, watch.WebhookInput{Enabled: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	sends := len(snd.sent)
	if err := m.Webhooks.Deliver(ctx, re.ID, false); err != nil || len(snd.sent) != sends {
		t.Fatalf("delivery to a disabled endpoint: sent %d more (%v)", len(snd.sent)-sends, err)
	}
	if d, _ := m.Webhooks.Delivery(ctx, org.ID, ep.ID, re.ID); d.Status != event.DeliveryCancelled {
		t.Fatalf("delivery to a disabled endpoint is %s, want cancelled", d.Status)
	}
	if _, err := m.Webhooks.SendTest(ctx, org.ID, ep.ID); core.ErrorCode(err) != core.CodeInvalid {
		t.Fatalf("a test event to a disabled endpoint: %v", err)
	}
	if len(mails.sent) != 2 {
		t.Fatalf("%d emails after a disabling by hand, want none more", len(mails.sent)-2)
	}
}
