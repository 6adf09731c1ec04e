// Package collycrawler plugs the crawler engine into core as its SiteCrawler port.
package collycrawler

import (
	"context"
	"errors"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler"
)

// Crawler implements core.SiteCrawler with the crawler engine.
type Crawler struct {
	engine *crawler.Engine
	opts   crawler.Options
}

var _ core.SiteCrawler = (*Crawler)(nil)

// New returns a crawler on the engine; opts carries the limits and the private-address
// policy applied to every scan (its StartURLs and password are ignored).
func New(engine *crawler.Engine, opts crawler.Options) *Crawler {
	return &Crawler{engine: engine, opts: opts}
}

// Crawl implements core.SiteCrawler. Failures worth retrying are marked core.Temporary.
func (c *Crawler) Crawl(ctx context.Context, req core.CrawlRequest) (*core.CrawlResult, error) {
	opts := c.opts
	opts.StartURLs, opts.StorefrontPassword = req.URLs, req.StorefrontPassword
	res, err := c.engine.Crawl(ctx, opts)
	if err != nil {
		return nil, crawlError(ctx, err)
	}
	observe(res)
	out := &core.CrawlResult{
		PagesScanned:        len(res.Pages),
		DetectedServices:    make([]core.DetectedService, 0, len(res.Services)),
		UnrecognizedScripts: make([]core.UnrecognizedScript, 0, len(res.Unrecognized)),
	}
	for _, s := range res.Services {
		cookies := []core.ObservedCookie{}
		for _, c := range res.CookiesOf(s.Slug) {
			cookies = append(cookies, core.ObservedCookie{
				Name: c.Name, Domain: c.Domain, Path: c.Path, Session: c.Session, ThirdParty: c.ThirdParty,
				Duration: core.DescribeDuration(c.MaxAge), MaxAgeSeconds: int64(c.MaxAge / time.Second), SeenAt: orEmpty(c.Pages),
			})
		}
		out.DetectedServices = append(out.DetectedServices, core.DetectedService{
			Slug: s.Slug, Name: s.Name, Category: s.Category, TrackingIDs: orEmpty(s.TrackingIDs), Pages: orEmpty(s.Pages),
			Cookies: cookies,
		})
	}
	out.PageErrors = make([]core.PageError, 0, len(res.Errors))
	for _, e := range res.Errors {
		pe := core.PageError{URL: e.URL, Message: e.Message}
		if e.Status != 0 {
			pe.Status = &e.Status
		}
		out.PageErrors = append(out.PageErrors, pe)
	}
	for _, u := range res.Unrecognized {
		out.UnrecognizedScripts = append(out.UnrecognizedScripts, core.UnrecognizedScript{Src: u.Src, Domain: u.Domain, Pages: orEmpty(u.Pages)})
	}
	return out, nil
}

// crawlError turns an engine failure into a core.CrawlError: the engine's own message is
// written for the site owner; anything else keeps its cause for the log only.
func crawlError(ctx context.Context, err error) error {
	var ce *crawler.Error
	var out error
	switch {
	case errors.As(err, &ce):
		out = &core.CrawlError{Message: ce.Message, Err: err}
	case ctx.Err() != nil:
		out = &core.CrawlError{Message: "the scan did not finish within its time limit", Err: err}
	default:
		return err
	}
	if crawler.IsTemporary(err) || ctx.Err() != nil {
		return core.Temporary(out)
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
