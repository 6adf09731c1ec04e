package banner

import (
	"context"
	"sync"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/tcf"
)

// publicCacheTTL bounds how stale the public endpoints' view of a site may be on a node that
// did not make the change itself.
const publicCacheTTL = time.Second

// PublicCacheMax bounds each cache; past it the cache starts afresh.
const PublicCacheMax = 10000

// ttlCache keeps values per project key for publicCacheTTL: every page view of every banner
// fetches the configuration or posts consent, while sites change rarely. Changes made through
// any service drop the site's entries at once (publicViews.forget); other nodes see them within the
// TTL. Cached values are shared between requests and must not be modified.
type ttlCache[V any] struct {
	mu      sync.Mutex
	entries map[string]ttlEntry[V]
	// loading are the loads under way (load), by key.
	loading map[string]*ttlLoad[V]
}

// ttlLoad is one load of a key, which the callers missing the key meanwhile wait for.
type ttlLoad[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// loadTimeout bounds a load that no single request owns (shared or in the background).
const loadTimeout = 10 * time.Second

// Load returns key's value from the cache when fresh, else from fn, which returns the value
// and its site's ID. Callers missing one key together wait for one call of fn, not one each
// (at every expiry, all the posts in flight for a site would otherwise read it from the store
// at once). An entry past half its TTL is renewed by one call of fn in the background while
// callers keep getting it, so that a key in steady use never expires under its requests and
// none of them waits on the store for it. Either way a value is at most publicCacheTTL older
// than the moment its load began. fn runs without the caller's cancellation, since other
// callers may wait for it; a failed renewal leaves the entry to expire.
func (c *ttlCache[V]) Load(ctx context.Context, key string, now time.Time, fn func(context.Context) (V, string, error)) (V, error) {
	c.mu.Lock()
	if e, ok := c.entries[key]; ok && now.Sub(e.at) < publicCacheTTL && !now.Before(e.at) {
		if now.Sub(e.at) >= publicCacheTTL/2 && c.loading[key] == nil {
			l := c.startLocked(key)
			go c.run(ctx, key, now, l, fn)
		}
		c.mu.Unlock()
		return e.v, nil
	}
	l := c.loading[key]
	if l == nil {
		l = c.startLocked(key)
		c.mu.Unlock()
		c.run(ctx, key, now, l, fn)
		return l.v, l.err
	}
	c.mu.Unlock()
	select {
	case <-l.done:
		return l.v, l.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

func (c *ttlCache[V]) startLocked(key string) *ttlLoad[V] {
	if c.loading == nil {
		c.loading = map[string]*ttlLoad[V]{}
	}
	l := &ttlLoad[V]{done: make(chan struct{})}
	c.loading[key] = l
	return l
}

// run calls fn for l, caches its value as of now, and releases l's waiters.
func (c *ttlCache[V]) run(ctx context.Context, key string, now time.Time, l *ttlLoad[V], fn func(context.Context) (V, string, error)) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loadTimeout)
	defer cancel()
	v, siteID, err := fn(ctx)
	if err == nil {
		c.Put(key, siteID, v, now)
	}
	c.mu.Lock()
	l.v, l.err = v, err
	delete(c.loading, key)
	c.mu.Unlock()
	close(l.done)
}

type ttlEntry[V any] struct {
	siteID string
	v      V
	at     time.Time
}

func (c *ttlCache[V]) Get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || now.Sub(e.at) >= publicCacheTTL || now.Before(e.at) {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (c *ttlCache[V]) Put(key, siteID string, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= PublicCacheMax {
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

// PublicViews are the public endpoints' caches of what they read of a site, shared by the
// services that change a site, so that a change made through any of them drops its site's
// cached views at once (forget).
type PublicViews struct {
	Store        Store
	consentCache ttlCache[consentView]
	viewCache    ttlCache[*SiteView]
	ConfigCache  ttlCache[*PublicConfig]
	DeclCache    ttlCache[*Declaration]
	// TcfCache keeps the TCF module's configuration by project key and language.
	TcfCache ttlCache[*tcf.TCFPublicConfig]
	// SnapshotCache keeps the snapshot of each project key, language and runtime version,
	// so that a consent POST stores and hashes what was shown once per second, not per post.
	SnapshotCache ttlCache[*ConsentSnapshot]
}

// consentView is what recording consent needs of a site.
type consentView struct {
	Site *core.Site
	Cats []*Category
	// Version is the banner's current consentVersion, the highest a decision may carry.
	Version int
	// Policies are what the runtime does, by rule (DecidePolicies).
	Policies Policies
	// Banner and regions resolve a visitor's rule (Banner.VisitorRule).
	Banner  *Banner
	Regions *regionIndex
}

// ConsentSite returns the site named by projectKey, its categories and its banner's current
// consentVersion, from the cache (renewed ahead of expiry under traffic, see ttlCache.load).
// The values are shared: callers must not modify them.
func (views *PublicViews) ConsentSite(ctx context.Context, projectKey string, now time.Time) (consentView, error) {
	return views.consentCache.Load(ctx, projectKey, now, func(ctx context.Context) (consentView, string, error) {
		site, err := views.Store.SiteByProjectKey(ctx, projectKey)
		if err != nil {
			return consentView{}, "", err
		}
		cats, err := views.Store.Categories(ctx, site.ID)
		if err != nil {
			return consentView{}, "", err
		}
		b, err := views.Store.Banner(ctx, site.ID)
		if err != nil {
			return consentView{}, "", err
		}
		return consentView{Site: site, Cats: cats, Version: b.ConsentVersion, Policies: DecidePolicies(b, cats), Banner: b,
			Regions: NewRegionIndex(b.RegionRules)}, site.ID, nil
	})
}

// Forget drops a site's cached entries after a change to it, its banner, categories or
// services.
func (views *PublicViews) Forget(siteID string) {
	views.consentCache.forget(siteID)
	views.viewCache.forget(siteID)
	views.ConfigCache.forget(siteID)
	views.DeclCache.forget(siteID)
	views.TcfCache.forget(siteID)
	views.SnapshotCache.forget(siteID)
}
