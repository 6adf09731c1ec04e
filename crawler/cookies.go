package crawler

import (
	"net/http"
	"net/url"
	"strings"
)

// cookieAgg gathers the responses setting one cookie (by name and domain).
type cookieAgg struct {
	c    ObservedCookie
	urls map[string]bool
}

// cookieRecorder sees every response, redirect hops included, and records its Set-Cookie headers.
type cookieRecorder struct {
	rt http.RoundTripper
	s  *scan
}

func (r *cookieRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rt.RoundTrip(req)
	if err == nil {
		if lines := resp.Header.Values("Set-Cookie"); len(lines) > 0 {
			r.s.recordCookies(req.URL, lines)
		}
	}
	return resp, err
}

func (s *scan) recordCookies(reqURL *url.URL, lines []string) {
	host := strings.ToLower(reqURL.Hostname())
	page := normalizeURL(reqURL)
	var rep pageReport
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
		key := c.Name + "\x00" + dom
		a := s.cookies[key]
		if a == nil {
			a = &cookieAgg{c: ObservedCookie{Name: c.Name, Domain: dom, Session: c.MaxAge == 0 && c.Expires.IsZero()}, urls: map[string]bool{}}
			a.c.ThirdParty = !s.domains[s.domainOf(dom)]
			// A service's cookie counts only on the side it is documented on: a site's own
			// "uid" cookie is not Criteo's third-party "uid".
			if m, ok := s.e.ix.MatchCookie(c.Name); ok &&
				(m.Cookie.Party == "" || (m.Cookie.Party == "third") == a.c.ThirdParty) {
				a.c.Service = m.Service.Slug
			}
			s.cookies[key] = a
		}
		a.urls[page] = true
		if a.c.Service != "" {
			rep.hits = append(rep.hits, hit{svc: s.e.ix.Service(a.c.Service), ev: Evidence{Kind: EvidenceCookie, Page: page, Snippet: c.Name}})
		}
	}
	s.mu.Unlock()
	if len(rep.hits) > 0 {
		s.merge(&rep, true)
	}
}
