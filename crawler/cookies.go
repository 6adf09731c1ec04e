package crawler

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/consentd/consentd/crawler/extract"
)

// cookieAgg gathers the responses setting one cookie (by name and domain).
type cookieAgg struct {
	c     ObservedCookie
	urls  map[string]bool
	pages map[string]bool
}

// pageKey is the context key of the page on whose behalf a request is made, when it is not the
// request's own URL (tag manager containers).
type pageKey struct{}

// cookieRecorder sees every response, redirect hops included, and records its Set-Cookie headers.
type cookieRecorder struct {
	rt http.RoundTripper
	s  *scan
}

func (r *cookieRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rt.RoundTrip(req)
	if err == nil {
		if lines := resp.Header.Values("Set-Cookie"); len(lines) > 0 {
			r.s.recordCookies(req, resp.Header.Get("Date"), lines)
		}
	}
	return resp, err
}

// pageOf is the page a request was made for: the one named in its context, else the URL first
// requested before the redirects that led to it.
func pageOf(req *http.Request) string {
	if p, ok := req.Context().Value(pageKey{}).(string); ok {
		return p
	}
	for req.Response != nil && req.Response.Request != nil {
		req = req.Response.Request
	}
	return normalizeURL(req.URL)
}

// cookieLifetime is how long a cookie is kept from receipt: its Max-Age, else its Expires date
// less the response's Date (or now). Zero for a session cookie or one being deleted.
func cookieLifetime(c *http.Cookie, date string) time.Duration {
	switch {
	case c.MaxAge > 0:
		return time.Duration(c.MaxAge) * time.Second
	case c.MaxAge < 0 || c.Expires.IsZero():
		return 0
	}
	now := time.Now()
	if t, err := http.ParseTime(date); err == nil {
		now = t
	}
	return max(c.Expires.Sub(now).Truncate(time.Second), 0)
}

// defaultCookiePath is the path a cookie without a Path attribute gets (RFC 6265, 5.1.4).
func defaultCookiePath(u *url.URL) string {
	p := u.EscapedPath()
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

func (s *scan) recordCookies(req *http.Request, date string, lines []string) {
	reqURL := req.URL
	host := strings.ToLower(reqURL.Hostname())
	respURL := normalizeURL(reqURL)
	page := pageOf(req)
	var rep extract.Report
	s.mu.Lock()
	for _, line := range lines {
		c, err := http.ParseSetCookie(line)
		if err != nil {
			continue
		}
		dom := strings.TrimPrefix(strings.ToLower(c.Domain), ".")
		if dom == "" {
			dom = host
		}
		path := c.Path
		if !strings.HasPrefix(path, "/") {
			path = defaultCookiePath(reqURL)
		}
		key := c.Name + "\x00" + dom
		a := s.cookies[key]
		if a == nil {
			a = &cookieAgg{c: ObservedCookie{Name: c.Name, Domain: dom, Path: path, Session: c.MaxAge == 0 && c.Expires.IsZero()},
				urls: map[string]bool{}, pages: map[string]bool{}}
			a.c.ThirdParty = !s.domains[s.domainOf(dom)]
			// A service's cookie counts only on the side it is documented on: a site's own
			// "uid" cookie is not Criteo's third-party "uid".
			if m, ok := s.e.ix.MatchCookie(c.Name); ok &&
				(m.Cookie.Party == "" || (m.Cookie.Party == "third") == a.c.ThirdParty) {
				a.c.Service = m.Service.Slug
			}
			s.cookies[key] = a
		}
		// Settings of one cookie from several responses keep the longest lifetime and the
		// widest path, whatever order they came in.
		a.c.MaxAge = max(a.c.MaxAge, cookieLifetime(c, date))
		if path < a.c.Path {
			a.c.Path = path
		}
		a.urls[respURL] = true
		a.pages[page] = true
		if a.c.Service != "" && !s.deep {
			rep.Hits = append(rep.Hits, extract.Hit{Service: s.e.ix.Service(a.c.Service), Evidence: extract.Evidence{Kind: extract.EvidenceCookie, Page: respURL, Snippet: c.Name}})
		}
	}
	s.mu.Unlock()
	if len(rep.Hits) > 0 {
		s.merge(&rep, true)
	}
}
