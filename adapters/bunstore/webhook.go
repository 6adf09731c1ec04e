package bunstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	eventpkg "github.com/consentd/consentd/core/event"
)

type webhookEndpoint struct {
	bun.BaseModel  `bun:"table:webhook_endpoints"`
	ID             string           `bun:"id,pk"`
	OrganizationID string           `bun:"organization_id"`
	URL            string           `bun:"url"`
	Description    string           `bun:"description"`
	Events         []string         `bun:"events,type:jsonb"`
	Enabled        bool             `bun:"enabled"`
	DisabledReason *string          `bun:"disabled_reason"`
	FailingSince   *time.Time       `bun:"failing_since"`
	Secret         string           `bun:"secret"`
	ConsentCursor  map[string]int64 `bun:"consent_cursor,type:jsonb"`
	CreatedAt      time.Time        `bun:"created_at"`
	UpdatedAt      time.Time        `bun:"updated_at"`
}

func fromEndpoint(e *eventpkg.WebhookEndpoint) *webhookEndpoint {
	cur := e.ConsentCursor
	if cur == nil {
		cur = map[string]int64{}
	}
	return &webhookEndpoint{ID: e.ID, OrganizationID: e.OrganizationID, URL: e.URL, Description: e.Description,
		Events: orSlice(e.Events), Enabled: e.Enabled, DisabledReason: e.DisabledReason, FailingSince: e.FailingSince,
		Secret: e.Secret, ConsentCursor: cur, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

func (m *webhookEndpoint) core() *eventpkg.WebhookEndpoint {
	cur := m.ConsentCursor
	if cur == nil {
		cur = map[string]int64{}
	}
	return &eventpkg.WebhookEndpoint{ID: m.ID, OrganizationID: m.OrganizationID, URL: m.URL, Description: m.Description,
		Events: orSlice(m.Events), Enabled: m.Enabled, DisabledReason: m.DisabledReason, FailingSince: utc(m.FailingSince),
		Secret: m.Secret, ConsentCursor: cur, CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
}

type webhookDelivery struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`
	ID            string                     `bun:"id,pk"`
	EndpointID    string                     `bun:"endpoint_id"`
	EventType     string                     `bun:"event_type"`
	Payload       string                     `bun:"payload"`
	Status        string                     `bun:"status"`
	Attempts      []eventpkg.DeliveryAttempt `bun:"attempts,type:jsonb"`
	CreatedAt     time.Time                  `bun:"created_at"`
	UpdatedAt     time.Time                  `bun:"updated_at"`
}

func fromDelivery(d *eventpkg.WebhookDelivery) *webhookDelivery {
	return &webhookDelivery{ID: d.ID, EndpointID: d.EndpointID, EventType: d.EventType, Payload: string(d.Payload),
		Status: d.Status, Attempts: orSlice(d.Attempts), CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

func (m *webhookDelivery) core() *eventpkg.WebhookDelivery {
	return &eventpkg.WebhookDelivery{ID: m.ID, EndpointID: m.EndpointID, EventType: m.EventType, Payload: json.RawMessage(m.Payload),
		Status: m.Status, Attempts: orSlice(m.Attempts), CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
}

// CreateWebhookEndpoint implements core.WebhookStore.
func (s *Store) CreateWebhookEndpoint(ctx context.Context, e *eventpkg.WebhookEndpoint) error {
	if err := newID("webhook endpoint", e.ID); err != nil {
		return err
	}
	if err := findIDs("organization", e.OrganizationID); err != nil {
		return err
	}
	if err := storable("webhook endpoint", e); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(fromEndpoint(e)).Exec(ctx)
	if err = translate(err, "webhook endpoint"); core.IsNotFound(err) {
		return core.Wrap(core.CodeNotFound, err, "organization not found")
	}
	return err
}

func (s *Store) endpoint(ctx context.Context, orgID, id string, lock bool) (*eventpkg.WebhookEndpoint, error) {
	if err := findIDs("webhook endpoint", id); err != nil {
		return nil, err
	}
	var m webhookEndpoint
	q := s.db.NewSelect().Model(&m).Where("id = ?", id)
	if orgID != "" {
		if !isID(orgID) {
			return nil, core.Errorf(core.CodeNotFound, "webhook endpoint not found")
		}
		q = q.Where("organization_id = ?", orgID)
	}
	if lock {
		q = s.locked(q)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, translate(err, "webhook endpoint")
	}
	return m.core(), nil
}

// WebhookEndpoint implements core.WebhookStore.
func (s *Store) WebhookEndpoint(ctx context.Context, orgID, id string) (*eventpkg.WebhookEndpoint, error) {
	return s.endpoint(ctx, orgID, id, false)
}

// LockWebhookEndpoint implements core.WebhookStore.
func (s *Store) LockWebhookEndpoint(ctx context.Context, id string) (*eventpkg.WebhookEndpoint, error) {
	return s.endpoint(ctx, "", id, true)
}

func endpoints(ms []webhookEndpoint) []*eventpkg.WebhookEndpoint {
	out := make([]*eventpkg.WebhookEndpoint, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out
}

// WebhookEndpoints implements core.WebhookStore.
func (s *Store) WebhookEndpoints(ctx context.Context, orgID string) ([]*eventpkg.WebhookEndpoint, error) {
	if !isID(orgID) {
		return []*eventpkg.WebhookEndpoint{}, nil
	}
	var ms []webhookEndpoint
	if err := s.db.NewSelect().Model(&ms).Where("organization_id = ?", orgID).OrderExpr("created_at, id").Scan(ctx); err != nil {
		return nil, translate(err, "webhook endpoint")
	}
	return endpoints(ms), nil
}

// EndpointsSubscribedTo implements core.WebhookStore. Endpoints are few: they are filtered
// here rather than by a JSON operator each dialect spells differently.
func (s *Store) EndpointsSubscribedTo(ctx context.Context, event string) ([]*eventpkg.WebhookEndpoint, error) {
	var ms []webhookEndpoint
	if err := s.db.NewSelect().Model(&ms).Where("enabled").Order("id").Scan(ctx); err != nil {
		return nil, translate(err, "webhook endpoint")
	}
	out := []*eventpkg.WebhookEndpoint{}
	for _, e := range endpoints(ms) {
		if e.Subscribed(event) {
			out = append(out, e)
		}
	}
	return out, nil
}

// UpdateWebhookEndpoint implements core.WebhookStore.
func (s *Store) UpdateWebhookEndpoint(ctx context.Context, e *eventpkg.WebhookEndpoint) error {
	if err := findIDs("webhook endpoint", e.ID); err != nil {
		return err
	}
	if err := storable("webhook endpoint", e); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model(fromEndpoint(e)).
		Column("url", "description", "events", "enabled", "disabled_reason", "failing_since", "secret", "consent_cursor", "updated_at").
		WherePK().Exec(ctx)
	return mustAffect(res, err, "webhook endpoint")
}

// DeleteWebhookEndpoint implements core.WebhookStore; its deliveries go with it (cascade).
func (s *Store) DeleteWebhookEndpoint(ctx context.Context, orgID, id string) error {
	if err := findIDs("webhook endpoint", orgID, id); err != nil {
		return err
	}
	res, err := s.db.NewDelete().Model((*webhookEndpoint)(nil)).Where("id = ? AND organization_id = ?", id, orgID).Exec(ctx)
	return mustAffect(res, err, "webhook endpoint")
}

// CreateWebhookDelivery implements core.WebhookStore.
func (s *Store) CreateWebhookDelivery(ctx context.Context, d *eventpkg.WebhookDelivery) error {
	if err := findIDs("webhook endpoint", d.EndpointID); err != nil {
		return err
	}
	if err := storable("webhook delivery", d.ID); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(fromDelivery(d)).Exec(ctx)
	return translate(err, "webhook endpoint")
}

// WebhookDelivery implements core.WebhookStore.
func (s *Store) WebhookDelivery(ctx context.Context, endpointID, id string) (*eventpkg.WebhookDelivery, error) {
	if err := findKey("webhook delivery", id); err != nil {
		return nil, err
	}
	var m webhookDelivery
	q := s.db.NewSelect().Model(&m).Where("id = ?", id)
	if endpointID != "" {
		if !isID(endpointID) {
			return nil, core.Errorf(core.CodeNotFound, "webhook delivery not found")
		}
		q = q.Where("endpoint_id = ?", endpointID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, translate(err, "webhook delivery")
	}
	return m.core(), nil
}

// WebhookDeliveries implements core.WebhookStore: delivery IDs grow with time (UUIDv7).
func (s *Store) WebhookDeliveries(ctx context.Context, endpointID string, page, limit int) ([]*eventpkg.WebhookDelivery, int, error) {
	if !isID(endpointID) {
		return []*eventpkg.WebhookDelivery{}, 0, nil
	}
	var ms []webhookDelivery
	n, err := s.db.NewSelect().Model(&ms).Where("endpoint_id = ?", endpointID).OrderExpr("id DESC").
		Limit(int64(limit)).Offset(int64((page - 1) * limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, translate(err, "webhook delivery")
	}
	out := make([]*eventpkg.WebhookDelivery, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, int(n), nil
}

// OlderPendingWebhookDeliveries implements watch.WebhookStore.
func (s *Store) OlderPendingWebhookDeliveries(ctx context.Context, endpointID, beforeID string, limit int) ([]*eventpkg.WebhookDelivery, error) {
	if !isID(endpointID) {
		return []*eventpkg.WebhookDelivery{}, nil
	}
	var ms []webhookDelivery
	err := s.db.NewSelect().Model(&ms).Where("endpoint_id = ? AND id < ? AND status = ?", endpointID, beforeID, eventpkg.DeliveryPending).
		OrderExpr("id ASC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, translate(err, "webhook delivery")
	}
	out := make([]*eventpkg.WebhookDelivery, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, nil
}

// UpdateWebhookDelivery implements core.WebhookStore.
func (s *Store) UpdateWebhookDelivery(ctx context.Context, d *eventpkg.WebhookDelivery) error {
	if err := findKey("webhook delivery", d.ID); err != nil {
		return err
	}
	if err := storable("webhook delivery", d.Attempts); err != nil {
		return err
	}
	// Only the attempt's columns change: the payload (up to MaxConsentsPerDelivery records) is
	// neither copied nor sent again.
	m := &webhookDelivery{ID: d.ID, Status: d.Status, Attempts: orSlice(d.Attempts), UpdatedAt: d.UpdatedAt}
	res, err := s.db.NewUpdate().Model(m).Column("status", "attempts", "updated_at").WherePK().Exec(ctx)
	return mustAffect(res, err, "webhook delivery")
}

// ConsentRecordsOfBatches implements core.WebhookStore: since bounds the scan of the site's
// records through their (site_id, created_at) index.
func (s *Store) ConsentRecordsOfBatches(ctx context.Context, siteID string, afterSeq, toSeq int64, since time.Time) ([]*consent.ConsentRecord, error) {
	if !isID(siteID) {
		return []*consent.ConsentRecord{}, nil
	}
	var ms []consentRecord
	err := s.db.NewSelect().Model(&ms).
		Where("site_id = ? AND created_at >= ? AND batch_seq > ? AND batch_seq <= ?", siteID, since.UTC(), afterSeq, toSeq).
		Order("batch_seq", "batch_index", "id").Scan(ctx)
	if err != nil {
		return nil, translate(err, "consent record")
	}
	out := make([]*consent.ConsentRecord, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, nil
}

// SiteOrganization implements core.WebhookStore.
func (s *Store) SiteOrganization(ctx context.Context, siteID string) (string, error) {
	if err := findIDs("site", siteID); err != nil {
		return "", err
	}
	var org string
	if err := s.db.NewSelect().Model((*site)(nil)).Column("organization_id").Where("id = ?", siteID).Scan(ctx, &org); err != nil {
		return "", translate(err, "site")
	}
	return org, nil
}

// jsonValue is v as JSON text, for a jsonb (Postgres) or text (SQLite) column set by hand.
func jsonValue(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

type digestState struct {
	bun.BaseModel `bun:"table:sites"`
	ID            string     `bun:"id,pk"`
	DigestSentAt  *time.Time `bun:"digest_sent_at"`
}

// DigestSentAt implements core.DigestStore.
func (s *Store) DigestSentAt(ctx context.Context, siteID string) (time.Time, error) {
	if err := findIDs("site", siteID); err != nil {
		return time.Time{}, err
	}
	var m digestState
	if err := s.db.NewSelect().Model(&m).Column("id", "digest_sent_at").Where("id = ?", siteID).Scan(ctx); err != nil {
		return time.Time{}, translate(err, "site")
	}
	if m.DigestSentAt == nil {
		return time.Time{}, nil
	}
	return m.DigestSentAt.UTC(), nil
}

// SetDigestSentAt implements core.DigestStore.
func (s *Store) SetDigestSentAt(ctx context.Context, siteID string, at time.Time) error {
	if err := findIDs("site", siteID); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model((*digestState)(nil)).Set("digest_sent_at = ?", at).Where("id = ?", siteID).Exec(ctx)
	return mustAffect(res, err, "site")
}
