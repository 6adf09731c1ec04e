package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestConsoleCookiesSecureBehindProxy: signing in through a trusted proxy that says the client
// came over HTTPS (X-Forwarded-Proto or Forwarded proto) sets every console cookie Secure,
// without CONSENTD_PUBLIC_URL; the same header from a peer that is not a trusted proxy counts
// for nothing, and so does a trusted proxy that says http.
func TestConsoleCookiesSecureBehindProxy(t *testing.T) {
	t.Parallel()
	csrfField := regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	cases := []struct {
		name          string
		trusted       []string
		header, value string
		wantSecure    bool
	}{
		{"trusted proxy, X-Forwarded-Proto https", []string{"127.0.0.1/32", "::1/128"}, "X-Forwarded-Proto", "https", true},
		{"trusted proxy, Forwarded proto=https", []string{"127.0.0.1/32", "::1/128"}, "Forwarded", `for=203.0.113.7;proto=https`, true},
		{"trusted proxy, X-Forwarded-Proto http", []string{"127.0.0.1/32", "::1/128"}, "X-Forwarded-Proto", "http", false},
		{"no trusted proxy, X-Forwarded-Proto https", nil, "X-Forwarded-Proto", "https", false},
		{"other trusted proxy, X-Forwarded-Proto https", []string{"10.0.0.0/8"}, "X-Forwarded-Proto", "https", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := New(context.Background(), Config{DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "c.db"),
				BootstrapAPIKey: testKey, Console: true, TrustedProxies: tc.trusted, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			srv := httptest.NewServer(a.Handler())
			t.Cleanup(srv.Close)
			c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			var cookies []*http.Cookie
			do := func(method, path string, form url.Values) []byte {
				t.Helper()
				req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(form.Encode()))
				if form != nil {
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				req.Header.Set(tc.header, tc.value)
				for _, k := range cookies {
					req.AddCookie(k)
				}
				res, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				body, _ := io.ReadAll(res.Body)
				for _, k := range res.Cookies() {
					if k.Secure != tc.wantSecure {
						t.Errorf("%s %s: cookie %s Secure=%v, want %v", method, path, k.Name, k.Secure, tc.wantSecure)
					}
				}
				cookies = append(cookies, res.Cookies()...)
				return body
			}
			m := csrfField.FindSubmatch(do(http.MethodGet, "/sign-in", nil))
			if m == nil {
				t.Fatal("no csrf field on the sign-in page")
			}
			do(http.MethodPost, "/sign-in", url.Values{"csrf": {string(m[1])}, "key": {testKey}, "next": {"/sites"}})
			session := false
			for _, k := range cookies {
				session = session || (k.Name == "consentd_session" && k.Value != "")
			}
			if !session {
				t.Fatalf("signing in set no session cookie: %v", cookies)
			}
		})
	}
}
