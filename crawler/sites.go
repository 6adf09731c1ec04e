package crawler

import (
	"net/url"
	"strings"

	"github.com/consentd/consentd/crawler/extract"
)

func (s *scan) domainOf(host string) string {
	if d, ok := s.domCache.Load(host); ok {
		return d.(string)
	}
	d := extract.RegistrableDomain(host)
	s.domCache.Store(host, d)
	return d
}

func (s *scan) sameSite(u string) bool {
	host, ok := extract.URLHost(u)
	return ok && s.domains[s.domainOf(strings.ToLower(host))]
}

// normalizeURL drops the fragment and gives an empty path as "/", so links to one page compare
// equal.
func normalizeURL(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	if c.Path == "" && c.RawPath == "" {
		c.Path = "/"
	}
	c.Host = strings.ToLower(c.Host)
	return c.String()
}
