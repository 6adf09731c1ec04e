package app

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
)

// siteLister implements core.SiteLister on the store's database, for periodic rescans. It
// belongs in adapters/bunstore (as Store.AllSites, with a case in the store contract); it lives
// in the composition root until that adapter has it.
type siteLister struct{ db *bun.DB }

var _ core.SiteLister = siteLister{}

type siteRow struct {
	bun.BaseModel  `bun:"table:sites"`
	ID             string    `bun:"id"`
	OrganizationID string    `bun:"organization_id"`
	Name           string    `bun:"name"`
	URL            string    `bun:"url"`
	ProjectKey     string    `bun:"project_key"`
	CreatedAt      time.Time `bun:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at"`
}

// AllSites implements core.SiteLister.
func (l siteLister) AllSites(ctx context.Context, afterID string, limit int) ([]*core.Site, error) {
	var rows []siteRow
	q := l.db.NewSelect().Model(&rows).Order("id").Limit(int64(limit))
	if afterID != "" {
		q = q.Where("id > ?", afterID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, core.Wrap(core.CodeInternal, fmt.Errorf("list sites: %w", err), "could not list sites")
	}
	out := make([]*core.Site, len(rows))
	for i, r := range rows {
		out[i] = &core.Site{ID: r.ID, OrganizationID: r.OrganizationID, Name: r.Name, URL: r.URL, ProjectKey: r.ProjectKey,
			CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	}
	return out, nil
}
