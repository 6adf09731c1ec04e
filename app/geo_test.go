package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// geoServer is consentd with the trusted proxies covering loopback, adjusted by tune, and one
// site; do sends a request with the test key and extra headers, and fails the test on an error
// status.
type geoServer struct {
	t                  *testing.T
	url                string
	siteID, projectKey string
	logs               *bytes.Buffer
}

func newGeoServer(t *testing.T, tune func(*Config)) *geoServer {
	t.Helper()
	s := &geoServer{t: t, logs: &bytes.Buffer{}}
	cfg := Config{
		DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "geo.db"), BootstrapAPIKey: testKey,
		TrustedProxies: []string{"127.0.0.1/32", "::1/128"}, Logger: slog.New(slog.NewJSONHandler(s.logs, nil)),
	}
	if tune != nil {
		tune(&cfg)
	}
	a, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	s.url = srv.URL
	var site struct{ ID, ProjectKey string }
	_, b := s.do("POST", "/sites", `{"name":"Shop","url":"https://shop.example"}`)
	if err := json.Unmarshal(b, &site); err != nil {
		t.Fatal(err)
	}
	s.siteID, s.projectKey = site.ID, site.ProjectKey
	return s
}

func (s *geoServer) do(method, path, body string, header ...string) (*http.Response, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+"/api/v1"+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		s.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	return res, b
}

// visit fetches the public config and records a decision as visitor, both with header; it
// returns the config's response and body and the stored record, as the API lists it.
func (s *geoServer) visit(visitor string, header ...string) (*http.Response, map[string]any, map[string]any, string) {
	s.t.Helper()
	res, b := s.do("GET", "/public/"+s.projectKey+"/config", "", header...)
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		s.t.Fatal(err)
	}
	s.do("POST", "/public/"+s.projectKey+"/consent", `{"visitorId":"`+visitor+`","categories":{},"consentVersion":1}`, header...)
	var recs struct{ Records []map[string]any }
	_, b = s.do("GET", "/sites/"+s.siteID+"/consent-records?visitorId="+visitor, "")
	if err := json.Unmarshal(b, &recs); err != nil || len(recs.Records) != 1 {
		s.t.Fatalf("%s: records %s (%v)", visitor, b, err)
	}
	return res, cfg, recs.Records[0], string(b)
}

// TestGeolocationOverHTTP is #26's first "done when": with no CDN header configured and the
// trusted proxies covering 127.0.0.1, the address a request's X-Forwarded-For names is
// geolocated with the embedded database, in the public config and in the stored record, over
// IPv4 and IPv6 alike. The IP address itself is stored and logged nowhere.
func TestGeolocationOverHTTP(t *testing.T) {
	t.Parallel()
	s := newGeoServer(t, nil)
	for i, tc := range []struct{ addr, country, jurisdiction string }{
		{"80.67.169.12", "FR", "gdpr"},
		{"130.149.7.201", "DE", "gdpr"},
		{"193.0.6.139", "NL", "gdpr"},
		{"81.2.69.142", "GB", "gdpr"},
		{"8.8.8.8", "US", "ccpa"},
		{"202.12.27.33", "JP", "none"},
		{"2a01:e0c::1", "FR", "gdpr"},
		{"2001:638:1::1", "DE", "gdpr"},
		{"2001:67c:2e8::1", "NL", "gdpr"},
		{"2001:630::1", "GB", "gdpr"},
		{"2001:4860:4860::8888", "US", "ccpa"},
		{"2001:240::1", "JP", "none"},
		// A forwarded address that is private is nowhere.
		{"10.0.0.7", "", "none"},
	} {
		// The proxy appends the client to what the client sent: the rightmost untrusted one is
		// the client, whatever the client forged to its left.
		res, cfg, r, listing := s.visit(fmt.Sprint("visitor-", i), "X-Forwarded-For", "8.8.4.4, "+tc.addr)
		if cfg["jurisdiction"] != tc.jurisdiction {
			t.Errorf("%s: config jurisdiction %v, want %q", tc.addr, cfg["jurisdiction"], tc.jurisdiction)
		}
		// Geolocated from the address, the config is for the visitor's browser only.
		if cc, v := res.Header.Get("Cache-Control"), res.Header.Get("Vary"); !strings.HasPrefix(cc, "private,") || v != "Accept-Language" {
			t.Errorf("%s: Cache-Control %q, Vary %q", tc.addr, cc, v)
		}
		if r["ipCountry"] != tc.country || r["jurisdiction"] != tc.jurisdiction {
			t.Errorf("%s: record ipCountry %v, jurisdiction %v; want %q, %q", tc.addr, r["ipCountry"], r["jurisdiction"], tc.country, tc.jurisdiction)
		}
		if strings.Contains(listing, tc.addr) {
			t.Errorf("%s: the record holds the address: %s", tc.addr, listing)
		}
		if strings.Contains(s.logs.String(), tc.addr) {
			t.Errorf("the logs name %s", tc.addr)
		}
	}
}

// TestGeolocationHeaders: configured CDN headers win over geolocation when the request carries
// them, the region header's short form takes the country's, and the config stays shareable
// by a CDN that varies on those headers; a request without them is geolocated.
func TestGeolocationHeaders(t *testing.T) {
	t.Parallel()
	s := newGeoServer(t, func(c *Config) { c.CountryHeader, c.RegionHeader = "CF-IPCountry", "CF-Region-Code" })
	res, cfg, r, _ := s.visit("from-california", "X-Forwarded-For", "80.67.169.12", "CF-IPCountry", "US", "CF-Region-Code", "CA")
	if cfg["jurisdiction"] != "ccpa" || r["ipCountry"] != "US" || r["region"] != "US-CA" || r["jurisdiction"] != "ccpa" {
		t.Errorf("from the headers: config %v %v, record %v %v %v", cfg["jurisdiction"], cfg["region"], r["ipCountry"], r["region"], r["jurisdiction"])
	}
	if cc, v := res.Header.Get("Cache-Control"), res.Header.Get("Vary"); !strings.HasPrefix(cc, "public,") || v != "Accept-Language, CF-IPCountry, CF-Region-Code" {
		t.Errorf("Cache-Control %q, Vary %q", cc, v)
	}
	_, cfg, r, _ = s.visit("unknown-to-the-cdn", "X-Forwarded-For", "80.67.169.12", "CF-IPCountry", "XX")
	if cfg["jurisdiction"] != "none" || r["ipCountry"] != "" {
		t.Errorf("CF-IPCountry XX: config %v, record %v", cfg["jurisdiction"], r["ipCountry"])
	}
	_, cfg, r, _ = s.visit("not-through-the-cdn", "X-Forwarded-For", "80.67.169.12")
	if cfg["jurisdiction"] != "gdpr" || r["ipCountry"] != "FR" || r["region"] != "" {
		t.Errorf("no header: config %v, record %v %v", cfg["jurisdiction"], r["ipCountry"], r["region"])
	}
}
