package coretest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/usecases"
)

// testWebhooks: endpoints are scoped to their organization and round-trip whole; deliveries
// keep their payload's bytes, list newest first with a cursor, and go with their endpoint;
// consent records are read by chain range and creation bound.
func testWebhooks(t *testing.T, s usecases.Store) {
	f, other := seed(t, s), seed(t, s)
	ep := &event.WebhookEndpoint{ID: id(), OrganizationID: f.org.ID, URL: "https://hooks.example/in", Events: []string{event.EventScanChanged},
		Enabled: true, Secret: "whsec_c2VjcmV0", ConsentCursor: map[string]int64{f.site.ID: 3}, CreatedAt: now(), UpdatedAt: now()}
	must(t, s.CreateWebhookEndpoint(ctx, ep))
	got, err := s.WebhookEndpoint(ctx, f.org.ID, ep.ID)
	must(t, err)
	if got.URL != ep.URL || got.Secret != ep.Secret || got.ConsentCursor[f.site.ID] != 3 || !got.Subscribed(event.EventScanChanged) {
		t.Fatalf("endpoint read back as %+v", got)
	}
	_, err = s.WebhookEndpoint(ctx, other.org.ID, ep.ID)
	wantCode(t, err, core.CodeNotFound)
	wantCode(t, s.DeleteWebhookEndpoint(ctx, other.org.ID, ep.ID), core.CodeNotFound)
	if list, err := s.WebhookEndpoints(ctx, other.org.ID); err != nil || len(list) != 0 {
		t.Fatalf("another organization lists %d endpoints (%v)", len(list), err)
	}

	// Update, inside a transaction that locks the row.
	must(t, s.InTx(ctx, func(tx usecases.Store) error {
		e, err := tx.LockWebhookEndpoint(ctx, ep.ID)
		if err != nil {
			return err
		}
		e.Events = []string{event.EventConsentRecorded}
		e.ConsentCursor[f.site.ID] = 7
		since := now()
		e.FailingSince = &since
		return tx.UpdateWebhookEndpoint(ctx, e)
	}))
	subs, err := s.EndpointsSubscribedTo(ctx, event.EventConsentRecorded)
	must(t, err)
	if len(subs) != 1 || subs[0].ConsentCursor[f.site.ID] != 7 || subs[0].FailingSince == nil {
		t.Fatalf("subscribed endpoints = %+v", subs)
	}

	// Deliveries.
	payload := json.RawMessage(`{"type":"scan.changed",  "data":{"b":1,"a":2}}`)
	var ids []string
	for range 3 {
		d := &event.WebhookDelivery{ID: "msg_" + id(), EndpointID: ep.ID, EventType: event.EventScanChanged, Payload: payload,
			Status: event.DeliveryPending, Attempts: []event.DeliveryAttempt{}, CreatedAt: now(), UpdatedAt: now()}
		must(t, s.CreateWebhookDelivery(ctx, d))
		ids = append(ids, d.ID)
	}
	d, err := s.WebhookDelivery(ctx, "", ids[0])
	must(t, err)
	if string(d.Payload) != string(payload) {
		t.Fatalf("payload read back as %s, want the same bytes", d.Payload)
	}
	code := 500
	d.Status, d.Attempts = event.DeliveryFailed, []event.DeliveryAttempt{{At: now(), StatusCode: &code, Response: "oops"}}
	must(t, s.UpdateWebhookDelivery(ctx, d))
	if d, err = s.WebhookDelivery(ctx, ep.ID, ids[0]); err != nil || d.Status != event.DeliveryFailed || len(d.Attempts) != 1 || *d.Attempts[0].StatusCode != 500 {
		t.Fatalf("updated delivery = %+v (%v)", d, err)
	}
	page, total, err := s.WebhookDeliveries(ctx, ep.ID, 1, 2)
	must(t, err)
	if len(page) != 2 || page[0].ID != ids[2] || page[1].ID != ids[1] || total != 3 {
		t.Fatalf("first page = %v of %d, want the two newest of 3", page, total)
	}
	if page, total, err = s.WebhookDeliveries(ctx, ep.ID, 2, 2); err != nil || len(page) != 1 || page[0].ID != ids[0] || total != 3 {
		t.Fatalf("second page = %v of %d (%v)", page, total, err)
	}
	// The pending ones older than a newer delivery, oldest first: the failed first one is not.
	newest := &event.WebhookDelivery{ID: "msg_" + id(), EndpointID: ep.ID, EventType: event.EventScanChanged, Payload: payload,
		Status: event.DeliveryPending, Attempts: []event.DeliveryAttempt{}, CreatedAt: now(), UpdatedAt: now()}
	must(t, s.CreateWebhookDelivery(ctx, newest))
	older, err := s.OlderPendingWebhookDeliveries(ctx, ep.ID, newest.ID, 10)
	if err != nil || len(older) != 2 || older[0].ID != ids[1] || older[1].ID != ids[2] || string(older[0].Payload) != string(payload) {
		t.Fatalf("older pending deliveries = %v (%v), want %s and %s", older, err, ids[1], ids[2])
	}
	if older, err = s.OlderPendingWebhookDeliveries(ctx, ep.ID, newest.ID, 1); err != nil || len(older) != 1 || older[0].ID != ids[1] {
		t.Fatalf("the oldest pending delivery = %v (%v), want %s", older, err, ids[1])
	}
	if older, err = s.OlderPendingWebhookDeliveries(ctx, ep.ID, ids[1], 10); err != nil || len(older) != 0 {
		t.Fatalf("pending deliveries before %s = %v (%v), want none", ids[1], older, err)
	}
	org, err := s.SiteOrganization(ctx, f.site.ID)
	if err != nil || org != f.org.ID {
		t.Fatalf("site organization = %q (%v)", org, err)
	}

	// Consent records by chain range and creation bound.
	base := now().Add(-time.Hour)
	for i := range 3 {
		must(t, s.CreateConsentRecord(ctx, consentAt(f.site.ID, base.Add(time.Duration(i)*time.Minute), "v")))
	}
	ch, err := s.ConsentChain(ctx, f.site.ID)
	must(t, err)
	all, err := s.ConsentRecordsOfBatches(ctx, f.site.ID, 0, ch.HeadSeq, time.Time{})
	must(t, err)
	if len(all) != 3 {
		t.Fatalf("%d records in the chain, want 3", len(all))
	}
	late, err := s.ConsentRecordsOfBatches(ctx, f.site.ID, 0, ch.HeadSeq, base.Add(time.Minute))
	must(t, err)
	if len(late) != 2 {
		t.Fatalf("%d records since the second, want 2", len(late))
	}

	must(t, s.DeleteWebhookEndpoint(ctx, f.org.ID, ep.ID))
	_, err = s.WebhookDelivery(ctx, "", ids[1])
	wantCode(t, err, core.CodeNotFound)
}
