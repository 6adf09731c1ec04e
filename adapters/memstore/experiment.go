package memstore

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"github.com/consentd/consentd/core/experiment"
)

// Experiments are kept as JSON: every read is a deep copy.

func (s *Store) putExperiment(e *experiment.Experiment) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if s.d.experiments == nil {
		s.d.experiments = map[string][]byte{}
	}
	s.d.experiments[e.ID] = b
	return nil
}

func (s *Store) getExperiment(id string) (*experiment.Experiment, bool) {
	b, ok := s.d.experiments[id]
	if !ok {
		return nil, false
	}
	var e experiment.Experiment
	if json.Unmarshal(b, &e) != nil {
		return nil, false
	}
	if _, ok := s.d.sites[e.SiteID]; !ok {
		return nil, false // its site was deleted
	}
	return &e, true
}

// CreateExperiment implements experiment.ExperimentStore.
func (s *Store) CreateExperiment(_ context.Context, e *experiment.Experiment) error {
	defer s.lock()()
	if _, ok := s.d.sites[e.SiteID]; !ok {
		return notFound("site")
	}
	if _, ok := s.d.experiments[e.ID]; ok {
		return conflict("experiment")
	}
	return s.putExperiment(e)
}

// Experiment implements experiment.ExperimentStore.
func (s *Store) Experiment(_ context.Context, siteID, id string) (*experiment.Experiment, error) {
	defer s.lock()()
	e, ok := s.getExperiment(id)
	if !ok || e.SiteID != siteID {
		return nil, notFound("experiment")
	}
	return e, nil
}

// Experiments implements experiment.ExperimentStore.
func (s *Store) Experiments(_ context.Context, siteID string) ([]*experiment.Experiment, error) {
	defer s.lock()()
	out := []*experiment.Experiment{}
	for id := range s.d.experiments {
		if e, ok := s.getExperiment(id); ok && e.SiteID == siteID {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *experiment.Experiment) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	return out, nil
}

// UpdateExperiment implements experiment.ExperimentStore.
func (s *Store) UpdateExperiment(_ context.Context, e *experiment.Experiment) error {
	defer s.lock()()
	if old, ok := s.getExperiment(e.ID); !ok || old.SiteID != e.SiteID {
		return notFound("experiment")
	}
	return s.putExperiment(e)
}
