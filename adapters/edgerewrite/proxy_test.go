package edgerewrite_test

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/edgerewrite"
	"github.com/consentd/consentd/core"
)

// consentdServer serves the shop's rule set as consentd does: with an ETag, 304 on a match.
// It counts full answers and 304s.
func consentdServer(t testing.TB) (*httptest.Server, *atomic.Int32, *atomic.Int32) {
	raw, err := json.Marshal(shopRules(t))
	if err != nil {
		t.Fatal(err)
	}
	var full, notModified atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != core.PublicPath("pk_shop", core.PublicEdge) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("ETag", `"rs1"`)
		if r.Header.Get("If-None-Match") == `"rs1"` {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write(raw)
	}))
	t.Cleanup(srv.Close)
	return srv, &full, &notModified
}

func proxyTo(t testing.TB, upstream string, api string) *httptest.Server {
	up, _ := url.Parse(upstream)
	rules := &edgerewrite.Remote{API: api, ProjectKey: "pk_shop", Revalidate: 20 * time.Millisecond}
	srv := httptest.NewServer(edgerewrite.Proxy(up, edgerewrite.Config{Rules: rules, CountryHeader: "CF-IPCountry"}))
	t.Cleanup(srv.Close)
	return srv
}

func TestProxy(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(origin())
	t.Cleanup(up.Close)
	api, full, notModified := consentdServer(t)
	p := proxyTo(t, up.URL, api.URL+"/api/v1")

	res, body := get(t, p.URL+"/page", "CF-IPCountry", "FR")
	if !strings.Contains(body, `data-consentd-service="meta-pixel"`) || res.Header.Get("Content-Length") != "" {
		t.Fatalf("page not held through the proxy: %v\n%s", res.Header, body)
	}
	res, body = get(t, p.URL+"/page", "CF-IPCountry", "JP")
	if body != shopPage || res.Header.Get("Content-Length") != itoa(len(shopPage)) {
		t.Fatalf("Japan: the page changed through the proxy: %v\n%s", res.Header, body)
	}
	res, body = get(t, p.URL+"/page.gz", "CF-IPCountry", "FR", "Accept-Encoding", "gzip")
	z, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(z)
	if res.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(string(plain), `data-consentd-service="youtube"`) {
		t.Fatalf("gzipped page: %v\n%s", res.Header, plain)
	}
	_, body = get(t, p.URL+"/app.js", "CF-IPCountry", "FR")
	if !strings.Contains(body, `<script src=https://www.googletagmanager.com`) {
		t.Fatalf("script changed: %s", body)
	}
	// The rule set is fetched once, then revalidated with its ETag.
	deadline := time.Now().Add(5 * time.Second)
	for notModified.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(30 * time.Millisecond)
		get(t, p.URL+"/json", "CF-IPCountry", "FR")
	}
	if full.Load() != 1 || notModified.Load() == 0 {
		t.Fatalf("rule set fetched %d times, revalidated %d times", full.Load(), notModified.Load())
	}
}

// TestProxyWithoutRuleSet: while no rule set can be had (a wrong key), pages pass as they came
// rather than failing.
func TestProxyWithoutRuleSet(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(origin())
	t.Cleanup(up.Close)
	api, _, _ := consentdServer(t)
	upURL, _ := url.Parse(up.URL)
	rules := &edgerewrite.Remote{API: api.URL, ProjectKey: "pk_wrong"}
	p := httptest.NewServer(edgerewrite.Proxy(upURL, edgerewrite.Config{Rules: rules, CountryHeader: "CF-IPCountry"}))
	t.Cleanup(p.Close)
	res, body := get(t, p.URL+"/page", "CF-IPCountry", "FR")
	if res.StatusCode != 200 || body != shopPage {
		t.Fatalf("%d\n%s", res.StatusCode, body)
	}
	if _, err := rules.Matcher(t.Context()); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("error %v", err)
	}
}
