package crawler

import (
	"net/url"
	"strings"

	"golang.org/x/net/publicsuffix"
)

func (s *scan) domainOf(host string) string {
	if d, ok := s.domCache.Load(host); ok {
		return d.(string)
	}
	d := registrableDomain(host)
	s.domCache.Store(host, d)
	return d
}

// registrableDomain is the public suffix plus one label, or the host itself for IP addresses,
// single-label hosts and public suffixes.
func registrableDomain(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}

func (s *scan) sameSite(u string) bool {
	host, _, _, ok := splitHostOnly(u)
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
