package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/verifier"
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

// verifierPlace is the place a verifier's request names (verifier.LocationHeader) with its
// credential (verifier.Header), when the credential is valid for the site of the request's
// project key and the place is well formed; ok is false otherwise, and the request is then an
// ordinary visitor's: a location header of anyone else changes nothing.
func (h *handlers) verifierPlace(r *http.Request) (core.Location, string, bool) {
	token := r.Header.Get(verifier.Header)
	if token == "" || h.m.VerifierUseCases == nil {
		return core.Location{}, "", false
	}
	_, projectKey, ok := core.ParsePublicPath(r.URL.Path)
	if !ok || !h.m.Valid(r.Context(), token, projectKey) {
		return core.Location{}, "", false
	}
	loc, ok := verifier.Place(r.Header.Get(verifier.LocationHeader))
	if !ok {
		// A verifier that names no place is a visitor from where it is, whose decisions still
		// count for nothing.
		return h.loc.locate(r), token, true
	}
	return loc, token, true
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

// cacheControl is a location-dependent response's Cache-Control (locator.cacheControl), or
// no-store for a verifier's request: the place it names is not the client's, and no cache
// may hand that answer to anyone else.
func (h *handlers) cacheControl(ctx context.Context, directives string) string {
	if verifierOf(ctx) != "" {
		return "private, no-store"
	}
	return h.loc.cacheControl(directives)
}
