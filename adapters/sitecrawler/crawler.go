// Package sitecrawler plugs the crawler engine into core as its SiteCrawler port: it runs the
// static scan, the deep scan (Chromium) and the verification of a site, and maps what package
// crawler saw to core's types.
package sitecrawler

import (
	"context"
	"errors"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler"
	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/library"
)

// Crawler implements core.SiteCrawler with the crawler engine: static scans with Crawl, deep
// scans with DeepCrawl and verification scans with Verify on the browser pool.
type Crawler struct {
	engine   *crawler.Engine
	opts     crawler.Options
	browsers *browser.Pool
}

var _ core.SiteCrawler = (*Crawler)(nil)

// New returns a crawler on the engine; opts carries the limits and the private-address
// policy applied to every scan (its StartURLs and password are ignored). browsers is the
// worker's browser pool for deep scans; nil makes every scan static (auto) or fail (deep).
// The deep scans' limits are core's.
func New(engine *crawler.Engine, opts crawler.Options, browsers *browser.Pool) *Crawler {
	opts.MaxBrowserBytes = core.ScanByteBudget
	opts.QuietFor, opts.QuietMax, opts.PagesAtOnce = core.DeepQuietFor, core.DeepQuietMax, core.DeepPagesAtOnce
	if opts.PageTimeout == 0 {
		opts.PageTimeout = core.DeepPageTimeout
	}
	return &Crawler{engine: engine, opts: opts, browsers: browsers}
}

// Crawl implements core.SiteCrawler. Failures worth retrying are marked core.Temporary. Mode
// auto runs deep when a browser can be started, static otherwise.
func (c *Crawler) Crawl(ctx context.Context, req core.CrawlRequest) (*core.CrawlResult, error) {
	opts := c.opts
	opts.StartURLs, opts.StorefrontPassword = req.URLs, req.StorefrontPassword
	if req.Mode == core.ScanVerify {
		res, err := c.engine.Verify(ctx, opts, c.browsers, crawler.VerifyOptions{ProjectKey: req.ProjectKey, MaxItems: core.MaxVerifiedItems})
		if err != nil {
			return nil, crawlError(ctx, err)
		}
		observe(res)
		return Result(res), nil
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
	return Result(res), nil
}

// Result maps an engine result to core's.
func Result(res *crawler.Result) *core.CrawlResult {
	out := &core.CrawlResult{
		ModeUsed:            core.ScanStatic,
		PagesScanned:        len(res.Pages),
		DetectedServices:    make([]core.DetectedService, 0, len(res.Services)),
		UnrecognizedScripts: make([]core.UnrecognizedScript, 0, len(res.Unrecognized)),
		UnrecognizedCookies: []core.UnrecognizedCookie{},
		PreConsent:          make([]core.PreConsentFinding, 0, len(res.PreConsent)),
		Mentions:            make([]core.Mention, 0, len(res.Mentions)),
	}
	for _, m := range res.Mentions {
		out.Mentions = append(out.Mentions, core.Mention{Slug: m.Slug, Name: m.Name, Category: m.Category, Detected: m.Detected,
			TrackingIDs: orEmpty(m.TrackingIDs), Pages: orEmpty(m.Pages)})
	}
	switch res.Mode {
	case crawler.ModeDeep:
		out.ModeUsed = core.ScanDeep
	case crawler.ModeVerify:
		out.ModeUsed = core.ScanVerify
		out.Verification = Verification(res.Verification)
	}
	for _, s := range res.Services {
		cookies := []core.ObservedCookie{}
		for _, c := range res.CookiesOf(s.Slug) {
			cookies = append(cookies, core.ObservedCookie{
				Name: c.Name, Domain: c.Domain, Path: c.Path, Session: c.Session, ThirdParty: c.ThirdParty,
				Duration: library.DescribeDuration(c.MaxAge), MaxAgeSeconds: int64(c.MaxAge / time.Second), SeenAt: orEmpty(c.Pages),
				HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: c.SameSite,
			})
		}
		out.DetectedServices = append(out.DetectedServices, core.DetectedService{
			Slug: s.Slug, Name: s.Name, Category: s.Category, TrackingIDs: orEmpty(s.TrackingIDs), Pages: orEmpty(s.Pages),
			Cookies: cookies, Gated: s.Gated,
		})
	}
	// A static scan's unclaimed Set-Cookie headers are not "held by the browser"; only the
	// browser's scans list unrecognized cookies.
	if res.Mode == crawler.ModeDeep || res.Mode == crawler.ModeVerify {
		for _, c := range res.Cookies {
			if c.Service != "" {
				continue
			}
			out.UnrecognizedCookies = append(out.UnrecognizedCookies, core.UnrecognizedCookie{
				Kind: core.StorageCookie, Name: c.Name, Domain: c.Domain, Duration: library.DescribeDuration(c.MaxAge),
				MaxAgeSeconds: int64(c.MaxAge / time.Second), ThirdParty: c.ThirdParty, SeenAt: orEmpty(c.Pages),
			})
		}
		for _, k := range res.Storage {
			if k.Service != "" {
				continue
			}
			kind := core.StorageLocal
			if k.Kind == crawler.StorageSession {
				kind = core.StorageSession
			}
			out.UnrecognizedCookies = append(out.UnrecognizedCookies, core.UnrecognizedCookie{
				Kind: kind, Name: k.Name, Domain: k.Host, Duration: library.DescribeDuration(0), SeenAt: orEmpty(k.Pages),
			})
		}
	}
	for _, p := range res.PreConsent {
		out.PreConsent = append(out.PreConsent, core.PreConsentFinding{Slug: p.Slug, Name: p.Name, Category: p.Category,
			Requests: orEmpty(p.Requests), Cookies: orEmpty(p.Cookies), Storage: orEmpty(p.Storage), Pages: orEmpty(p.Pages)})
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
	return out
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
