package crawler

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/temoto/robotstxt"
)

// robotsCache answers whether robots.txt lets the scan fetch a page the static pass did not
// reach (a link made by script), one robots.txt per origin, read through the scan's transport.
type robotsCache struct {
	tr     http.RoundTripper
	ua     string
	ignore bool
	mu     sync.Mutex
	groups map[string]*robotstxt.Group
}

func newRobotsCache(tr http.RoundTripper, opts Options) *robotsCache {
	return &robotsCache{tr: tr, ua: opts.UserAgent, ignore: opts.IgnoreRobots, groups: map[string]*robotstxt.Group{}}
}

// allowed reports whether u may be fetched; a robots.txt that cannot be read allows everything,
// as it does for the static pass.
func (c *robotsCache) allowed(ctx context.Context, u *url.URL) bool {
	if c.ignore {
		return true
	}
	origin := u.Scheme + "://" + u.Host
	c.mu.Lock()
	g, ok := c.groups[origin]
	c.mu.Unlock()
	if !ok {
		g = c.fetch(ctx, origin)
		c.mu.Lock()
		c.groups[origin] = g
		c.mu.Unlock()
	}
	return g == nil || g.Test(u.EscapedPath())
}

func (c *robotsCache) fetch(ctx context.Context, origin string) *robotstxt.Group {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		return nil
	}
	req.Header.Set("User-Agent", c.ua)
	resp, err := (&http.Client{Transport: c.tr}).Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 512<<10))
	if err != nil {
		return nil
	}
	data, err := robotstxt.FromStatusAndBytes(resp.StatusCode, body)
	if err != nil {
		return nil
	}
	return data.FindGroup(c.ua)
}
