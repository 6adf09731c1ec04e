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

// TestGeolocationOverHTTP is #26's first "done when": with no CDN header configured and the
// trusted proxies covering 127.0.0.1, the address a request's X-Forwarded-For names is
// geolocated with the embedded database, in the public config and in the stored record, over
// IPv4 and IPv6 alike. The IP address itself is stored nowhere.
func TestGeolocationOverHTTP(t *testing.T) {
	logs := &bytes.Buffer{}
	a, err := New(context.Background(), Config{
		DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "geo.db"), BootstrapAPIKey: testKey,
		TrustedProxies: []string{"127.0.0.1/32", "::1/128"}, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	do := func(method, path, body string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+"/api/v1"+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testKey)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
		}
		return res, b
	}
	var site struct{ ID, ProjectKey string }
	_, b := do("POST", "/sites", `{"name":"Shop","url":"https://shop.example"}`)
	if err := json.Unmarshal(b, &site); err != nil {
		t.Fatal(err)
	}
	i := 0
	for _, tc := range []struct{ addr, country, jurisdiction string }{
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
		// A forwarded address that is private or not an address is nowhere.
		{"10.0.0.7", "", "none"},
	} {
		i++
		// The proxy appends the client to what the client sent: the rightmost untrusted one is
		// the client, whatever the client forged to its left.
		xff := "8.8.4.4, " + tc.addr
		res, b := do("GET", "/public/"+site.ProjectKey+"/config", "", "X-Forwarded-For", xff)
		var cfg struct{ Jurisdiction string }
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.Jurisdiction != tc.jurisdiction {
			t.Errorf("%s: config jurisdiction %q, want %q", tc.addr, cfg.Jurisdiction, tc.jurisdiction)
		}
		// Geolocated from the address, the config is for the visitor's browser only.
		if cc, v := res.Header.Get("Cache-Control"), res.Header.Get("Vary"); !strings.HasPrefix(cc, "private,") || v != "Accept-Language" {
			t.Errorf("%s: Cache-Control %q, Vary %q", tc.addr, cc, v)
		}
		visitor := fmt.Sprint("visitor-", i)
		do("POST", "/public/"+site.ProjectKey+"/consent", `{"visitorId":"`+visitor+`","categories":{},"consentVersion":1}`, "X-Forwarded-For", xff)
		var recs struct {
			Records []map[string]any
		}
		_, b = do("GET", "/sites/"+site.ID+"/consent-records?visitorId="+visitor, "")
		if err := json.Unmarshal(b, &recs); err != nil || len(recs.Records) != 1 {
			t.Fatalf("%s: records %s (%v)", tc.addr, b, err)
		}
		r := recs.Records[0]
		if r["ipCountry"] != tc.country || r["jurisdiction"] != tc.jurisdiction {
			t.Errorf("%s: record ipCountry %v, jurisdiction %v; want %q, %q", tc.addr, r["ipCountry"], r["jurisdiction"], tc.country, tc.jurisdiction)
		}
		if strings.Contains(string(b), tc.addr) {
			t.Errorf("%s: the record holds the address: %s", tc.addr, b)
		}
	}
	for _, addr := range []string{"80.67.169.12", "2001:4860:4860::8888", "202.12.27.33"} {
		if strings.Contains(logs.String(), addr) {
			t.Errorf("the logs name %s", addr)
		}
	}
}
