package httpapi_test

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/memstore"
)

// proxiedEnv serves the API with a public rate limit of 1/s (burst 2) behind the given trusted
// proxies (none: clients connect directly); the test client connects from 127.0.0.1.
func proxiedEnv(t *testing.T, trusted ...string) (*env, *bytes.Buffer) {
	t.Helper()
	m := memCore(t, memstore.New())
	org, err := m.Orgs.CreateOrganization(sysCtx, "o")
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := m.Orgs.CreateAPIKey(sysCtx, org.ID, "k", "")
	if err != nil {
		t.Fatal(err)
	}
	var prefixes []netip.Prefix
	for _, p := range trusted {
		prefixes = append(prefixes, netip.MustParsePrefix(p))
	}
	var logs bytes.Buffer
	srv := httptest.NewServer(httpapi.New(httpapi.Config{UseCases: httpapi.FromCore(m), Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
		PublicRateLimit: 1, TrustedProxies: prefixes}))
	t.Cleanup(srv.Close)
	return &env{t: t, srv: srv, m: m, keyA: key}, &logs
}

// refused counts the 429s among n public requests carrying the header pairs.
func refused(e *env, n int, headers ...string) int {
	c := 0
	for range n {
		if e.raw("GET", "/api/v1/public/pk_nope/config", "", "", headers...).status == 429 {
			c++
		}
	}
	return c
}

// TestRateLimitBehindTrustedProxy: two visitors behind a trusted proxy have a bucket each.
func TestRateLimitBehindTrustedProxy(t *testing.T) {
	t.Parallel()
	e, logs := proxiedEnv(t, "127.0.0.0/8")
	if n := refused(e, 2, "X-Forwarded-For", "203.0.113.5"); n != 0 {
		t.Fatalf("visitor 1 refused %d times within its burst", n)
	}
	if n := refused(e, 2, "X-Forwarded-For", "198.51.100.7, 127.0.0.1"); n != 0 {
		t.Fatalf("visitor 2 refused %d times within its burst: it shares visitor 1's bucket", n)
	}
	if n := refused(e, 2, "Forwarded", `for="[2001:db8::1]:4711";proto=https`); n != 0 {
		t.Fatalf("visitor 3 (Forwarded) refused %d times within its burst", n)
	}
	if n := refused(e, 3, "X-Forwarded-For", "203.0.113.5"); n < 2 {
		t.Fatalf("visitor 1 past its burst refused only %d times", n)
	}
	// The access log names the visitor's network, never the address.
	if out := logs.String(); !strings.Contains(out, `"client":"203.0.113.0/24"`) || strings.Contains(out, "203.0.113.5") ||
		strings.Contains(out, "2001:db8::1") {
		t.Fatalf("access log: %s", out)
	}
}

// TestForgedForwardedForIgnored: from a peer that is not a trusted proxy, X-Forwarded-For
// changes nothing: every forged address shares the peer's bucket.
func TestForgedForwardedForIgnored(t *testing.T) {
	t.Parallel()
	for name, trusted := range map[string][]string{"no proxies": nil, "other proxies": {"10.0.0.0/8"}} {
		t.Run(name, func(t *testing.T) {
			e, _ := proxiedEnv(t, trusted...)
			n := 0
			for i := range 6 {
				n += refused(e, 1, "X-Forwarded-For", "203.0.113."+string(rune('1'+i)), "Forwarded", "for=198.51.100."+string(rune('1'+i)))
			}
			if n < 3 {
				t.Fatalf("6 requests with forged addresses, %d refused: the forgery bought fresh buckets", n)
			}
		})
	}
}

// TestSecurityHeaders: every response is inert in a browser, and the management API never
// allows cross-origin reads.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/api/v1/sites", "/api/v1/openapi.json", "/api/v1/docs", "/healthz", "/api/v1/nope"} {
		r := e.raw("GET", path, e.keyA, "", "Origin", "https://evil.example")
		if r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Referrer-Policy") == "" ||
			!strings.Contains(r.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("%s: headers %v", path, r.header)
		}
		if a := r.header.Get("Access-Control-Allow-Origin"); a != "" {
			t.Errorf("%s: Access-Control-Allow-Origin %q on the management API", path, a)
		}
	}
	pre := e.raw("OPTIONS", "/api/v1/sites", "", "", "Origin", "https://evil.example", "Access-Control-Request-Method", "POST")
	if a := pre.header.Get("Access-Control-Allow-Origin"); a != "" {
		t.Errorf("preflight of the management API allowed %q", a)
	}
	pub := e.raw("GET", "/api/v1/public/pk_nope/config", "", "")
	if pub.header.Get("X-Content-Type-Options") != "nosniff" || pub.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("public endpoint headers: %v", pub.header)
	}
}
