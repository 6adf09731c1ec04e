package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestConsoleMount: with Console the web console answers "/" while the API keeps its paths;
// without it "/" is the API's JSON 404.
func TestConsoleMount(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		a, err := New(context.Background(), Config{
			DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "c.db"), BootstrapAPIKey: testKey,
			Console: on, Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(a.Handler())
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		get := func(path string) (int, string, string) {
			res, err := c.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return res.StatusCode, res.Header.Get("Location"), string(b)
		}
		if on {
			if code, loc, _ := get("/"); code != http.StatusSeeOther || loc != "/sites" {
				t.Errorf("console on, GET /: %d %s", code, loc)
			}
			if code, _, body := get("/sign-in"); code != 200 || !strings.Contains(body, "Sign in to consentd") {
				t.Errorf("console on, GET /sign-in: %d", code)
			}
		} else if code, _, body := get("/"); code != http.StatusNotFound || !strings.Contains(body, `"not_found"`) {
			t.Errorf("console off, GET /: %d %s", code, body)
		}
		if code, _, body := get("/api/v1/sites"); code != http.StatusUnauthorized || !strings.Contains(body, `"unauthorized"`) {
			t.Errorf("console %v, GET /api/v1/sites: %d %s", on, code, body)
		}
		if code, _, _ := get("/healthz"); code != 200 {
			t.Errorf("console %v, GET /healthz: %d", on, code)
		}
		srv.Close()
		a.Close()
	}
}

// TestConsoleSignInLimitBehindProxy: behind a trusted proxy the console's sign-in limit counts
// each client the proxy names, as the API's limits do, not the proxy itself; without trusted
// proxies a forwarding header is ignored and the peer is the client.
func TestConsoleSignInLimitBehindProxy(t *testing.T) {
	t.Parallel()
	csrfField := regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	for _, trusted := range []bool{true, false} {
		cfg := Config{DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "c.db"), BootstrapAPIKey: testKey,
			Console: true, Logger: slog.New(slog.DiscardHandler)}
		if trusted {
			cfg.TrustedProxies = []string{"127.0.0.1/32", "::1/128"}
		}
		a, err := New(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(a.Handler())
		signIn := func(client string) int {
			jar, _ := cookiejar.New(nil)
			c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			res, err := c.Get(srv.URL + "/sign-in")
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(res.Body)
			res.Body.Close()
			m := csrfField.FindSubmatch(page)
			if m == nil {
				t.Fatalf("no csrf field on the sign-in page")
			}
			form := url.Values{"csrf": {string(m[1])}, "key": {"cd_wrong"}, "next": {"/sites"}}
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/sign-in", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Forwarded-For", client)
			res, err = c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res.StatusCode
		}
		for i := range 5 {
			if code := signIn("203.0.113.7"); code != http.StatusUnauthorized {
				t.Fatalf("trusted %v, failure %d: status %d", trusted, i, code)
			}
		}
		if code := signIn("203.0.113.7"); code != http.StatusTooManyRequests {
			t.Fatalf("trusted %v: sixth failure from one client: status %d", trusted, code)
		}
		other, want := signIn("198.51.100.9"), http.StatusUnauthorized
		if !trusted {
			want = http.StatusTooManyRequests // the header is not believed: same peer, same client
		}
		if other != want {
			t.Errorf("trusted %v: another client behind the proxy: status %d, want %d", trusted, other, want)
		}
		srv.Close()
		a.Close()
	}
}
