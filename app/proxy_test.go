package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/edge"
	"github.com/consentd/consentd/library"
)

func TestProxyConfigValidate(t *testing.T) {
	t.Parallel()
	err := app.ProxyConfig{Upstream: "ftp://x", API: ""}.Validate()
	for _, want := range []string{"--upstream", "--consentd-url", "--site"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
	if err := (app.ProxyConfig{Upstream: "http://127.0.0.1:3000", API: "https://c.example", Site: "pk_x"}).Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestRunProxy: consentd proxy in front of an origin holds the origin's tag for a visitor from
// France, serves /metrics on its own address, and stops when its context ends.
func TestRunProxy(t *testing.T) {
	t.Parallel()
	lib, err := library.Load("")
	if err != nil {
		t.Fatal(err)
	}
	cats := []*banner.Category{{ID: "c1", Slug: "essential", IsRequired: true}, {ID: "c2", Slug: "statistics"}, {ID: "c3", Slug: "marketing"}}
	rs := edge.RuleSetOf(lib, &core.Site{ProjectKey: "pk_p"}, &banner.Banner{DefaultBehavior: banner.BehaviorOptIn, SiteWideBlocking: true, ConsentVersion: 1}, cats, nil)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != core.PublicPath("pk_p", core.PublicEdge) {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(rs)
	}))
	t.Cleanup(api.Close)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<head><script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ9"></script></head>`)
	}))
	t.Cleanup(origin.Close)
	addr, metrics := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- app.RunProxy(ctx, app.ProxyConfig{Addr: addr, Upstream: origin.URL, API: api.URL, Site: "pk_p", CountryHeader: "CF-IPCountry", MetricsAddr: metrics})
	}()
	body := waitGet(t, "http://"+addr+"/", "CF-IPCountry", "FR")
	if !strings.Contains(body, `type="text/plain" data-category="statistics"`) {
		t.Fatalf("not held: %s", body)
	}
	if m := waitGet(t, "http://"+metrics+"/metrics"); !strings.Contains(m, `consentd_edge_pages_total{outcome="rewritten"} 1`) {
		t.Fatalf("metrics: %s", m)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the proxy did not stop")
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitGet GETs u (with header pairs) until it answers, for up to 10 s.
func waitGet(t *testing.T, u string, headers ...string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		req, _ := http.NewRequest("GET", u, nil)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
