package memstore

import (
	"context"
	"maps"
	"slices"

	"github.com/consentd/consentd/core/tcf"
)

type gvlKey struct {
	version int
	lang    string
}

type gvlData struct {
	versions map[gvlKey]tcf.StoredGVL
	fetches  map[string]tcf.GVLFetch
}

func (g gvlData) clone() gvlData {
	return gvlData{versions: maps.Clone(g.versions), fetches: maps.Clone(g.fetches)}
}

// SaveGVL implements core.GVLStore.
func (s *Store) SaveGVL(_ context.Context, v *tcf.StoredGVL) error {
	defer s.lock()()
	if s.d.gvl.versions == nil {
		s.d.gvl.versions = map[gvlKey]tcf.StoredGVL{}
	}
	k := gvlKey{v.Version, v.Language}
	if _, ok := s.d.gvl.versions[k]; ok {
		return nil
	}
	c := *v
	c.Body = slices.Clone(v.Body)
	c.LastUpdated, c.FetchedAt = c.LastUpdated.UTC(), c.FetchedAt.UTC()
	s.d.gvl.versions[k] = c
	return nil
}

// StoredGVL implements core.GVLStore.
func (s *Store) StoredGVL(_ context.Context, version int, lang string) (*tcf.StoredGVL, error) {
	defer s.lock()()
	v, ok := s.d.gvl.versions[gvlKey{version, lang}]
	if !ok {
		return nil, notFound("vendor list version")
	}
	v.Body = slices.Clone(v.Body)
	return &v, nil
}

// LatestGVLVersion implements core.GVLStore.
func (s *Store) LatestGVLVersion(_ context.Context, lang string) (int, error) {
	defer s.lock()()
	best := 0
	for k := range s.d.gvl.versions {
		if k.lang == lang && k.version > best {
			best = k.version
		}
	}
	if best == 0 {
		return 0, notFound("vendor list")
	}
	return best, nil
}

// GVLFetchState implements core.GVLStore.
func (s *Store) GVLFetchState(_ context.Context, resource string) (*tcf.GVLFetch, error) {
	defer s.lock()()
	f, ok := s.d.gvl.fetches[resource]
	if !ok {
		return nil, notFound("vendor list fetch")
	}
	return &f, nil
}

// SaveGVLFetchState implements core.GVLStore.
func (s *Store) SaveGVLFetchState(_ context.Context, resource string, f *tcf.GVLFetch) error {
	defer s.lock()()
	if s.d.gvl.fetches == nil {
		s.d.gvl.fetches = map[string]tcf.GVLFetch{}
	}
	c := *f
	c.Body, c.NotModified = nil, false
	c.Expires, c.CheckedAt = c.Expires.UTC(), c.CheckedAt.UTC()
	s.d.gvl.fetches[resource] = c
	return nil
}
