package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsoleMount: with Console the web console answers "/" while the API keeps its paths;
// without it "/" is the API's JSON 404.
func TestConsoleMount(t *testing.T) {
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
