package core

import (
	"context"
	"sync"
	"time"
)

// publicCacheTTL bounds how stale the public endpoints' view of a site may be on a node that
// did not make the change itself.
const publicCacheTTL = time.Second

// publicCacheMax bounds each cache; past it the cache starts afresh.
const publicCacheMax = 10000

// ttlCache keeps values per project key for publicCacheTTL: every page view of every banner
// fetches the configuration or posts consent, while sites change rarely. Changes made through
// any service drop the site's entries at once (forgetSite); other nodes see them within the
// TTL. Cached values are shared between requests and must not be modified.
type ttlCache[V any] struct {
	mu      sync.Mutex
	entries map[string]ttlEntry[V]
}

type ttlEntry[V any] struct {
	siteID string
	v      V
	at     time.Time
}

func (c *ttlCache[V]) get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || now.Sub(e.at) >= publicCacheTTL || now.Before(e.at) {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (c *ttlCache[V]) put(key, siteID string, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= publicCacheMax {
		c.entries = map[string]ttlEntry[V]{}
	}
	c.entries[key] = ttlEntry[V]{siteID: siteID, v: v, at: now}
}

func (c *ttlCache[V]) forget(siteID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if e.siteID == siteID {
			delete(c.entries, k)
		}
	}
}

// consentView is what recording consent needs of a site.
type consentView struct {
	site *Site
	cats []*Category
	// version is the banner's current consentVersion, the highest a decision may carry.
	version int
}

// consentSite returns the site named by projectKey, its categories and its banner's current
// consentVersion, from the cache when
// fresh. The values are shared: callers must not modify them.
func (m *base) consentSite(ctx context.Context, projectKey string) (consentView, error) {
	now := m.clock()
	if v, ok := m.consentCache.get(projectKey, now); ok {
		return v, nil
	}
	site, err := m.store.SiteByProjectKey(ctx, projectKey)
	if err != nil {
		return consentView{}, err
	}
	cats, err := m.store.Categories(ctx, site.ID)
	if err != nil {
		return consentView{}, err
	}
	b, err := m.store.Banner(ctx, site.ID)
	if err != nil {
		return consentView{}, err
	}
	v := consentView{site: site, cats: cats, version: b.ConsentVersion}
	m.consentCache.put(projectKey, site.ID, v, now)
	return v, nil
}

// forgetSite drops a site's cached entries after a change to it, its banner, categories or
// services.
func (m *base) forgetSite(siteID string) {
	m.consentCache.forget(siteID)
	m.viewCache.forget(siteID)
	m.configCache.forget(siteID)
	m.declCache.forget(siteID)
	m.snapshotCache.forget(siteID)
}
