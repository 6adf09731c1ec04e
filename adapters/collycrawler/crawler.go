// Package collycrawler plugs the crawler engine into core as its SiteCrawler port.
package collycrawler

import (
	"context"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler"
	"github.com/consentd/consentd/library"
)

// Crawler implements core.SiteCrawler with the crawler engine.
type Crawler struct {
	engine *crawler.Engine
	opts   crawler.Options
}

var _ core.SiteCrawler = (*Crawler)(nil)

// New returns a crawler over the catalog's services; opts carries the limits and the
// private-address policy applied to every scan (its StartURLs and password are ignored).
func New(catalog *library.Catalog, opts crawler.Options) (*Crawler, error) {
	ix, err := library.NewIndex(catalog.Services())
	if err != nil {
		return nil, err
	}
	return &Crawler{engine: crawler.New(ix), opts: opts}, nil
}

// Crawl implements core.SiteCrawler. Failures worth retrying are marked core.Temporary.
func (c *Crawler) Crawl(ctx context.Context, req core.CrawlRequest) (*core.CrawlResult, error) {
	opts := c.opts
	opts.StartURLs, opts.StorefrontPassword = req.URLs, req.StorefrontPassword
	res, err := c.engine.Crawl(ctx, opts)
	if err != nil {
		if crawler.IsTemporary(err) || ctx.Err() != nil {
			return nil, core.Temporary(err)
		}
		return nil, err
	}
	out := &core.CrawlResult{
		PagesScanned:        len(res.Pages),
		DetectedServices:    make([]core.DetectedService, 0, len(res.Services)),
		UnrecognizedScripts: make([]core.UnrecognizedScript, 0, len(res.Unrecognized)),
	}
	for _, s := range res.Services {
		out.DetectedServices = append(out.DetectedServices, core.DetectedService{
			Slug: s.Slug, Name: s.Name, Category: s.Category, TrackingIDs: orEmpty(s.TrackingIDs), Pages: orEmpty(s.Pages),
		})
	}
	for _, u := range res.Unrecognized {
		out.UnrecognizedScripts = append(out.UnrecognizedScripts, core.UnrecognizedScript{Src: u.Src, Domain: u.Domain, Pages: orEmpty(u.Pages)})
	}
	return out, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
