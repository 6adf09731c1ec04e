package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core/experiment"
)

type experimentRow struct {
	bun.BaseModel `bun:"table:experiments"`
	ID            string               `bun:"id,pk"`
	SiteID        string               `bun:"site_id"`
	Name          string               `bun:"name"`
	Status        string               `bun:"status"`
	Metric        string               `bun:"metric"`
	Regions       []string             `bun:"regions,type:jsonb"`
	Variants      []experiment.Variant `bun:"variants,type:jsonb"`
	Winner        *string              `bun:"winner"`
	StartedAt     *time.Time           `bun:"started_at"`
	StoppedAt     *time.Time           `bun:"stopped_at"`
	CreatedAt     time.Time            `bun:"created_at"`
	UpdatedAt     time.Time            `bun:"updated_at"`
}

func experimentRowOf(e *experiment.Experiment) *experimentRow {
	return &experimentRow{ID: e.ID, SiteID: e.SiteID, Name: e.Name, Status: string(e.Status), Metric: e.Metric, Regions: e.Regions,
		Variants: e.Variants, Winner: e.Winner, StartedAt: utcPtr(e.StartedAt), StoppedAt: utcPtr(e.StoppedAt),
		CreatedAt: e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC()}
}

func (m *experimentRow) experiment() *experiment.Experiment {
	regions := m.Regions
	if regions == nil {
		regions = []string{}
	}
	return &experiment.Experiment{ID: m.ID, SiteID: m.SiteID, Name: m.Name, Status: experiment.Status(m.Status), Metric: m.Metric,
		Regions: regions, Variants: m.Variants, Winner: m.Winner, StartedAt: utcPtr(m.StartedAt), StoppedAt: utcPtr(m.StoppedAt),
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
}

// CreateExperiment implements experiment.ExperimentStore.
func (s *Store) CreateExperiment(ctx context.Context, e *experiment.Experiment) error {
	if err := newID("experiment", e.ID); err != nil {
		return err
	}
	if err := storable("experiment", e); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(experimentRowOf(e)).Exec(ctx)
	return translate(err, "experiment")
}

// Experiment implements experiment.ExperimentStore.
func (s *Store) Experiment(ctx context.Context, siteID, id string) (*experiment.Experiment, error) {
	if err := findIDs("experiment", siteID, id); err != nil {
		return nil, err
	}
	var m experimentRow
	if err := s.db.NewSelect().Model(&m).Where("id = ? AND site_id = ?", id, siteID).Scan(ctx); err != nil {
		return nil, translate(err, "experiment")
	}
	return m.experiment(), nil
}

// Experiments implements experiment.ExperimentStore.
func (s *Store) Experiments(ctx context.Context, siteID string) ([]*experiment.Experiment, error) {
	if err := findIDs("site", siteID); err != nil {
		return []*experiment.Experiment{}, nil //nolint:nilerr // no site has that spelling: it has no experiments
	}
	var ms []experimentRow
	if err := s.db.NewSelect().Model(&ms).Where("site_id = ?", siteID).OrderExpr("created_at DESC, id DESC").Scan(ctx); err != nil {
		return nil, translate(err, "experiment")
	}
	out := make([]*experiment.Experiment, len(ms))
	for i := range ms {
		out[i] = ms[i].experiment()
	}
	return out, nil
}

// UpdateExperiment implements experiment.ExperimentStore.
func (s *Store) UpdateExperiment(ctx context.Context, e *experiment.Experiment) error {
	if err := findIDs("experiment", e.SiteID, e.ID); err != nil {
		return err
	}
	if err := storable("experiment", e); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model(experimentRowOf(e)).ExcludeColumn("id", "site_id", "created_at").WherePK().Where("site_id = ?", e.SiteID).Exec(ctx)
	return mustAffect(res, err, "experiment")
}
