package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestLoader: the per-site loader inlines the site's configuration before the runtime, with a
// strong ETag, a short max-age with stale-while-revalidate, and Vary on the visitor's language.
// compileHint is the loader's first line (loader.go).
const compileHint = "//# allFunctionsCalledOnLoad\n"

func TestLoader(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	e.want(e.do("POST", "/api/v1/sites/"+id+"/services/import", map[string]any{"slug": "google-analytics"}), 201)
	r := e.want(e.raw("GET", "/api/v1/public/"+pk+"/loader.js", "", ""), 200)
	body := string(r.body)
	cfgJSON, rest, ok := strings.Cut(strings.TrimPrefix(body, compileHint+"window.__consentdBoot="), ";\n")
	if !strings.HasPrefix(body, compileHint+"window.__consentdBoot={") || !ok || rest != "/* runtime */" {
		t.Fatalf("loader body %.200s", body)
	}
	var cfg struct {
		ProjectKey  string `json:"projectKey"`
		Lang        string `json:"lang"`
		CookieRules []struct{ Category, Name, Match string }
	}
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil || cfg.ProjectKey != pk || cfg.Lang != "en" {
		t.Fatalf("inlined config %v: %.300s", err, cfgJSON)
	}
	// The cookie rules, which only a withdrawal needs, are not in the first view: the runtime
	// fetches them with the full configuration.
	if strings.Contains(cfgJSON, `"cookieRules"`) {
		t.Errorf("the loader inlines the cookie rules: %.300s", cfgJSON)
	}
	if err := json.Unmarshal(e.want(e.raw("GET", "/api/v1/public/"+pk+"/config", "", ""), 200).body, &cfg); err != nil {
		t.Fatal(err)
	}
	var ga, gaPrefix bool
	for _, c := range cfg.CookieRules {
		ga = ga || (c.Category == "statistics" && c.Name == "_ga" && c.Match == "exact")
		gaPrefix = gaPrefix || (c.Category == "statistics" && c.Name == "_ga_" && c.Match == "prefix")
	}
	if !ga || !gaPrefix {
		t.Errorf("config's cookie rules lack _ga and _ga_*: %+v", cfg.CookieRules)
	}
	for k, want := range map[string]string{
		"Content-Type":                "text/javascript; charset=utf-8",
		"Cache-Control":               "public, max-age=60, stale-while-revalidate=3600",
		"Access-Control-Allow-Origin": "*",
	} {
		if got := r.header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if v := r.header.Get("Vary"); !strings.Contains(v, "Accept-Language") {
		t.Errorf("Vary = %q", v)
	}
	etag := r.header.Get("ETag")
	e.want(e.raw("GET", "/api/v1/public/"+pk+"/loader.js", "", "", "If-None-Match", etag), 304)
	e.want(e.raw("GET", "/api/v1/public/pk_nope_nope_nope/loader.js", "", ""), 404, "not_found")
}

func TestDeclarationEndpoints(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	e.want(e.do("POST", "/api/v1/sites/"+id+"/services/import", map[string]any{"slug": "google-analytics"}), 201)
	d := e.want(e.raw("GET", "/api/v1/public/"+pk+"/declaration", "", ""), 200).obj(t)
	requireKeys(t, d, "projectKey", "siteName", "siteUrl", "lang", "texts", "updatedAt", "categories")
	js, _ := json.Marshal(d["categories"])
	for _, want := range []string{`"slug":"statistics"`, `"label":"Google Analytics"`, `"name":"_ga"`, `"privacyPolicyUrl":"https://policies.google.com/privacy"`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("declaration lacks %s: %s", want, js)
		}
	}
	r := e.want(e.raw("GET", "/api/v1/public/"+pk+"/cookies", "", ""), 200)
	html := string(r.body)
	if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
	for _, want := range []string{`<html lang="en">`, "Google Analytics", "<code>_ga</code>", `src="loader.js?lang=en"`, "data-consentd-choice"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	e.want(e.raw("GET", "/api/v1/public/pk_nope_nope_nope/cookies", "", ""), 404, "not_found")
}

func TestPublicLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, pk := e.site()
	for _, c := range []struct{ q, al, want string }{
		{"", "", "en"},
		{"", "de-AT,de;q=0.9,en;q=0.5", "de"},
		{"?lang=fr-BE", "de", "fr"},
		{"?lang=xx", "pl;q=0.4, sv", "sv"},
	} {
		for _, path := range []string{"/config", "/declaration"} {
			got := e.want(e.raw("GET", "/api/v1/public/"+pk+path+c.q, "", "", "Accept-Language", c.al), 200).obj(t)
			if got["lang"] != c.want {
				t.Errorf("%s%s with Accept-Language %q: lang %v, want %s", path, c.q, c.al, got["lang"], c.want)
			}
		}
	}
	e.want(e.raw("GET", "/api/v1/public/"+pk+"/declaration?lang="+strings.Repeat("x", 40), "", ""), 400, "validation_error")
}

func TestLoaderCompressed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, pk := e.site()
	get := func(hdr ...string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", e.srv.URL+"/api/v1/public/"+pk+"/loader.js", nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
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
	plain, body := get()
	res, gz := get("Accept-Encoding", "gzip")
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("loader Content-Encoding %q, want gzip", res.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	unz, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unz, body) {
		t.Fatalf("the gzipped loader is not the loader: %v", err)
	}
	// Compressed at the best level, not the fastest the rest of the API uses.
	var fast bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&fast, gzip.BestSpeed)
	zw.Write(body)
	zw.Close()
	if len(gz) >= fast.Len() {
		t.Errorf("gzipped loader %d bytes, the fastest level gives %d", len(gz), fast.Len())
	}
	// Its own validator: each representation revalidates with its own.
	etag := res.Header.Get("ETag")
	if etag == "" || etag == plain.Header.Get("ETag") || !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("gzip ETag %q (identity %q), Vary %q", etag, plain.Header.Get("ETag"), res.Header.Get("Vary"))
	}
	if r, _ := get("Accept-Encoding", "gzip", "If-None-Match", etag); r.StatusCode != 304 {
		t.Errorf("If-None-Match with the gzip ETag: %d", r.StatusCode)
	}
	if r, _ := get("Accept-Encoding", "gzip", "If-None-Match", plain.Header.Get("ETag")); r.StatusCode != 200 {
		t.Errorf("If-None-Match with the identity ETag for gzip: %d", r.StatusCode)
	}
}

func TestBannerReopenAndCookieDomainOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	b := e.want(e.do("GET", "/api/v1/sites/"+id+"/banner", nil), 200).obj(t)
	requireKeys(t, b, "reopenButton", "reopenPosition", "reopenLabel", "cookieDomain")
	if b["reopenButton"] != true || b["reopenPosition"] != "bottom_left" || b["reopenLabel"] != nil || b["cookieDomain"] != nil {
		t.Errorf("defaults %v", b)
	}
	b = e.want(e.do("PATCH", "/api/v1/sites/"+id+"/banner", map[string]any{"reopenButton": false, "reopenPosition": "top_left",
		"reopenLabel": "Cookies", "textOverrides": map[string]any{"reopenLabel": "Settings", "declarationTitle": "Cookies used"}}), 200).obj(t)
	if b["reopenButton"] != false || b["reopenPosition"] != "top_left" || b["reopenLabel"] != "Cookies" {
		t.Errorf("patched %v", b)
	}
	for _, body := range []string{`{"reopenPosition":"center"}`, `{"reopenLabel":""}`, `{"reopenLabel":"` + strings.Repeat("x", 61) + `"}`,
		`{"cookieDomain":"other.example"}`, `{"cookieDomain":"com"}`, `{"textOverrides":{"reopenLabelX":"x"}}`, `{"reopenButton":"yes"}`} {
		e.want(e.raw("PATCH", "/api/v1/sites/"+id+"/banner", e.keyA, body), 400, "validation_error")
	}
}

func TestCookiePageInTheVisitorsLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, pk := e.site()
	html := string(e.want(e.raw("GET", "/api/v1/public/"+pk+"/cookies", "", "", "Accept-Language", "de-DE,de;q=0.9"), 200).body)
	for _, want := range []string{`<html lang="de">`, "Cookie-Erklärung", "Statistik", `src="loader.js?lang=de"`} {
		if !strings.Contains(html, want) {
			t.Errorf("German cookie page lacks %s", want)
		}
	}
	html = string(e.want(e.raw("GET", "/api/v1/public/"+pk+"/cookies?lang=fr", "", "", "Accept-Language", "de"), 200).body)
	if !strings.Contains(html, `<html lang="fr">`) {
		t.Error("?lang= does not win over Accept-Language")
	}
	// Arabic is laid out right to left (#45); Traditional Chinese is found from zh-TW.
	html = string(e.want(e.raw("GET", "/api/v1/public/"+pk+"/cookies", "", "", "Accept-Language", "ar-EG,ar;q=0.9"), 200).body)
	if !strings.Contains(html, `<html lang="ar" dir="rtl">`) || !strings.Contains(html, "بيان ملفات تعريف الارتباط") {
		t.Error("the Arabic cookie page is not in Arabic, right to left")
	}
	html = string(e.want(e.raw("GET", "/api/v1/public/"+pk+"/cookies", "", "", "Accept-Language", "zh-TW"), 200).body)
	if !strings.Contains(html, `<html lang="zh-hant">`) || !strings.Contains(html, "Cookie 聲明") {
		t.Error("a zh-TW visitor does not get the Traditional Chinese cookie page")
	}
}

// TestLoaderFirstView: the loader inlines the first view's configuration (#43): its categories
// without their services (the declaration names them, with their descriptions and cookies),
// its blocking rules in the compact form, without the texts only the preferences and the
// blocked iframe's placeholder show, which come with the declaration (and the full
// configuration); GET config still carries everything.
func TestLoaderFirstView(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	e.want(e.do("POST", "/api/v1/sites/"+id+"/services/import", map[string]any{"slug": "google-analytics"}), 201)
	e.want(e.do("POST", "/api/v1/sites/"+id+"/services/import", map[string]any{"slug": "youtube"}), 201)
	body := string(e.want(e.raw("GET", "/api/v1/public/"+pk+"/loader.js", "", ""), 200).body)
	raw, _, ok := strings.Cut(strings.TrimPrefix(body, compileHint+"window.__consentdBoot="), ";\n")
	if !ok {
		t.Fatalf("loader %.100q", body)
	}
	type cfg struct {
		Texts      map[string]string `json:"texts"`
		Categories []struct {
			Slug     string           `json:"slug"`
			Services []map[string]any `json:"services"`
		} `json:"categories"`
		BlockingRules struct {
			Rules []json.RawMessage `json:"rules"`
		} `json:"blockingRules"`
	}
	var boot, full cfg
	if err := json.Unmarshal([]byte(raw), &boot); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(e.want(e.raw("GET", "/api/v1/public/"+pk+"/config", "", ""), 200).body, &full); err != nil {
		t.Fatal(err)
	}
	services := func(c cfg) (out []map[string]any) {
		for _, k := range c.Categories {
			out = append(out, k.Services...)
		}
		return out
	}
	if bs, fs := services(boot), services(full); len(bs) != 0 || len(fs) != 2 || len(boot.Categories) != len(full.Categories) {
		t.Fatalf("%d services inlined (want none), %d in config", len(bs), len(fs))
	}
	for _, s := range services(full) {
		if cookies, _ := s["cookies"].([]any); s["slug"] == "google-analytics" && len(cookies) == 0 {
			t.Errorf("config service %v without cookies", s["slug"])
		}
	}
	// The rules: [service, category, "patterns"] in the loader, objects in the config, as many.
	var youtube [3]string
	for _, r := range boot.BlockingRules.Rules {
		var x [3]string
		if err := json.Unmarshal(r, &x); err != nil {
			t.Fatalf("inlined rule %s: %v", r, err)
		}
		if x[0] == "youtube" {
			youtube = x
		}
	}
	if len(boot.BlockingRules.Rules) != len(full.BlockingRules.Rules) || youtube[1] != "marketing" || !strings.Contains(youtube[2], "www.youtube.com/embed") {
		t.Errorf("inlined rules %d (youtube %q), config's %d", len(boot.BlockingRules.Rules), youtube, len(full.BlockingRules.Rules))
	}
	for _, k := range []string{"preferencesBody", "servicesLabel", "preferencesTitle", "alwaysOnLabel", "blockedText", "allowLabel"} {
		if _, ok := boot.Texts[k]; ok || full.Texts[k] == "" {
			t.Errorf("text %s: in the loader %t, in config %q", k, ok, full.Texts[k])
		}
	}
	// What shows without waiting for the declaration: the banner, the reopen button and the
	// TCF dialog's save button.
	for _, k := range []string{"acceptLabel", "reopenLabel", "saveLabel"} {
		if boot.Texts[k] == "" {
			t.Errorf("text %s missing from the loader", k)
		}
	}
}
