package edgerewrite_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/consentd/consentd/adapters/edgerewrite"
)

// origin answers /page with the shop's page (Content-Length, ETag, public caching), /page.gz
// and /page.br with it compressed, /app.js with a script naming a held URL, and /json with
// JSON.
func origin() http.Handler {
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, body []byte, enc string) {
		w.Header().Set("Content-Type", "text/html; charset=windows-1252")
		w.Header().Set("Cache-Control", "public, max-age=300, s-maxage=600")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Thu, 03 Dec 2026 10:00:00 GMT")
		if enc != "" {
			w.Header().Set("Content-Encoding", enc)
		}
		w.Header().Set("Content-Length", itoa(len(body)))
		w.Write(body)
	}
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) { page(w, []byte(shopPage), "") })
	mux.HandleFunc("/page.gz", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		z.Write([]byte(shopPage))
		z.Close()
		page(w, b.Bytes(), "gzip")
	})
	mux.HandleFunc("/page.br", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		z := brotli.NewWriter(&b)
		z.Write([]byte(shopPage))
		z.Close()
		page(w, b.Bytes(), "br")
	})
	mux.HandleFunc("/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write([]byte(`load("<script src=https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ9></script>")`))
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"html": `<iframe src="https://www.youtube.com/embed/x">`})
	})
	return mux
}

func itoa(n int) string { return strconv.Itoa(n) }

func site(t *testing.T) *httptest.Server {
	t.Helper()
	m := shopRules(t).Compile()
	srv := httptest.NewServer(edgerewrite.Middleware(edgerewrite.Config{Rules: edgerewrite.Static{M: m}, CountryHeader: "CF-IPCountry"}, origin()))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, u string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	// The transport must not decompress for us: what the client receives is checked.
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

func TestMiddlewareHoldsForFrance(t *testing.T) {
	t.Parallel()
	srv := site(t)
	res, body := get(t, srv.URL+"/page", "CF-IPCountry", "FR")
	if !strings.Contains(body, `<script type="text/plain" data-category="statistics" data-consentd-service="google-analytics" async src="https://www.googletagmanager.com/gtag/js`) {
		t.Fatalf("gtag not held:\n%s", body)
	}
	if res.Header.Get("Content-Length") != "" || res.ContentLength != -1 {
		t.Errorf("stale Content-Length: %q", res.Header.Get("Content-Length"))
	}
	if res.Header.Get("ETag") != "" || res.Header.Get("Last-Modified") != "" {
		t.Errorf("validators of the origin's bytes kept: %v", res.Header)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "private, max-age=300" {
		t.Errorf("Cache-Control %q", cc)
	}
	if v := strings.Join(res.Header.Values("Vary"), ", "); v != "Cookie, Sec-GPC, CF-IPCountry" {
		t.Errorf("Vary %q", v)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=windows-1252" {
		t.Errorf("Content-Type %q", ct)
	}
}

func TestMiddlewareNoBannerVisitorGetsThePageByteForByte(t *testing.T) {
	t.Parallel()
	srv := site(t)
	accepted := "consentd=" + url.PathEscape(`{"v":1,"c":{"essential":true,"statistics":true,"marketing":true}}`)
	for name, h := range map[string][]string{
		"Japan":                {"CF-IPCountry", "JP"},
		"France, accepted all": {"CF-IPCountry", "FR", "Cookie", accepted},
	} {
		res, body := get(t, srv.URL+"/page", h...)
		if body != shopPage {
			t.Errorf("%s: page changed:\n%s", name, body)
		}
		if res.Header.Get("Content-Length") != itoa(len(shopPage)) || res.Header.Get("ETag") != `"v1"` {
			t.Errorf("%s: headers of the unchanged page changed: %v", name, res.Header)
		}
		// Another visitor's page differs: no shared cache may keep this one for them.
		if !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "Cookie") || !strings.HasPrefix(res.Header.Get("Cache-Control"), "private") {
			t.Errorf("%s: cacheable by shared caches: %v", name, res.Header)
		}
	}
}

func TestMiddlewareCompressedPages(t *testing.T) {
	t.Parallel()
	srv := site(t)
	for _, path := range []string{"/page.gz", "/page.br"} {
		res, body := get(t, srv.URL+path, "CF-IPCountry", "FR", "Accept-Encoding", "gzip, br")
		if res.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: Content-Encoding %q", path, res.Header.Get("Content-Encoding"))
		}
		z, err := gzip.NewReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(z)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(plain), `data-consentd-service="youtube"`) {
			t.Errorf("%s: iframe not held:\n%s", path, plain)
		}
		// A client that takes no gzip gets the page plain.
		res, body = get(t, srv.URL+path, "CF-IPCountry", "FR")
		if res.Header.Get("Content-Encoding") != "" || !strings.Contains(body, `data-consentd-service="youtube"`) {
			t.Errorf("%s without Accept-Encoding: %q\n%s", path, res.Header.Get("Content-Encoding"), body)
		}
	}
}

func TestMiddlewarePassesWhatIsNotHTML(t *testing.T) {
	t.Parallel()
	srv := site(t)
	for _, path := range []string{"/app.js", "/json"} {
		direct := httptest.NewRecorder()
		origin().ServeHTTP(direct, httptest.NewRequest("GET", path, nil))
		res, body := get(t, srv.URL+path, "CF-IPCountry", "FR")
		if body != direct.Body.String() {
			t.Errorf("%s changed:\n%s", path, body)
		}
		if res.Header.Get("Vary") != "" || res.Header.Get("Cache-Control") != "" {
			t.Errorf("%s: headers added: %v", path, res.Header)
		}
	}
	// Nor other methods.
	req, _ := http.NewRequest("HEAD", srv.URL+"/page", nil)
	req.Header.Set("CF-IPCountry", "FR")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Header.Get("ETag") != `"v1"` {
		t.Errorf("HEAD: %v", res.Header)
	}
}
