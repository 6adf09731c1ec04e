package crawler

import (
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// Report is the kernel's report of the scan (core.CrawlResult), what a scan stores: each
// detected service with the cookies it claims, the unrecognized cookies and storage keys a
// browser held, the pre-consent findings, mentions, page errors and, for a verification, the
// Verification as it is. Every list is non-nil.
func (r *Result) Report() *core.CrawlResult {
	out := &core.CrawlResult{
		ModeUsed:            r.Mode,
		PagesScanned:        len(r.Pages),
		DetectedServices:    make([]core.DetectedService, 0, len(r.Services)),
		UnrecognizedScripts: make([]core.UnrecognizedScript, 0, len(r.Unrecognized)),
		UnrecognizedCookies: []core.UnrecognizedCookie{},
		PreConsent:          orEmpty(r.PreConsent),
		Mentions:            make([]core.Mention, 0, len(r.Mentions)),
		PageErrors:          make([]core.PageError, 0, len(r.Errors)),
		Verification:        r.Verification,
	}
	for _, s := range r.Services {
		cookies := []core.ObservedCookie{}
		for _, c := range r.CookiesOf(s.Slug) {
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
	if r.Mode == core.ScanDeep || r.Mode == core.ScanVerify {
		for _, c := range r.Cookies {
			if c.Service != "" {
				continue
			}
			out.UnrecognizedCookies = append(out.UnrecognizedCookies, core.UnrecognizedCookie{
				Kind: core.StorageCookie, Name: c.Name, Domain: c.Domain, Duration: library.DescribeDuration(c.MaxAge),
				MaxAgeSeconds: int64(c.MaxAge / time.Second), ThirdParty: c.ThirdParty, SeenAt: orEmpty(c.Pages),
			})
		}
		for _, k := range r.Storage {
			if k.Service != "" {
				continue
			}
			out.UnrecognizedCookies = append(out.UnrecognizedCookies, core.UnrecognizedCookie{
				Kind: k.Kind, Name: k.Name, Domain: k.Host, Duration: library.DescribeDuration(0), SeenAt: orEmpty(k.Pages),
			})
		}
	}
	for _, m := range r.Mentions {
		out.Mentions = append(out.Mentions, core.Mention{Slug: m.Slug, Name: m.Name, Category: m.Category, Detected: m.Detected,
			TrackingIDs: orEmpty(m.TrackingIDs), Pages: orEmpty(m.Pages)})
	}
	for _, e := range r.Errors {
		pe := core.PageError{URL: e.URL, Message: e.Message}
		if e.Status != 0 {
			pe.Status = &e.Status
		}
		out.PageErrors = append(out.PageErrors, pe)
	}
	for _, u := range r.Unrecognized {
		out.UnrecognizedScripts = append(out.UnrecognizedScripts, core.UnrecognizedScript{Src: u.Src, Domain: u.Domain, Pages: orEmpty(u.Pages), Error: u.Error})
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
