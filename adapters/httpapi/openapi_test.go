package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestOpenAPI: the served document is OpenAPI 3.1, describes every path of the API with the
// bearer scheme, and the docs page renders it.
func TestOpenAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	doc := e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).obj(t)
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi version %v", doc["openapi"])
	}
	schemes := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	b := schemes["bearer"].(map[string]any)
	if b["type"] != "http" || b["scheme"] != "bearer" {
		t.Fatalf("bearer scheme: %v", b)
	}
	if servers := doc["servers"].([]any); servers[0].(map[string]any)["url"] != "/api/v1" {
		t.Fatalf("servers: %v", servers)
	}
	paths := doc["paths"].(map[string]any)
	want := map[string][]string{
		"/sites":                               {"get", "post"},
		"/sites/{id}":                          {"get", "patch", "delete"},
		"/sites/{id}/banner":                   {"get", "patch"},
		"/sites/{id}/categories":               {"get", "post"},
		"/sites/{id}/categories/{catId}":       {"patch", "delete"},
		"/sites/{id}/services":                 {"get", "post"},
		"/sites/{id}/services/import":          {"post"},
		"/sites/{id}/services/{serviceId}":     {"delete"},
		"/library/services":                    {"get"},
		"/library/services/{slug}":             {"get"},
		"/sites/{id}/scan":                     {"post"},
		"/sites/{id}/scans":                    {"get"},
		"/sites/{id}/scans/{scanId}":           {"get"},
		"/sites/{id}/scans/{scanId}/configure": {"post"},
		"/sites/{id}/trackers":                 {"get"},
		"/sites/{id}/script-blocking":          {"put"},
		"/sites/{id}/consent-records":          {"get"},
		"/sites/{id}/setup-snippet":            {"get"},
		"/public/{projectKey}/config":          {"get"},
		"/public/{projectKey}/consent":         {"post"},
		"/public/{projectKey}/loader.js":       {"get"},
		"/public/{projectKey}/declaration":     {"get"},
		"/public/{projectKey}/cookies":         {"get"},
	}
	for p, methods := range want {
		item, ok := paths[p].(map[string]any)
		if !ok {
			t.Errorf("path %s missing", p)
			continue
		}
		for _, m := range methods {
			op, ok := item[m].(map[string]any)
			if !ok {
				t.Errorf("%s %s missing", m, p)
				continue
			}
			_, secured := op["security"]
			if public := strings.HasPrefix(p, "/public/"); secured == public {
				t.Errorf("%s %s: security %v", m, p, op["security"])
			}
		}
	}
	// the error body schema is ours, not huma's problem+json default
	if _, ok := doc["components"].(map[string]any)["schemas"].(map[string]any)["ErrorBody"]; !ok {
		t.Error("ErrorBody schema missing")
	}
	y := e.want(e.raw("GET", "/api/v1/openapi.yaml", "", ""), 200)
	if !strings.Contains(string(y.body), "openapi: 3.1.0") || !strings.Contains(string(y.body), "/sites/{id}/banner:") {
		t.Fatalf("yaml: %.100s", y.body)
	}
	docs := e.want(e.raw("GET", "/api/v1/docs", "", ""), 200)
	if !strings.Contains(docs.header.Get("Content-Type"), "text/html") || !strings.Contains(string(docs.body), "/api/v1/openapi") {
		t.Fatalf("docs page: %s %.300s", docs.header.Get("Content-Type"), docs.body)
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		e.want(e.raw("GET", p, "", ""), 200)
	}
}

// TestOpenAPIValidates loads the served document with kin-openapi and validates it. kin-openapi
// reads OpenAPI 3.0, so it checks huma's 3.0 rendering of the same operations and schemas
// (/api/v1/openapi-3.0.json); the 3.1 document differs only in how nullability is written.
func TestOpenAPIValidates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	raw := e.want(e.raw("GET", "/api/v1/openapi-3.0.json", "", ""), 200).body
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("invalid OpenAPI document: %v", err)
	}
}
