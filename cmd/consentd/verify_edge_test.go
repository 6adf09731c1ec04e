package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/consentd/consentd/adapters/edgerewrite"
	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core"
	corescan "github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/crawler/crawlertest"
)

// TestVerifyEdgeShop: 'consentd verify' of #43's shop (testdata/verify/edge-shop: the loader
// first, then GA4, Meta Pixel with its <noscript> pixel, Hotjar, a YouTube iframe and a Google
// Fonts stylesheet pasted unmarked, with resource hints to their hosts) served bare is
// not_compliant, the browser having fetched what the runtime held, with advice that names the
// edge; the same shop served through consentd proxy's handler (edgerewrite.Proxy, its rule set
// fetched from the recorded GET /public/{projectKey}/edge) is compliant. Two pages each.
func TestVerifyEdgeShop(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "verify", "edge-shop")
	t.Run("bare", func(t *testing.T) {
		t.Parallel()
		rule, caFile := serveSite(t, dir)
		rep := verifyReport(t, dir, rule, caFile)
		if rep.Compliant {
			t.Fatal("the bare shop was reported compliant")
		}
		var fetched *corescan.Finding
		for i, f := range rep.Findings {
			if f.RuleID == "enforcement.unmarked-tag-fetched" {
				fetched = &rep.Findings[i]
				break
			}
		}
		if fetched == nil {
			t.Fatalf("no enforcement.unmarked-tag-fetched finding: %+v", rep.Findings)
		}
		if !strings.Contains(fetched.Fix, "edge") || !strings.Contains(fetched.Fix, "consentd proxy") {
			t.Errorf("the advice does not name the edge: %s", fetched.Fix)
		}
	})
	t.Run("through consentd proxy", func(t *testing.T) {
		t.Parallel()
		rule, caFile, fetched := serveProxied(t, dir)
		rep := verifyReport(t, dir, rule, caFile)
		if !rep.Compliant {
			b, _ := json.MarshalIndent(rep.Findings, "", "  ")
			t.Fatalf("the shop behind the edge was reported not compliant:\n%s", b)
		}
		// Compliant because the tags were held, not because the edge broke them: once accepted
		// (verify's accept_all state) every vendor was fetched.
		got := fetched()
		for _, h := range edgeShopVendors {
			if !got[h] {
				t.Errorf("%s was never fetched, not even after Accept all (fetched: %v)", h, got)
			}
		}
	})
}

// verifyReport runs 'consentd verify --json' on the site's first two pages and returns its
// report.
func verifyReport(t *testing.T, dir, rule, caFile string) corescan.ComplianceReport {
	t.Helper()
	cfg := crawlertest.LoadSite(t, dir)
	out, errOut, status := runVerifyAt(t, rule, caFile, cfg.Start[0], "--max-pages", "2", "--json")
	var rep corescan.ComplianceReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("consentd verify (status %d): %v\n%s\n%s", status, err, out, errOut)
	}
	if want := map[bool]int{true: 0, false: exitFindings}[rep.Compliant]; status != want {
		t.Errorf("consentd verify: status %d, want %d", status, want)
	}
	return rep
}

// serveProxied serves the recorded site as serveSite does, but its shop's host through consentd
// proxy's handler in front of the recorded origin, which fetches the site's rule set from the
// recorded consentd host as any edge does, and locates every visitor in France.
func serveProxied(t *testing.T, dir string) (rule, caFile string, fetched func() map[string]bool) {
	t.Helper()
	cfg := crawlertest.LoadSite(t, dir)
	site := crawlertest.Handler(dir, cfg, bannerjs.Handler())
	origin := httptest.NewServer(site)
	t.Cleanup(origin.Close)
	cert, caFile := crawlertest.CA(t, crawlertest.Hosts(t, dir)...)
	srv := httptest.NewUnstartedServer(nil)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	addr := srv.Listener.Addr().String()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}}}
	// The shop's project key, from its tag.
	page, err := os.ReadFile(filepath.Join(dir, crawlertest.SiteHost(cfg), "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(page), `data-project-key="`)
	projectKey, _, _ := strings.Cut(after, `"`)
	up, _ := url.Parse(origin.URL)
	proxy := edgerewrite.Proxy(up, edgerewrite.Config{
		Rules:  &edgerewrite.Remote{API: "https://" + cfg.Consentd, ProjectKey: projectKey, Client: client},
		Locate: func(*http.Request) core.Location { return core.Location{Country: "FR"} },
	})
	shop := crawlertest.SiteHost(cfg)
	var mu sync.Mutex
	hosts := map[string]bool{}
	fetched = func() map[string]bool {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(hosts)
	}
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts[strings.Split(r.Host, ":")[0]] = true
		mu.Unlock()
		if host, _, err := net.SplitHostPort(r.Host); err == nil && host == shop || r.Host == shop {
			proxy.ServeHTTP(w, r)
			return
		}
		site.ServeHTTP(w, r)
	})
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(addr)
	return "::127.0.0.1:" + port, caFile, fetched
}

// edgeShopVendors are the hosts of the edge shop's vendors.
var edgeShopVendors = []string{"www.googletagmanager.com", "connect.facebook.net", "www.facebook.com", "static.hotjar.com", "www.youtube.com",
	"fonts.googleapis.com"}
