package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/consentd/consentd/core"
)

// notDescribed are served patterns that the OpenAPI document cannot hold as operations: the
// document itself and its renderings, the catch-all 404, and the operational endpoints, which
// live outside the API's base URL (/api/v1) and are not part of the contract.
var notDescribed = map[string]bool{
	"/": true, "GET /healthz": true, "GET /readyz": true, "GET /metrics": true,
	"GET " + core.APIPrefix + "/docs": true, "GET " + core.APIPrefix + "/docs/redoc.standalone.js": true,
}

// TestServedRoutesAreDocumented: every route the handler serves under the API prefix is an
// operation of the served OpenAPI document, and every operation of the document is served.
func TestServedRoutesAreDocumented(t *testing.T) {
	h, routes := newHandler(Config{
		Logger:        slog.New(slog.DiscardHandler),
		Runtime:       http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}),
		RuntimeScript: []byte("/* runtime */"),
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", core.APIPrefix+"/openapi.json", nil))
	if rec.Code != 200 {
		t.Fatalf("openapi.json: %d", rec.Code)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for p, item := range doc.Paths {
		for m := range item {
			documented[strings.ToUpper(m)+" "+core.APIPrefix+p] = true
		}
	}
	served := map[string]bool{}
	for _, r := range routes() {
		if notDescribed[r] || isDocumentRoute(r) {
			continue
		}
		served[r] = true
		if !documented[r] {
			t.Errorf("served but not in openapi.json: %s", r)
		}
	}
	for r := range documented {
		if !served[r] {
			t.Errorf("in openapi.json but not served: %s", r)
		}
	}
	for _, r := range []string{core.PublicRuntime, core.PublicLoader, core.PublicConfigPath, core.PublicDeclaration, core.PublicCookiesPage} {
		if !documented["GET "+core.APIPrefix+core.PublicRoute(r)] {
			t.Errorf("GET %s is not documented", core.PublicRoute(r))
		}
	}
	if !documented["POST "+core.APIPrefix+core.PublicRoute(core.PublicConsentPath)] {
		t.Errorf("POST %s is not documented", core.PublicRoute(core.PublicConsentPath))
	}
	// the added operation keeps the document valid
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", core.APIPrefix+"/openapi-3.0.json", nil))
	d, err := openapi3.NewLoader().LoadFromData(rec.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(context.Background()); err != nil {
		t.Fatalf("invalid OpenAPI document: %v", err)
	}
}

// isDocumentRoute tells the routes huma adds for the document itself (openapi.json, .yaml, the
// 3.0 renderings, the docs page and the schemas).
func isDocumentRoute(r string) bool {
	_, path, _ := strings.Cut(r, " ")
	rest, ok := strings.CutPrefix(path, core.APIPrefix+"/")
	return ok && (strings.HasPrefix(rest, "openapi") || rest == "docs" || strings.HasPrefix(rest, "schemas/"))
}

// TestDotSegment: dotSegment(p, seg) is strings.Contains(p+"/", seg+"/"), which cleanPaths
// asked before.
func TestDotSegment(t *testing.T) {
	for _, p := range []string{"", "/", ".", "/.", "/..", "/a/.", "/a/..", "/a/./b", "/a/../b", "/a/.b", "/a/..b", "/a.", "/a..", "/.well-known/x", "/a/b/", "/...", "/a/.../b"} {
		for _, seg := range []string{"/.", "/.."} {
			if got, want := dotSegment(p, seg), strings.Contains(p+"/", seg+"/"); got != want {
				t.Errorf("dotSegment(%q, %q) = %v, want %v", p, seg, got, want)
			}
		}
	}
}

// TestMethodLabelBounded: invented methods share one metric label, so requests cannot grow the
// series without bound.
func TestMethodLabelBounded(t *testing.T) {
	for _, m := range []string{"GET", "POST", "PATCH", "DELETE", "OPTIONS"} {
		if got := methodLabel(m); got != m {
			t.Errorf("methodLabel(%q) = %q", m, got)
		}
	}
	for _, m := range []string{"FOO", "get", "X-1234", ""} {
		if got := methodLabel(m); got != "OTHER" {
			t.Errorf("methodLabel(%q) = %q, want OTHER", m, got)
		}
	}
}
