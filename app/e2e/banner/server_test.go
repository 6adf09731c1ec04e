package banner_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
)

// maxGzipped is the size budget of the served runtime (script and styles, gzipped).
const maxGzipped = 12 * 1024

// snippetTag is the script tag of the script setup snippet.
var snippetTag = regexp.MustCompile(`<script src="([^"]+)" data-project-key="([^"]+)"></script>`)

// rawClient does not decompress, so that the test sees the bytes on the wire.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

func get(t *testing.T, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	return request(t, http.MethodGet, url, hdr)
}

func request(t *testing.T, method, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// TestServedByServer checks the runtime as the real server serves it, at the versioned URL the
// setup snippet names: long caching, gzip within the size budget, a strong ETag.
func TestServedByServer(t *testing.T) {
	t.Parallel()
	srv := theServer(t)
	base := srv.edge(t, "")
	var site struct {
		ID         string `json:"id"`
		ProjectKey string `json:"projectKey"`
	}
	mgmt(t, base, "POST", "/sites", map[string]any{"name": "Served", "url": "https://served.example"}, 201, &site)
	var sn struct{ Code string }
	mgmt(t, base, "GET", "/sites/"+site.ID+"/setup-snippet?framework=script", nil, 200, &sn)
	m := snippetTag.FindStringSubmatch(sn.Code)
	if m == nil {
		t.Fatalf("script snippet without a plain, synchronous script tag: %s", sn.Code)
	}
	src, key := m[1], m[2]
	if want := base + "/api/v1/public/" + site.ProjectKey + "/loader.js"; src != want {
		t.Fatalf("snippet src %s, want %s (the site's loader)", src, want)
	}
	if key != site.ProjectKey {
		t.Fatalf("snippet project key %s, want %s", key, site.ProjectKey)
	}
	// The loader is the site's configuration followed by the very runtime banner.js serves.
	res, loader := get(t, src, nil)
	if res.StatusCode != 200 || !bytes.HasPrefix(loader, []byte("//# allFunctionsCalledOnLoad\nwindow.__consentdBoot={")) || !bytes.HasSuffix(loader, bannerjs.Script()) {
		t.Fatalf("GET %s: %d, %.80s", src, res.StatusCode, loader)
	}
	if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=60") || !strings.Contains(cc, "stale-while-revalidate") {
		t.Errorf("loader Cache-Control %q", cc)
	}
	for _, fw := range []string{"react", "next"} {
		mgmt(t, base, "GET", "/sites/"+site.ID+"/setup-snippet?framework="+fw, nil, 200, &sn)
		if !strings.Contains(sn.Code, `"`+src+`"`) || !strings.Contains(sn.Code, `"`+key+`"`) {
			t.Errorf("%s snippet does not load %s with key %s:\n%s", fw, src, key, sn.Code)
		}
	}

	// The runtime alone stays at its immutable, versioned URL for older snippets.
	src = base + "/api/v1/public/banner.js?v=" + bannerjs.Version()
	res, body := get(t, src, map[string]string{"Accept-Encoding": "gzip"})
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d", src, res.StatusCode)
	}
	for k, want := range map[string]string{
		"Content-Type":                "text/javascript; charset=utf-8",
		"Content-Encoding":            "gzip",
		"Cache-Control":               "public, max-age=31536000, immutable",
		"Access-Control-Allow-Origin": "*",
		"Vary":                        "Accept-Encoding",
	} {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	t.Logf("served banner.js (script and styles): %d bytes gzipped, budget %d", len(body), maxGzipped)
	if len(body) > maxGzipped {
		t.Errorf("served banner.js is %d bytes gzipped, budget %d", len(body), maxGzipped)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain, bannerjs.Script()) {
		t.Fatal("the server does not serve the built runtime")
	}
	etag := res.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) {
		t.Fatalf("ETag %q is not a strong validator", etag)
	}
	if res, b := get(t, src, map[string]string{"Accept-Encoding": "gzip", "If-None-Match": etag}); res.StatusCode != 304 || len(b) != 0 {
		t.Errorf("revalidation: %d with %d bytes, want 304 and none", res.StatusCode, len(b))
	}
	if res, b := request(t, http.MethodHead, src, nil); res.StatusCode != 200 || len(b) != 0 {
		t.Errorf("HEAD: %d with %d bytes", res.StatusCode, len(b))
	}
	// Without the version (or with an old one) the script is only cached for minutes.
	for _, u := range []string{base + "/api/v1/public/banner.js", base + "/api/v1/public/banner.js?v=000000000000"} {
		if res, _ := get(t, u, nil); res.StatusCode != 200 || res.Header.Get("Cache-Control") != "public, max-age=300" {
			t.Errorf("GET %s: %d, Cache-Control %q", u, res.StatusCode, res.Header.Get("Cache-Control"))
		}
	}
}
