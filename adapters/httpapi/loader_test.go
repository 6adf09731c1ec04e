package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestLoader: the per-site loader inlines the site's configuration before the runtime, with a
// strong ETag, a short max-age with stale-while-revalidate, and Vary on the visitor's language.
func TestLoader(t *testing.T) {
	e := newEnv(t)
	id, pk := e.site()
	e.want(e.do("POST", "/api/v1/sites/"+id+"/services/import", map[string]any{"slug": "google-analytics"}), 201)
	r := e.want(e.raw("GET", "/api/v1/public/"+pk+"/loader.js", "", ""), 200)
	body := string(r.body)
	cfgJSON, rest, ok := strings.Cut(strings.TrimPrefix(body, "window.__consentdBoot="), ";\n")
	if !strings.HasPrefix(body, "window.__consentdBoot={") || !ok || rest != "/* runtime */" {
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
	var ga, gaPrefix bool
	for _, c := range cfg.CookieRules {
		ga = ga || (c.Category == "statistics" && c.Name == "_ga" && c.Match == "exact")
		gaPrefix = gaPrefix || (c.Category == "statistics" && c.Name == "_ga_" && c.Match == "prefix")
	}
	if !ga || !gaPrefix {
		t.Errorf("cookie rules lack _ga and _ga_*: %+v", cfg.CookieRules)
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
	e := newEnv(t)
	_, pk := e.site()
	req, _ := http.NewRequest("GET", e.srv.URL+"/api/v1/public/"+pk+"/loader.js", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("loader Content-Encoding %q, want gzip", res.Header.Get("Content-Encoding"))
	}
}

func TestBannerReopenAndCookieDomainOverHTTP(t *testing.T) {
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
}

// TestLoaderFirstView: the loader inlines the first view's configuration: services by slug and
// label, without their descriptions and cookies, and without the preferences' own texts, which
// come with the declaration; GET config still carries everything.
func TestLoaderFirstView(t *testing.T) {
	e := newEnv(t)
	id, pk := e.site()
	e.want(e.do("POST", "/api/v1/sites/"+id+"/services/import", map[string]any{"slug": "google-analytics"}), 201)
	body := string(e.want(e.raw("GET", "/api/v1/public/"+pk+"/loader.js", "", ""), 200).body)
	raw, _, ok := strings.Cut(strings.TrimPrefix(body, "window.__consentdBoot="), ";\n")
	if !ok {
		t.Fatalf("loader %.100q", body)
	}
	type cfg struct {
		Texts      map[string]string `json:"texts"`
		Categories []struct {
			Slug     string           `json:"slug"`
			Services []map[string]any `json:"services"`
		} `json:"categories"`
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
	bs, fs := services(boot), services(full)
	if len(bs) != len(fs) || len(bs) == 0 {
		t.Fatalf("%d services inlined, %d in config", len(bs), len(fs))
	}
	for i, s := range bs {
		if len(s) != 2 || s["slug"] != fs[i]["slug"] || s["label"] != fs[i]["label"] {
			t.Errorf("inlined service %v, want its slug and label alone", s)
		}
		if cookies, _ := fs[i]["cookies"].([]any); fs[i]["slug"] == "google-analytics" && len(cookies) == 0 {
			t.Errorf("config service %v without cookies", fs[i]["slug"])
		}
	}
	for _, k := range []string{"preferencesBody", "servicesLabel"} {
		if _, ok := boot.Texts[k]; ok || full.Texts[k] == "" {
			t.Errorf("text %s: in the loader %t, in config %q", k, ok, full.Texts[k])
		}
	}
	// The dialog's title and controls are labelled even when the declaration cannot be fetched.
	for _, k := range []string{"preferencesTitle", "saveLabel", "alwaysOnLabel"} {
		if boot.Texts[k] == "" {
			t.Errorf("text %s missing from the loader", k)
		}
	}
	if boot.Texts["acceptLabel"] == "" || boot.Texts["blockedText"] == "" {
		t.Errorf("the loader lacks first-view texts: %v", boot.Texts)
	}
}
