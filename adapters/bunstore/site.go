package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/usecases"
)

type site struct {
	bun.BaseModel  `bun:"table:sites"`
	ID             string `bun:"id,pk"`
	OrganizationID string `bun:"organization_id"`
	Name           string `bun:"name"`
	URL            string `bun:"url"`
	ProjectKey     string `bun:"project_key"`
	// ConsentRetentionDays is NULL when records are kept forever.
	ConsentRetentionDays *int                   `bun:"consent_retention_days"`
	ScanSchedule         string                 `bun:"scan_schedule"`
	VerifySchedule       string                 `bun:"verify_schedule"`
	AutoConfigure        bool                   `bun:"auto_configure"`
	DigestRecipients     []core.DigestRecipient `bun:"digest_recipients,type:jsonb"`
	CreatedAt            time.Time              `bun:"created_at"`
	UpdatedAt            time.Time              `bun:"updated_at"`
}

func (m *site) core() *core.Site {
	return &core.Site{ID: m.ID, OrganizationID: m.OrganizationID, Name: m.Name, URL: m.URL, ProjectKey: m.ProjectKey, ConsentRetentionDays: m.ConsentRetentionDays, ScanSchedule: m.ScanSchedule, VerifySchedule: m.VerifySchedule, AutoConfigure: m.AutoConfigure, DigestRecipients: orSlice(m.DigestRecipients), CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
}

// CreateSite implements core.SiteStore.
func (s *Store) CreateSite(ctx context.Context, x *core.Site) error {
	if err := newID("site", x.ID); err != nil {
		return err
	}
	if err := findIDs("organization", x.OrganizationID); err != nil {
		return core.Wrap(core.CodeNotFound, err, "site refers to a row that does not exist")
	}
	if err := storable("site", x); err != nil {
		return err
	}
	m := &site{ID: x.ID, OrganizationID: x.OrganizationID, Name: x.Name, URL: x.URL, ProjectKey: x.ProjectKey, ConsentRetentionDays: x.ConsentRetentionDays, ScanSchedule: x.ScanSchedule, VerifySchedule: x.VerifySchedule, AutoConfigure: x.AutoConfigure, DigestRecipients: orSlice(x.DigestRecipients), CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt}
	_, err := s.db.NewInsert().Model(m).Exec(ctx)
	return translate(err, "site")
}

// Site implements core.SiteStore.
func (s *Store) Site(ctx context.Context, orgID, id string) (*core.Site, error) {
	if err := findIDs("site", orgID, id); err != nil {
		return nil, err
	}
	var m site
	if err := s.locked(s.db.NewSelect().Model(&m).Where("id = ? AND organization_id = ?", id, orgID)).Scan(ctx); err != nil {
		return nil, translate(err, "site")
	}
	return m.core(), nil
}

// SiteByProjectKey implements core.SiteStore.
func (s *Store) SiteByProjectKey(ctx context.Context, key string) (*core.Site, error) {
	if err := findKey("site", key); err != nil {
		return nil, err
	}
	var m site
	if err := s.db.NewSelect().Model(&m).Where("project_key = ?", key).Scan(ctx); err != nil {
		return nil, translate(err, "site")
	}
	return m.core(), nil
}

// Sites implements core.SiteStore.
func (s *Store) Sites(ctx context.Context, orgID string) ([]*core.Site, error) {
	if !isID(orgID) {
		return []*core.Site{}, nil
	}
	var ms []site
	if err := s.db.NewSelect().Model(&ms).Where("organization_id = ?", orgID).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, translate(err, "site")
	}
	out := make([]*core.Site, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, nil
}

// UpdateSite implements core.SiteStore.
func (s *Store) UpdateSite(ctx context.Context, x *core.Site) error {
	if err := findIDs("site", x.ID); err != nil {
		return err
	}
	if err := storable("site", x); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model((*site)(nil)).
		Set("name = ?", x.Name).Set("url = ?", x.URL).Set("updated_at = ?", x.UpdatedAt).
		Set("consent_retention_days = ?", x.ConsentRetentionDays).
		Set("scan_schedule = ?", x.ScanSchedule).Set("verify_schedule = ?", x.VerifySchedule).Set("auto_configure = ?", x.AutoConfigure).
		Set("digest_recipients = ?", jsonValue(orSlice(x.DigestRecipients))).
		Where("id = ?", x.ID).Exec(ctx)
	return mustAffect(res, err, "site")
}

// DeleteSite implements core.SiteStore. Foreign keys cascade to everything of the site.
func (s *Store) DeleteSite(ctx context.Context, id string) error {
	if err := findIDs("site", id); err != nil {
		return err
	}
	return s.InTx(ctx, func(tx usecases.Store) error {
		db := tx.(*Store).db
		// services reference categories without cascade; remove them first.
		if _, err := db.NewDelete().Model((*service)(nil)).Where("site_id = ?", id).Exec(ctx); err != nil {
			return translate(err, "site")
		}
		res, err := db.NewDelete().Model((*site)(nil)).Where("id = ?", id).Exec(ctx)
		return mustAffect(res, err, "site")
	})
}

var _ core.SiteLister = (*Store)(nil)

// AllSites implements core.SiteLister: every organization's sites, ordered by ID.
func (s *Store) AllSites(ctx context.Context, afterID string, limit int) ([]*core.Site, error) {
	var ms []site
	q := s.db.NewSelect().Model(&ms).Order("id").Limit(int64(limit))
	if afterID != "" {
		q = q.Where("id > ?", afterID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, translate(err, "site")
	}
	out := make([]*core.Site, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, nil
}
