package trustedproxy_test

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/consentd/consentd/adapters/internal/trustedproxy"
)

// TestRule: a proxy's word on the client and on the scheme counts only from a trusted peer.
func TestRule(t *testing.T) {
	t.Parallel()
	rule := trustedproxy.New([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32")})
	cases := []struct {
		name    string
		peer    string
		tls     bool
		headers [][2]string
		https   bool
		client  string
	}{
		{"direct, plain", "203.0.113.9:5000", false, nil, false, "203.0.113.9"},
		{"direct, TLS", "203.0.113.9:5000", true, nil, true, "203.0.113.9"},
		{"untrusted peer's X-Forwarded-Proto", "203.0.113.9:5000", false, [][2]string{{"X-Forwarded-Proto", "https"}, {"X-Forwarded-For", "198.51.100.1"}}, false, "203.0.113.9"},
		{"untrusted peer's Forwarded", "203.0.113.9:5000", false, [][2]string{{"Forwarded", "for=198.51.100.1;proto=https"}}, false, "203.0.113.9"},
		{"trusted X-Forwarded-Proto https", "10.1.2.3:5000", false, [][2]string{{"X-Forwarded-Proto", "https"}, {"X-Forwarded-For", "198.51.100.1"}}, true, "198.51.100.1"},
		{"trusted X-Forwarded-Proto HTTPS", "10.1.2.3:5000", false, [][2]string{{"X-Forwarded-Proto", "HTTPS"}}, true, "10.1.2.3"},
		{"trusted X-Forwarded-Proto http", "10.1.2.3:5000", false, [][2]string{{"X-Forwarded-Proto", "http"}}, false, "10.1.2.3"},
		{"trusted, nearest proxy's value wins", "10.1.2.3:5000", false, [][2]string{{"X-Forwarded-Proto", "https, http"}}, false, "10.1.2.3"},
		{"trusted, nearest proxy's line wins", "10.1.2.3:5000", false, [][2]string{{"X-Forwarded-Proto", "http"}, {"X-Forwarded-Proto", "https"}}, true, "10.1.2.3"},
		{"trusted Forwarded proto=https", "[2001:db8::7]:5000", false, [][2]string{{"Forwarded", `for="[2001:db8:1::1]:4711", for=198.51.100.2;proto="https"`}}, true, "198.51.100.2"},
		{"trusted Forwarded wins over X-Forwarded-Proto", "10.1.2.3:5000", false, [][2]string{{"Forwarded", "for=198.51.100.2;proto=http"}, {"X-Forwarded-Proto", "https"}}, false, "198.51.100.2"},
		{"trusted Forwarded without proto", "10.1.2.3:5000", false, [][2]string{{"Forwarded", "for=198.51.100.2"}, {"X-Forwarded-Proto", "https"}}, true, "198.51.100.2"},
		{"trusted, no header", "10.1.2.3:5000", false, nil, false, "10.1.2.3"},
		{"mapped trusted peer", "[::ffff:10.1.2.3]:5000", false, [][2]string{{"X-Forwarded-Proto", "https"}}, true, "::ffff:10.1.2.3"},
	}
	for _, tc := range cases {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tc.peer
		if tc.tls {
			r.TLS = &tls.ConnectionState{}
		}
		for _, h := range tc.headers {
			r.Header.Add(h[0], h[1])
		}
		if got := rule.HTTPS(r); got != tc.https {
			t.Errorf("%s: HTTPS %v, want %v", tc.name, got, tc.https)
		}
		if got := rule.ClientIP(r); got != tc.client {
			t.Errorf("%s: ClientIP %q, want %q", tc.name, got, tc.client)
		}
		// Without trusted proxies, only the connection counts.
		if got := trustedproxy.New(nil).HTTPS(r); got != tc.tls {
			t.Errorf("%s, no proxies: HTTPS %v, want %v", tc.name, got, tc.tls)
		}
	}
}
