package core

import (
	"context"
	"sync"
	"time"
)

// publicCacheTTL bounds how stale the consent endpoint's view of a site may be on a node that
// did not make the change itself.
const publicCacheTTL = time.Second

// publicCacheMax bounds the cache; past it the cache starts afresh.
const publicCacheMax = 10000

// publicCache keeps, per project key, the site and its categories for a second: every page
// view of every banner posts consent, while sites and categories change rarely. Changes made
// through this Manager drop the site's entry at once; other nodes see them within the TTL.
type publicCache struct {
	mu      sync.Mutex
	entries map[string]publicEntry
}

type publicEntry struct {
	site *Site
	cats []*Category
	at   time.Time
}

// consentSite returns the site named by projectKey and its categories, from the cache when
// fresh. The values are shared: callers must not modify them.
func (m *Manager) consentSite(ctx context.Context, projectKey string) (*Site, []*Category, error) {
	now := m.Now()
	m.cache.mu.Lock()
	e, ok := m.cache.entries[projectKey]
	m.cache.mu.Unlock()
	if ok && now.Sub(e.at) < publicCacheTTL && !now.Before(e.at) {
		return e.site, e.cats, nil
	}
	site, err := m.Store.SiteByProjectKey(ctx, projectKey)
	if err != nil {
		return nil, nil, err
	}
	cats, err := m.Store.Categories(ctx, site.ID)
	if err != nil {
		return nil, nil, err
	}
	m.cache.mu.Lock()
	defer m.cache.mu.Unlock()
	if m.cache.entries == nil || len(m.cache.entries) >= publicCacheMax {
		m.cache.entries = map[string]publicEntry{}
	}
	m.cache.entries[projectKey] = publicEntry{site: site, cats: cats, at: now}
	return site, cats, nil
}

// forgetSite drops a site's cached entry after a change to it or its categories.
func (m *Manager) forgetSite(siteID string) {
	m.cache.mu.Lock()
	defer m.cache.mu.Unlock()
	for k, e := range m.cache.entries {
		if e.site.ID == siteID {
			delete(m.cache.entries, k)
		}
	}
}
