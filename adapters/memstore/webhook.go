package memstore

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core/consent"
	eventpkg "github.com/consentd/consentd/core/event"
)

// hookData holds webhook endpoints and deliveries, in creation order.
type hookData struct {
	endpoints  []eventpkg.WebhookEndpoint
	deliveries []eventpkg.WebhookDelivery
	// digestSentAt is when each site's last digest went out.
	digestSentAt map[string]time.Time
}

func (h hookData) clone() hookData {
	return hookData{endpoints: slices.Clone(h.endpoints), deliveries: slices.Clone(h.deliveries), digestSentAt: maps.Clone(h.digestSentAt)}
}

func cloneEndpoint(e eventpkg.WebhookEndpoint) *eventpkg.WebhookEndpoint {
	e.Events = slices.Clone(e.Events)
	e.ConsentCursor = maps.Clone(e.ConsentCursor)
	if e.ConsentCursor == nil {
		e.ConsentCursor = map[string]int64{}
	}
	return &e
}

func cloneDelivery(d eventpkg.WebhookDelivery) *eventpkg.WebhookDelivery {
	d.Payload = slices.Clone(d.Payload)
	var as []eventpkg.DeliveryAttempt
	b, _ := json.Marshal(d.Attempts)
	_ = json.Unmarshal(b, &as)
	d.Attempts = as
	if d.Attempts == nil {
		d.Attempts = []eventpkg.DeliveryAttempt{}
	}
	return &d
}

func (s *Store) endpointIndex(orgID, id string) int {
	return slices.IndexFunc(s.d.hooks.endpoints, func(e eventpkg.WebhookEndpoint) bool {
		return e.ID == id && (orgID == "" || e.OrganizationID == orgID)
	})
}

// CreateWebhookEndpoint implements core.WebhookStore.
func (s *Store) CreateWebhookEndpoint(_ context.Context, e *eventpkg.WebhookEndpoint) error {
	defer s.lock()()
	if _, ok := s.d.orgs[e.OrganizationID]; !ok {
		return notFound("organization")
	}
	if s.endpointIndex("", e.ID) >= 0 {
		return conflict("webhook endpoint")
	}
	s.d.hooks.endpoints = append(s.d.hooks.endpoints, *cloneEndpoint(*e))
	return nil
}

// WebhookEndpoint implements core.WebhookStore.
func (s *Store) WebhookEndpoint(_ context.Context, orgID, id string) (*eventpkg.WebhookEndpoint, error) {
	defer s.lock()()
	i := s.endpointIndex(orgID, id)
	if i < 0 {
		return nil, notFound("webhook endpoint")
	}
	return cloneEndpoint(s.d.hooks.endpoints[i]), nil
}

// LockWebhookEndpoint implements core.WebhookStore: a transaction holds the store's mutex.
func (s *Store) LockWebhookEndpoint(ctx context.Context, id string) (*eventpkg.WebhookEndpoint, error) {
	return s.WebhookEndpoint(ctx, "", id)
}

// WebhookEndpoints implements core.WebhookStore.
func (s *Store) WebhookEndpoints(_ context.Context, orgID string) ([]*eventpkg.WebhookEndpoint, error) {
	defer s.lock()()
	out := []*eventpkg.WebhookEndpoint{}
	for _, e := range s.d.hooks.endpoints {
		if e.OrganizationID == orgID {
			out = append(out, cloneEndpoint(e))
		}
	}
	return out, nil
}

// EndpointsSubscribedTo implements core.WebhookStore.
func (s *Store) EndpointsSubscribedTo(_ context.Context, event string) ([]*eventpkg.WebhookEndpoint, error) {
	defer s.lock()()
	out := []*eventpkg.WebhookEndpoint{}
	for _, e := range s.d.hooks.endpoints {
		if e.Subscribed(event) {
			out = append(out, cloneEndpoint(e))
		}
	}
	slices.SortFunc(out, func(a, b *eventpkg.WebhookEndpoint) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// UpdateWebhookEndpoint implements core.WebhookStore.
func (s *Store) UpdateWebhookEndpoint(_ context.Context, e *eventpkg.WebhookEndpoint) error {
	defer s.lock()()
	i := s.endpointIndex("", e.ID)
	if i < 0 {
		return notFound("webhook endpoint")
	}
	old := s.d.hooks.endpoints[i]
	n := *cloneEndpoint(*e)
	n.OrganizationID, n.CreatedAt = old.OrganizationID, old.CreatedAt
	s.d.hooks.endpoints[i] = n
	return nil
}

// DeleteWebhookEndpoint implements core.WebhookStore.
func (s *Store) DeleteWebhookEndpoint(_ context.Context, orgID, id string) error {
	defer s.lock()()
	i := s.endpointIndex(orgID, id)
	if i < 0 {
		return notFound("webhook endpoint")
	}
	s.d.hooks.endpoints = slices.Delete(s.d.hooks.endpoints, i, i+1)
	s.d.hooks.deliveries = slices.DeleteFunc(s.d.hooks.deliveries, func(d eventpkg.WebhookDelivery) bool { return d.EndpointID == id })
	return nil
}

// CreateWebhookDelivery implements core.WebhookStore.
func (s *Store) CreateWebhookDelivery(_ context.Context, d *eventpkg.WebhookDelivery) error {
	defer s.lock()()
	if s.endpointIndex("", d.EndpointID) < 0 {
		return notFound("webhook endpoint")
	}
	s.d.hooks.deliveries = append(s.d.hooks.deliveries, *cloneDelivery(*d))
	return nil
}

func (s *Store) deliveryIndex(endpointID, id string) int {
	return slices.IndexFunc(s.d.hooks.deliveries, func(d eventpkg.WebhookDelivery) bool {
		return d.ID == id && (endpointID == "" || d.EndpointID == endpointID)
	})
}

// WebhookDelivery implements core.WebhookStore.
func (s *Store) WebhookDelivery(_ context.Context, endpointID, id string) (*eventpkg.WebhookDelivery, error) {
	defer s.lock()()
	i := s.deliveryIndex(endpointID, id)
	if i < 0 {
		return nil, notFound("webhook delivery")
	}
	return cloneDelivery(s.d.hooks.deliveries[i]), nil
}

// WebhookDeliveries implements core.WebhookStore.
func (s *Store) WebhookDeliveries(_ context.Context, endpointID string, page, limit int) ([]*eventpkg.WebhookDelivery, int, error) {
	defer s.lock()()
	out := []*eventpkg.WebhookDelivery{}
	n, skip := 0, (page-1)*limit
	for i := len(s.d.hooks.deliveries) - 1; i >= 0; i-- {
		d := s.d.hooks.deliveries[i]
		if d.EndpointID != endpointID {
			continue
		}
		if n >= skip && len(out) < limit {
			out = append(out, cloneDelivery(d))
		}
		n++
	}
	return out, n, nil
}

// OlderPendingWebhookDeliveries implements watch.WebhookStore.
func (s *Store) OlderPendingWebhookDeliveries(_ context.Context, endpointID, beforeID string, limit int) ([]*eventpkg.WebhookDelivery, error) {
	defer s.lock()()
	out := []*eventpkg.WebhookDelivery{}
	for _, d := range s.d.hooks.deliveries {
		if d.EndpointID == endpointID && d.ID < beforeID && d.Status == eventpkg.DeliveryPending {
			out = append(out, cloneDelivery(d))
		}
	}
	slices.SortFunc(out, func(a, b *eventpkg.WebhookDelivery) int { return strings.Compare(a.ID, b.ID) })
	return out[:min(len(out), limit)], nil
}

// UpdateWebhookDelivery implements core.WebhookStore.
func (s *Store) UpdateWebhookDelivery(_ context.Context, d *eventpkg.WebhookDelivery) error {
	defer s.lock()()
	i := s.deliveryIndex("", d.ID)
	if i < 0 {
		return notFound("webhook delivery")
	}
	x := &s.d.hooks.deliveries[i]
	n := cloneDelivery(*d)
	x.Status, x.Attempts, x.UpdatedAt = n.Status, n.Attempts, n.UpdatedAt
	return nil
}

// ConsentRecordsOfBatches implements core.WebhookStore.
func (s *Store) ConsentRecordsOfBatches(ctx context.Context, siteID string, afterSeq, toSeq int64, since time.Time) ([]*consent.ConsentRecord, error) {
	out := []*consent.ConsentRecord{}
	err := s.EachChainRecord(ctx, siteID, afterSeq, toSeq, func(r *consent.ConsentRecord) error {
		if !r.CreatedAt.Before(since) {
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// SiteOrganization implements core.WebhookStore.
func (s *Store) SiteOrganization(_ context.Context, siteID string) (string, error) {
	defer s.lock()()
	x, ok := s.d.sites[siteID]
	if !ok {
		return "", notFound("site")
	}
	return x.OrganizationID, nil
}

// DigestSentAt implements core.DigestStore.
func (s *Store) DigestSentAt(_ context.Context, siteID string) (time.Time, error) {
	defer s.lock()()
	if _, ok := s.d.sites[siteID]; !ok {
		return time.Time{}, notFound("site")
	}
	return s.d.hooks.digestSentAt[siteID], nil
}

// SetDigestSentAt implements core.DigestStore.
func (s *Store) SetDigestSentAt(_ context.Context, siteID string, at time.Time) error {
	defer s.lock()()
	if _, ok := s.d.sites[siteID]; !ok {
		return notFound("site")
	}
	if s.d.hooks.digestSentAt == nil {
		s.d.hooks.digestSentAt = map[string]time.Time{}
	}
	s.d.hooks.digestSentAt[siteID] = at
	return nil
}
