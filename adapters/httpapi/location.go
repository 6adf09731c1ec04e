package httpapi

import (
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/consentd/consentd/core"
)

// locator resolves a visitor's location, once per request of a public endpoint: from the
// trusted CDN headers when the request carries one of those configured, otherwise from the
// geolocation of the client address that the trusted-proxy rule picks (ClientIP). The address
// is looked up only: it is neither kept nor logged.
type locator struct {
	countryHeader, regionHeader string
	geo                         core.Geolocator
	client                      func(*http.Request) string
	log                         *slog.Logger
}

func newLocator(cfg Config) *locator {
	return &locator{countryHeader: cfg.CountryHeader, regionHeader: cfg.RegionHeader, geo: cfg.Geolocator,
		client: clientIP(cfg.TrustedProxies), log: cfg.Logger}
}

// locate returns where the visitor of r is. A configured header the request carries wins, even
// when its value names no place (Cloudflare's XX and T1): the CDN saw the visitor, and this
// server may only see the CDN. The region header's value is either whole ("US-CA") or the part
// after the country ("CA").
func (l *locator) locate(r *http.Request) core.Location {
	var country, region string
	if l.countryHeader != "" {
		country = r.Header.Get(l.countryHeader)
	}
	if l.regionHeader != "" {
		region = r.Header.Get(l.regionHeader)
	}
	if country != "" || region != "" || l.geo == nil {
		return core.LocationOf(country, region)
	}
	addr, err := netip.ParseAddr(l.client(r))
	if err != nil {
		return core.Location{}
	}
	loc, err := l.geo.Locate(addr)
	if err != nil {
		// The address is not logged: the error names the database, not the visitor.
		l.log.Warn("geolocation failed", slog.Any("err", err))
		return core.Location{}
	}
	return loc
}

// sharedCache reports whether caches shared between visitors (a CDN) may keep a response that
// depends on the visitor's location: only when that location comes from headers they can
// vary on. A location geolocated from the client address varies with something no Vary header
// names, so such responses are private to the visitor's browser.
func (l *locator) sharedCache() bool {
	return l.geo == nil || l.countryHeader != ""
}

// vary is the Vary header of a response that depends on the visitor's languages and location.
func (l *locator) vary() string {
	v := "Accept-Language"
	for _, h := range []string{l.countryHeader, l.regionHeader} {
		if h != "" {
			v += ", " + h
		}
	}
	return v
}

// cacheControl is a location-dependent response's Cache-Control with directives after its
// public or private one.
func (l *locator) cacheControl(directives string) string {
	if l.sharedCache() {
		return "public, " + directives
	}
	return "private, " + directives
}
