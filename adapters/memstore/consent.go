package memstore

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

// CreateConsentRecord implements core.ConsentStore.
func (s *Store) CreateConsentRecord(_ context.Context, r *consent.ConsentRecord) error {
	defer s.lock()()
	if _, ok := s.d.sites[r.SiteID]; !ok {
		return notFound("site")
	}
	if r.IdempotencyKey != "" && s.consentByKey(r.SiteID, r.IdempotencyKey) != nil {
		return conflict("consent record")
	}
	s.d.proof.chain(r)
	c := *r
	c.CategoriesConsented = maps.Clone(r.CategoriesConsented)
	s.d.consents = append(s.d.consents, c)
	return nil
}

// ConsentRecords implements core.ConsentStore.
func (s *Store) ConsentRecords(_ context.Context, q consent.ConsentQuery) ([]*consent.ConsentRecord, int, error) {
	defer s.lock()()
	var all []*consent.ConsentRecord
	for _, r := range s.d.consents {
		if r.SiteID != q.SiteID || (q.From != nil && !r.CreatedAt.After(*q.From)) || (q.To != nil && !r.CreatedAt.Before(*q.To)) ||
			(q.VisitorID != "" && r.VisitorID != q.VisitorID) {
			continue
		}
		c := r
		c.CategoriesConsented = maps.Clone(r.CategoriesConsented)
		all = append(all, &c)
	}
	slices.SortFunc(all, func(a, b *consent.ConsentRecord) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	total := len(all)
	if q.After != nil {
		i, _ := slices.BinarySearchFunc(all, q.After, func(r *consent.ConsentRecord, k *consent.ConsentKey) int {
			return cmp.Or(k.CreatedAt.Compare(r.CreatedAt), cmp.Compare(k.ID, r.ID))
		})
		for i < len(all) && all[i].CreatedAt.Equal(q.After.CreatedAt) && all[i].ID == q.After.ID {
			i++
		}
		all = all[i:]
	}
	start := min(len(all), (q.Page-1)*q.Limit)
	end := min(len(all), start+q.Limit)
	return slices.Clip(all[start:end]), total, nil
}

// EachConsentRecord implements core.ConsentStore.
func (s *Store) EachConsentRecord(ctx context.Context, q consent.ConsentQuery, fn func(*consent.ConsentRecord) error) error {
	q.Page, q.Limit = 1, math.MaxInt
	all, _, err := s.ConsentRecords(ctx, q)
	if err != nil {
		return err
	}
	for _, r := range all {
		s.d.proof.link(r)
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

var _ core.SiteLister = (*Store)(nil)

// AllSites implements core.SiteLister.
func (s *Store) AllSites(_ context.Context, afterID string, limit int) ([]*core.Site, error) {
	defer s.lock()()
	out := []*core.Site{}
	for _, x := range s.d.sites {
		if x.ID > afterID {
			out = append(out, &x)
		}
	}
	slices.SortFunc(out, func(a, b *core.Site) int { return cmp.Compare(a.ID, b.ID) })
	return out[:min(len(out), limit)], nil
}

// ConsentRecordByKey implements core.ConsentStore.
func (s *Store) ConsentRecordByKey(_ context.Context, siteID, key string) (*consent.ConsentRecord, error) {
	defer s.lock()()
	r := s.consentByKey(siteID, key)
	if r == nil || key == "" {
		return nil, notFound("consent record")
	}
	c := *r
	c.CategoriesConsented = maps.Clone(r.CategoriesConsented)
	return &c, nil
}

func (s *Store) consentByKey(siteID, key string) *consent.ConsentRecord {
	for i := range s.d.consents {
		if r := &s.d.consents[i]; r.SiteID == siteID && r.IdempotencyKey == key {
			return r
		}
	}
	return nil
}
