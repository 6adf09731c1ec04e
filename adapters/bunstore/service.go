package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
	corebanner "github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/usecases"
)

type service struct {
	bun.BaseModel           `bun:"table:services"`
	ID                      string            `bun:"id,pk"`
	SiteID                  string            `bun:"site_id"`
	CategoryID              string            `bun:"category_id"`
	Slug                    string            `bun:"slug"`
	Label                   string            `bun:"label"`
	Description             string            `bun:"description"`
	LabelTranslations       map[string]string `bun:"label_translations,type:jsonb"`
	DescriptionTranslations map[string]string `bun:"description_translations,type:jsonb"`
	ServiceURL              *string           `bun:"service_url"`
	PrivacyPolicyURL        *string           `bun:"privacy_policy_url"`
	LogoURL                 *string           `bun:"logo_url"`
	BlockingPatterns        []string          `bun:"blocking_patterns,type:jsonb"`
	CreatedAt               time.Time         `bun:"created_at"`
	UpdatedAt               time.Time         `bun:"updated_at"`
}

type cookie struct {
	bun.BaseModel           `bun:"table:cookies"`
	ID                      string            `bun:"id,pk"`
	ServiceID               string            `bun:"service_id"`
	Position                int               `bun:"position"`
	Name                    string            `bun:"name"`
	Description             string            `bun:"description"`
	Duration                string            `bun:"duration"`
	DescriptionTranslations map[string]string `bun:"description_translations,type:jsonb"`
	CreatedAt               time.Time         `bun:"created_at"`
}

func fromService(s *corebanner.Service) (*service, []*cookie) {
	m := &service{
		ID: s.ID, SiteID: s.SiteID, CategoryID: s.CategoryID, Slug: s.Slug, Label: s.Label, Description: s.Description,
		LabelTranslations: orMap(s.LabelTranslations), DescriptionTranslations: orMap(s.DescriptionTranslations),
		ServiceURL: s.ServiceURL, PrivacyPolicyURL: s.PrivacyPolicyURL, LogoURL: s.LogoURL,
		BlockingPatterns: orSlice(s.BlockingPatterns), CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
	}
	cs := make([]*cookie, len(s.Cookies))
	for i, c := range s.Cookies {
		cs[i] = &cookie{
			ID: c.ID, ServiceID: s.ID, Position: i, Name: c.Name, Description: c.Description, Duration: c.Duration,
			DescriptionTranslations: orMap(c.DescriptionTranslations), CreatedAt: c.CreatedAt,
		}
	}
	return m, cs
}

func (s *service) core(cookies []cookie) *corebanner.Service {
	out := &corebanner.Service{
		ID: s.ID, SiteID: s.SiteID, CategoryID: s.CategoryID, Slug: s.Slug, Label: s.Label, Description: s.Description,
		LabelTranslations: orMap(s.LabelTranslations), DescriptionTranslations: orMap(s.DescriptionTranslations),
		ServiceURL: s.ServiceURL, PrivacyPolicyURL: s.PrivacyPolicyURL, LogoURL: s.LogoURL,
		BlockingPatterns: s.BlockingPatterns, CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC(),
		Cookies: make([]*corebanner.Cookie, 0, len(cookies)),
	}
	for _, c := range cookies {
		out.Cookies = append(out.Cookies, &corebanner.Cookie{
			ID: c.ID, ServiceID: c.ServiceID, Name: c.Name, Description: c.Description, Duration: c.Duration,
			DescriptionTranslations: orMap(c.DescriptionTranslations), CreatedAt: c.CreatedAt.UTC(),
		})
	}
	return out
}

// CreateService implements core.ServiceStore: the service and its cookies in one transaction.
func (s *Store) CreateService(ctx context.Context, x *corebanner.Service) error {
	if err := newID("service", x.ID); err != nil {
		return err
	}
	for _, c := range x.Cookies {
		if err := newID("cookie", c.ID); err != nil {
			return err
		}
	}
	if err := findIDs("site", x.SiteID, x.CategoryID); err != nil {
		return core.Wrap(core.CodeNotFound, err, "service refers to a row that does not exist")
	}
	if err := storable("service", x); err != nil {
		return err
	}
	m, cookies := fromService(x)
	return s.InTx(ctx, func(tx usecases.Store) error {
		db := tx.(*Store).db
		if _, err := db.NewInsert().Model(m).Exec(ctx); err != nil {
			return translate(err, "service")
		}
		if len(cookies) > 0 {
			if _, err := db.NewInsert().Model(&cookies).Exec(ctx); err != nil {
				return translate(err, "cookie")
			}
		}
		return nil
	})
}

// Services implements core.ServiceStore.
func (s *Store) Services(ctx context.Context, siteID string) ([]*corebanner.Service, error) {
	if !isID(siteID) {
		return []*corebanner.Service{}, nil
	}
	var ms []service
	if err := s.db.NewSelect().Model(&ms).Where("site_id = ?", siteID).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, translate(err, "service")
	}
	return s.withCookies(ctx, ms)
}

// Service implements core.ServiceStore.
func (s *Store) Service(ctx context.Context, siteID, id string) (*corebanner.Service, error) {
	if err := findIDs("service", siteID, id); err != nil {
		return nil, err
	}
	var ms []service
	if err := s.db.NewSelect().Model(&ms).Where("site_id = ? AND id = ?", siteID, id).Scan(ctx); err != nil {
		return nil, translate(err, "service")
	}
	if len(ms) == 0 {
		return nil, core.Errorf(core.CodeNotFound, "service not found")
	}
	out, err := s.withCookies(ctx, ms)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func (s *Store) withCookies(ctx context.Context, ms []service) ([]*corebanner.Service, error) {
	out := make([]*corebanner.Service, 0, len(ms))
	if len(ms) == 0 {
		return out, nil
	}
	ids := make([]string, len(ms))
	for i := range ms {
		ids[i] = ms[i].ID
	}
	var cs []cookie
	if err := s.db.NewSelect().Model(&cs).Where("service_id IN (?)", bun.List(ids)).Order("service_id", "position").Scan(ctx); err != nil {
		return nil, translate(err, "cookie")
	}
	by := map[string][]cookie{}
	for _, c := range cs {
		by[c.ServiceID] = append(by[c.ServiceID], c)
	}
	for i := range ms {
		out = append(out, ms[i].core(by[ms[i].ID]))
	}
	return out, nil
}

// CountServicesInCategory implements core.ServiceStore.
func (s *Store) CountServicesInCategory(ctx context.Context, categoryID string) (int, error) {
	if !isID(categoryID) {
		return 0, nil
	}
	n, err := s.db.NewSelect().Model((*service)(nil)).Where("category_id = ?", categoryID).Count(ctx)
	return int(n), translate(err, "service")
}

// DeleteService implements core.ServiceStore; cookies cascade.
func (s *Store) DeleteService(ctx context.Context, siteID, id string) error {
	if err := findIDs("service", siteID, id); err != nil {
		return err
	}
	res, err := s.db.NewDelete().Model((*service)(nil)).Where("site_id = ? AND id = ?", siteID, id).Exec(ctx)
	return mustAffect(res, err, "service")
}
