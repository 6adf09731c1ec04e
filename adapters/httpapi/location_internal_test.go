package httpapi

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/consentd/consentd/adapters/geoip"
	"github.com/consentd/consentd/core"
)

// places is a Geolocator over a table, for the tests; it records what it was asked.
type places struct {
	at    map[netip.Addr]core.Location
	asked []netip.Addr
}

func (p *places) Locate(a netip.Addr) (core.Location, error) {
	p.asked = append(p.asked, a)
	if a == netip.MustParseAddr("192.0.2.99") {
		return core.Location{}, errors.New("corrupt record")
	}
	return p.at[a], nil
}

func (p *places) Database() core.GeoDatabase { return core.GeoDatabase{Name: "test"} }

func TestLocate(t *testing.T) {
	geo := &places{at: map[netip.Addr]core.Location{
		netip.MustParseAddr("80.67.169.12"): {Country: "FR"},
		netip.MustParseAddr("8.8.8.8"):      {Country: "US", Region: "US-CA"},
		netip.MustParseAddr("2001:db8::1"):  {Country: "DE"},
	}}
	proxies := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	for _, tc := range []struct {
		name            string
		country, region string // configured headers
		geo             bool
		peer            string
		header          []string
		want            core.Location
		asked           bool
	}{
		{name: "no header configured: geolocated", geo: true, peer: "80.67.169.12", want: core.Location{Country: "FR"}, asked: true},
		{name: "subdivision from the database", geo: true, peer: "8.8.8.8", want: core.Location{Country: "US", Region: "US-CA"}, asked: true},
		{name: "IPv6", geo: true, peer: "2001:db8::1", want: core.Location{Country: "DE"}, asked: true},
		{name: "trusted proxy names the client", geo: true, peer: "127.0.0.1", header: []string{"X-Forwarded-For", "80.67.169.12"}, want: core.Location{Country: "FR"}, asked: true},
		{name: "untrusted peer's X-Forwarded-For ignored", geo: true, peer: "2001:db8::1", header: []string{"X-Forwarded-For", "80.67.169.12"}, want: core.Location{Country: "DE"}, asked: true},
		{name: "no geolocator", peer: "80.67.169.12", want: core.Location{}},
		{name: "country header wins", country: "CF-IPCountry", geo: true, peer: "80.67.169.12", header: []string{"CF-IPCountry", "jp"}, want: core.Location{Country: "JP"}},
		{name: "country header and short region", country: "CF-IPCountry", region: "CF-Region-Code", geo: true, peer: "80.67.169.12",
			header: []string{"CF-IPCountry", "US", "CF-Region-Code", "CO"}, want: core.Location{Country: "US", Region: "US-CO"}},
		{name: "whole region alone", region: "X-Vercel-IP-Country-Region", geo: true, peer: "80.67.169.12",
			header: []string{"X-Vercel-IP-Country-Region", "US-VA"}, want: core.Location{Country: "US", Region: "US-VA"}},
		{name: "region of another country dropped", country: "CF-IPCountry", region: "CF-Region-Code", geo: true, peer: "8.8.8.8",
			header: []string{"CF-IPCountry", "CA", "CF-Region-Code", "US-CA"}, want: core.Location{Country: "CA"}},
		{name: "header present but unknown: unknown, not geolocated", country: "CF-IPCountry", geo: true, peer: "80.67.169.12",
			header: []string{"CF-IPCountry", "XX"}, want: core.Location{}},
		{name: "header configured but absent: geolocated", country: "CF-IPCountry", geo: true, peer: "80.67.169.12", want: core.Location{Country: "FR"}, asked: true},
		{name: "lookup error: unknown", geo: true, peer: "192.0.2.99", want: core.Location{}, asked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			geo.asked = nil
			logs := &bytes.Buffer{}
			cfg := Config{CountryHeader: tc.country, RegionHeader: tc.region, TrustedProxies: proxies, Logger: slog.New(slog.NewTextHandler(logs, nil))}
			if tc.geo {
				cfg.Geolocator = geo
			}
			r := httptest.NewRequest("GET", "/api/v1/public/pk/config", nil)
			r.RemoteAddr = netip.AddrPortFrom(netip.MustParseAddr(tc.peer), 4321).String()
			for i := 0; i < len(tc.header); i += 2 {
				r.Header.Set(tc.header[i], tc.header[i+1])
			}
			if got := newLocator(cfg).locate(r); got != tc.want {
				t.Errorf("locate = %+v, want %+v", got, tc.want)
			}
			if (len(geo.asked) > 0) != tc.asked {
				t.Errorf("geolocator asked %v", geo.asked)
			}
			if bytes.Contains(logs.Bytes(), []byte(tc.peer)) {
				t.Errorf("the log names the address: %s", logs)
			}
		})
	}
}

func TestLocationCaching(t *testing.T) {
	geo := &places{}
	for _, tc := range []struct {
		cfg         Config
		cache, vary string
	}{
		{Config{}, "public, max-age=60", "Accept-Language"},
		{Config{Geolocator: geo}, "private, max-age=60", "Accept-Language"},
		{Config{Geolocator: geo, CountryHeader: "CF-IPCountry"}, "public, max-age=60", "Accept-Language, CF-IPCountry"},
		{Config{Geolocator: geo, CountryHeader: "CF-IPCountry", RegionHeader: "CF-Region-Code"}, "public, max-age=60", "Accept-Language, CF-IPCountry, CF-Region-Code"},
		{Config{Geolocator: geo, RegionHeader: "CF-Region-Code"}, "private, max-age=60", "Accept-Language, CF-Region-Code"},
	} {
		l := newLocator(tc.cfg)
		if c, v := l.cacheControl("max-age=60"), l.vary(); c != tc.cache || v != tc.vary {
			t.Errorf("%+v: Cache-Control %q, Vary %q; want %q, %q", tc.cfg, c, v, tc.cache, tc.vary)
		}
	}
}

// BenchmarkLocateRequest is what geolocation adds to each public request: the client address
// by the trusted-proxy rule, then the lookup in the embedded database (BenchmarkLoaderAB
// compares whole loader requests).
func BenchmarkLocateRequest(b *testing.B) {
	geo, err := geoip.OpenEmbedded()
	if err != nil {
		b.Fatal(err)
	}
	l := newLocator(Config{Geolocator: geo, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Logger: slog.New(slog.DiscardHandler)})
	r := httptest.NewRequest("GET", "/api/v1/public/pk/loader.js", nil)
	r.RemoteAddr = "127.0.0.1:40000"
	r.Header.Set("X-Forwarded-For", "80.67.169.12")
	for b.Loop() {
		if l.locate(r).Country != "FR" {
			b.Fatal("not FR")
		}
	}
}
