package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
	corebanner "github.com/consentd/consentd/core/banner"
)

type category struct {
	bun.BaseModel           `bun:"table:categories"`
	ID                      string            `bun:"id,pk"`
	SiteID                  string            `bun:"site_id"`
	Slug                    string            `bun:"slug"`
	Name                    string            `bun:"name"`
	Description             string            `bun:"description"`
	NameTranslations        map[string]string `bun:"name_translations,type:jsonb"`
	DescriptionTranslations map[string]string `bun:"description_translations,type:jsonb"`
	IsRequired              bool              `bun:"is_required"`
	IsDefault               bool              `bun:"is_default"`
	SortOrder               int               `bun:"sort_order"`
	CreatedAt               time.Time         `bun:"created_at"`
	UpdatedAt               time.Time         `bun:"updated_at"`
}

func fromCategory(c *corebanner.Category) *category {
	return &category{
		ID: c.ID, SiteID: c.SiteID, Slug: c.Slug, Name: c.Name, Description: c.Description,
		NameTranslations: orMap(c.NameTranslations), DescriptionTranslations: orMap(c.DescriptionTranslations),
		IsRequired: c.IsRequired, IsDefault: c.IsDefault, SortOrder: c.SortOrder, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
}

func (c *category) core() *corebanner.Category {
	return &corebanner.Category{
		ID: c.ID, SiteID: c.SiteID, Slug: c.Slug, Name: c.Name, Description: c.Description,
		NameTranslations: orMap(c.NameTranslations), DescriptionTranslations: orMap(c.DescriptionTranslations),
		IsRequired: c.IsRequired, IsDefault: c.IsDefault, SortOrder: c.SortOrder, CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC(),
	}
}

// CreateCategory implements core.CategoryStore.
func (s *Store) CreateCategory(ctx context.Context, c *corebanner.Category) error {
	if err := newID("category", c.ID); err != nil {
		return err
	}
	if err := findIDs("site", c.SiteID); err != nil {
		return core.Wrap(core.CodeNotFound, err, "category refers to a row that does not exist")
	}
	if err := storable("category", c); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(fromCategory(c)).Exec(ctx)
	return translate(err, "category")
}

// Categories implements core.CategoryStore.
func (s *Store) Categories(ctx context.Context, siteID string) ([]*corebanner.Category, error) {
	if !isID(siteID) {
		return []*corebanner.Category{}, nil
	}
	var ms []category
	if err := s.db.NewSelect().Model(&ms).Where("site_id = ?", siteID).Order("sort_order", "created_at", "id").Scan(ctx); err != nil {
		return nil, translate(err, "category")
	}
	out := make([]*corebanner.Category, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, nil
}

// Category implements core.CategoryStore.
func (s *Store) Category(ctx context.Context, siteID, id string) (*corebanner.Category, error) {
	if err := findIDs("category", siteID, id); err != nil {
		return nil, err
	}
	var m category
	if err := s.locked(s.db.NewSelect().Model(&m).Where("site_id = ? AND id = ?", siteID, id)).Scan(ctx); err != nil {
		return nil, translate(err, "category")
	}
	return m.core(), nil
}

// CategoryBySlug implements core.CategoryStore.
func (s *Store) CategoryBySlug(ctx context.Context, siteID, slug string) (*corebanner.Category, error) {
	if err := findIDs("category", siteID); err != nil {
		return nil, err
	}
	if err := findKey("category", slug); err != nil {
		return nil, err
	}
	var m category
	if err := s.db.NewSelect().Model(&m).Where("site_id = ? AND slug = ?", siteID, slug).Scan(ctx); err != nil {
		return nil, translate(err, "category")
	}
	return m.core(), nil
}

// UpdateCategory implements core.CategoryStore.
func (s *Store) UpdateCategory(ctx context.Context, c *corebanner.Category) error {
	if err := findIDs("category", c.SiteID, c.ID); err != nil {
		return err
	}
	if err := storable("category", c); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model(fromCategory(c)).
		Column("name", "description", "name_translations", "description_translations", "sort_order", "updated_at").
		Where("site_id = ? AND id = ?", c.SiteID, c.ID).Exec(ctx)
	return mustAffect(res, err, "category")
}

// DeleteCategory implements core.CategoryStore.
func (s *Store) DeleteCategory(ctx context.Context, siteID, id string) error {
	if err := findIDs("category", siteID, id); err != nil {
		return err
	}
	res, err := s.db.NewDelete().Model((*category)(nil)).Where("site_id = ? AND id = ?", siteID, id).Exec(ctx)
	return mustAffect(res, err, "category")
}
