// Package sitecrawler plugs the crawler engine into core as its SiteCrawler port: it runs the
// static scan, the deep scan (Chromium) or the verification of a site and returns the engine's
// report, in core's types.
package sitecrawler

import (
	"context"
	"errors"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/crawler"
	"github.com/consentd/consentd/crawler/browser"
)

// Crawler implements core.SiteCrawler with the crawler engine: static scans with Crawl, deep
// scans with DeepCrawl and verification scans with Verify on the browser pool.
type Crawler struct {
	engine   *crawler.Engine
	opts     crawler.Options
	browsers *browser.Pool
}

var _ scan.SiteCrawler = (*Crawler)(nil)

// New returns a crawler on the engine; opts carries the limits and the private-address
// policy applied to every scan (its StartURLs and password are ignored). browsers is the
// worker's browser pool for deep scans; nil makes every scan static (auto) or fail (deep).
// The deep scans' limits are core's.
func New(engine *crawler.Engine, opts crawler.Options, browsers *browser.Pool) *Crawler {
	opts.MaxBrowserBytes = scan.ScanByteBudget
	opts.QuietFor, opts.QuietMax, opts.PagesAtOnce = scan.DeepQuietFor, scan.DeepQuietMax, scan.DeepPagesAtOnce
	opts.StatesAtOnce = scan.VerifyStatesAtOnce
	if opts.PageTimeout == 0 {
		opts.PageTimeout = scan.DeepPageTimeout
	}
	return &Crawler{engine: engine, opts: opts, browsers: browsers}
}

// Crawl implements core.SiteCrawler. Failures worth retrying are marked core.Temporary. Mode
// auto runs deep when a browser can be started, static otherwise.
func (c *Crawler) Crawl(ctx context.Context, req scan.CrawlRequest) (*core.CrawlResult, error) {
	opts := c.opts
	opts.StartURLs, opts.StorefrontPassword = req.URLs, req.StorefrontPassword
	if req.Mode == core.ScanVerify {
		res, err := c.engine.Verify(ctx, opts, c.browsers, crawler.VerifyOptions{ProjectKey: req.ProjectKey, MaxItems: core.MaxVerifiedItems,
			Places: req.Places, Credential: req.Credential})
		if err != nil {
			return nil, crawlError(ctx, err)
		}
		observe(res)
		return res.Report(), nil
	}
	deep := req.Mode == core.ScanDeep
	if req.Mode == core.ScanAuto || req.Mode == "" {
		deep = c.browsers != nil && c.browsers.Available() == nil
	}
	var res *crawler.Result
	var err error
	if deep {
		res, err = c.engine.DeepCrawl(ctx, opts, c.browsers)
	} else {
		res, err = c.engine.Crawl(ctx, opts)
	}
	if err != nil {
		return nil, crawlError(ctx, err)
	}
	observe(res)
	return res.Report(), nil
}

// crawlError turns an engine failure into a core.CrawlError: the engine's own message is
// written for the site owner; anything else keeps its cause for the log only.
func crawlError(ctx context.Context, err error) error {
	var ce *crawler.Error
	var out error
	switch {
	case errors.As(err, &ce):
		out = &scan.CrawlError{Message: ce.Message, Err: err}
	case ctx.Err() != nil:
		out = &scan.CrawlError{Message: "the scan did not finish within its time limit", Err: err}
	default:
		return err
	}
	if crawler.IsTemporary(err) || ctx.Err() != nil {
		return core.Temporary(out)
	}
	return out
}
