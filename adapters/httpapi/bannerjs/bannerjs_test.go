package bannerjs

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/i18n"
)

// maxGzipped is the size budget of the served runtime (script and styles, gzipped).
const maxGzipped = 12 * 1024

func TestSizeBudget(t *testing.T) {
	b := get()
	if !b.minified {
		t.Fatal("the minifier failed on the embedded sources; the readable sources are being served")
	}
	t.Logf("banner.js %s: %d bytes, %d gzipped", b.version, len(b.plain), len(b.gz))
	if len(b.gz) > maxGzipped {
		t.Fatalf("served banner.js is %d bytes gzipped, budget %d", len(b.gz), maxGzipped)
	}
	if bytes.Contains(b.plain, []byte("__CONSENTD_")) {
		t.Fatal("a build placeholder was left in the served script")
	}
	if !bytes.Contains(b.plain, []byte(".ok{")) {
		t.Fatal("the stylesheet was not inlined into the script")
	}
	if !bytes.Contains(b.plain, []byte(`"`+Version()+`"`)) {
		t.Fatal("the version is not stamped into the script")
	}
}

// TestMore: the lazily loaded part is served at its own immutable, versioned URL, which the
// runtime names; it carries banner-more.css, and its version is stamped where the runtime checks it.
func TestMore(t *testing.T) {
	m := getMore()
	if !m.minified || len(MoreVersion()) != 12 || MoreVersion() == Version() {
		t.Fatalf("lazily loaded part: minified %t, version %q (runtime %q)", m.minified, MoreVersion(), Version())
	}
	t.Logf("banner-more.js %s: %d bytes, %d gzipped", m.version, len(m.plain), len(m.gz))
	if !bytes.Contains(Script(), []byte(`"`+MoreVersion()+`"`)) || !bytes.Contains(m.plain, []byte(`"`+MoreVersion()+`"`)) {
		t.Fatal("the runtime does not name the version of the part it loads, or the part lacks it")
	}
	if bytes.Contains(m.plain, []byte("__CONSENTD_")) || !bytes.Contains(m.plain, []byte(".pr{")) {
		t.Fatal("a placeholder left in the lazily loaded part, or its stylesheet missing")
	}
	if bytes.Contains(Script(), []byte(".pr{")) {
		t.Fatal("the preferences' styles are still in the first view")
	}
	res := do(t, "GET", "/api/v1/public/banner-more.js?v="+MoreVersion(), map[string]string{"Accept-Encoding": "gzip"})
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(body, m.gz) ||
		res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || res.Header.Get("ETag") == "" {
		t.Fatalf("GET banner-more.js: %d %v", res.StatusCode, res.Header)
	}
	if cc := do(t, "GET", "/banner-more.js?v="+Version(), nil).Header.Get("Cache-Control"); cc != shortCache {
		t.Errorf("banner-more.js under the runtime's version: Cache-Control %q", cc)
	}
}

func TestVersionIsStableShortHash(t *testing.T) {
	v := Version()
	if len(v) != 12 || strings.Trim(v, "0123456789abcdef") != "" {
		t.Fatalf("Version() = %q, want 12 hex digits", v)
	}
	if Version() != v {
		t.Fatal("Version() changed between calls")
	}
}

func do(t *testing.T, method, target string, hdr map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, req)
	return rec.Result()
}

func TestHandler(t *testing.T) {
	t.Parallel()
	plain := do(t, "GET", "/banner.js", nil)
	body, _ := io.ReadAll(plain.Body)
	if plain.StatusCode != 200 || !bytes.Equal(body, Script()) {
		t.Fatalf("GET /banner.js: status %d, %d bytes", plain.StatusCode, len(body))
	}
	for k, want := range map[string]string{
		"Content-Type":                "text/javascript; charset=utf-8",
		"Access-Control-Allow-Origin": "*",
		"Cache-Control":               "public, max-age=300",
		"Vary":                        "Accept-Encoding",
		"Content-Encoding":            "",
	} {
		if got := plain.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	etag := plain.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || strings.HasPrefix(etag, "W/") {
		t.Fatalf("ETag %q is not a strong validator", etag)
	}

	zipped := do(t, "GET", "/api/v1/public/banner.js?v="+Version(), map[string]string{"Accept-Encoding": "br, gzip;q=0.8"})
	if zipped.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding = %q, want gzip", zipped.Header.Get("Content-Encoding"))
	}
	if got := zipped.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
		t.Errorf("versioned Cache-Control = %q", got)
	}
	zr, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	unz, _ := io.ReadAll(zr)
	if !bytes.Equal(unz, body) {
		t.Fatal("gzip body does not decompress to the plain body")
	}
	gzTag := zipped.Header.Get("ETag")
	if gzTag == etag || gzTag == "" {
		t.Fatalf("gzip representation ETag %q must differ from the identity one %q", gzTag, etag)
	}

	old := do(t, "GET", "/banner.js?v=000000000000", nil)
	if got := old.Header.Get("Cache-Control"); got != "public, max-age=300" {
		t.Errorf("outdated ?v= Cache-Control = %q, want the short one", got)
	}
}

func TestHandlerConditional(t *testing.T) {
	t.Parallel()
	etag := do(t, "GET", "/banner.js", nil).Header.Get("ETag")
	gzTag := do(t, "GET", "/banner.js", map[string]string{"Accept-Encoding": "gzip"}).Header.Get("ETag")
	cases := []struct {
		name, inm, ae string
		want          int
	}{
		{"same tag", etag, "", 304},
		{"weak form of the tag", "W/" + etag, "", 304},
		{"in a list", `"x", ` + etag, "", 304},
		{"star", "*", "", 304},
		{"gzip tag for gzip", gzTag, "gzip", 304},
		{"identity tag for gzip", etag, "gzip", 200},
		{"other tag", `"nope"`, "", 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := do(t, "GET", "/banner.js", map[string]string{"If-None-Match": c.inm, "Accept-Encoding": c.ae})
			if res.StatusCode != c.want {
				t.Fatalf("status %d, want %d", res.StatusCode, c.want)
			}
			if c.want == 304 {
				n, _ := io.Copy(io.Discard, res.Body)
				if n != 0 || res.Header.Get("ETag") == "" || res.Header.Get("Cache-Control") == "" {
					t.Fatalf("304 with %d body bytes, ETag %q, Cache-Control %q", n, res.Header.Get("ETag"), res.Header.Get("Cache-Control"))
				}
			}
		})
	}
}

func TestHandlerPathsAndMethods(t *testing.T) {
	t.Parallel()
	cases := []struct {
		method, target string
		want           int
	}{
		{"GET", "/banner.js", 200},
		{"HEAD", "/banner.js", 200},
		{"GET", "/x/banner.js", 200},
		{"GET", "/banner-more.js", 200},
		{"GET", "/x/banner-more.js", 200},
		{"GET", "/x/banner-more.jsx", 404},
		{"POST", "/banner-more.js", 405},
		{"GET", "/banner.css", 404},
		{"GET", "/", 404},
		{"GET", "/banner.jsx", 404},
		{"POST", "/banner.js", 405},
	}
	for _, c := range cases {
		res := do(t, c.method, c.target, nil)
		if res.StatusCode != c.want {
			t.Errorf("%s %s: %d, want %d", c.method, c.target, res.StatusCode, c.want)
		}
		if c.method == "HEAD" {
			if n, _ := io.Copy(io.Discard, res.Body); n != 0 || res.Header.Get("Content-Length") == "" {
				t.Errorf("HEAD: %d body bytes, Content-Length %q", n, res.Header.Get("Content-Length"))
			}
		}
	}
}

func TestAcceptsGzip(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{
		"":                      false,
		"gzip":                  true,
		"GZIP":                  true,
		"deflate, gzip":         true,
		"gzip;q=0":              false,
		"gzip; q=0.0":           false,
		"gzip;q=0.5":            true,
		"*":                     true,
		"*;q=0":                 false,
		"br":                    false,
		"gzip;q=0, *":           false,
		"identity;q=1, *;q=0.1": true,
		"gzip;q=abc":            false,
		"x-gzip":                true,
	}
	for h, want := range cases {
		if got := AcceptsGzip(h); got != want {
			t.Errorf("AcceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
}

func BenchmarkHandler(b *testing.B) {
	h := Handler()
	req := httptest.NewRequest("GET", "/banner.js?v="+Version(), nil)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// TestSizeBudgetWithLanguage: the runtime and its styles with the texts of one language that
// the first view's configuration carries (the visitor's, the preferences' own left to the
// declaration: core.FirstViewTexts), for every built-in language, stay within budget.
func TestSizeBudgetWithLanguage(t *testing.T) {
	largest, lang := 0, ""
	for _, l := range i18n.Languages() {
		js, err := json.Marshal(map[string]any{"texts": banner.FirstViewTexts(banner.RuntimeTexts(l))})
		if err != nil {
			t.Fatal(err)
		}
		n := len(Gzip(append(append(Script(), "window.__consentdBoot="...), js...)))
		if n > largest {
			largest, lang = n, l
		}
	}
	t.Logf("runtime, styles and the texts of one language: at most %d bytes gzipped (%s), budget %d", largest, lang, maxGzipped)
	if largest > maxGzipped {
		t.Fatalf("runtime, styles and %s texts are %d bytes gzipped, budget %d", lang, largest, maxGzipped)
	}
}
