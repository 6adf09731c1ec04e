package memstore

import (
	"context"
	"time"

	"github.com/consentd/consentd/core/analytics"
)

var _ analytics.Store = (*Store)(nil)

// AddAnalytics implements analytics.Store.
func (s *Store) AddAnalytics(_ context.Context, rows []analytics.Row) error {
	defer s.lock()()
	for _, r := range rows {
		if _, ok := s.d.sites[r.SiteID]; !ok {
			continue
		}
		if s.d.analytics == nil {
			s.d.analytics = map[analytics.Key]*analytics.Counts{}
		}
		c := s.d.analytics[r.Key]
		if c == nil {
			c = &analytics.Counts{}
			s.d.analytics[r.Key] = c
		}
		c.Add(&r.Counts)
	}
	return nil
}

// AnalyticsRows implements analytics.Store. A deleted site's rows go with it.
func (s *Store) AnalyticsRows(_ context.Context, siteID string, from, to time.Time) ([]analytics.Row, error) {
	defer s.lock()()
	var out []analytics.Row
	if _, ok := s.d.sites[siteID]; !ok {
		return nil, nil
	}
	for k, c := range s.d.analytics {
		if k.SiteID == siteID && !k.Hour.Before(from) && k.Hour.Before(to) {
			r := analytics.Row{Key: k}
			r.Counts.Add(c)
			out = append(out, r)
		}
	}
	return out, nil
}

func cloneAnalytics(m map[analytics.Key]*analytics.Counts) map[analytics.Key]*analytics.Counts {
	out := make(map[analytics.Key]*analytics.Counts, len(m))
	for k, c := range m {
		n := &analytics.Counts{}
		n.Add(c)
		out[k] = n
	}
	return out
}
