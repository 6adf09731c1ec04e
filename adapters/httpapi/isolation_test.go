package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOrganizationIsolation: a second organization's key gets 404 on every site-scoped
// endpoint of the first organization's site, exactly as for a site that does not exist, and
// never sees it in GET /sites.
func TestOrganizationIsolation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	cat := e.categoryID(id, "statistics")
	svc := e.want(e.do("POST", "/api/v1/sites/"+id+"/services/import", map[string]any{"slug": "hotjar"}), 201).obj(t)["service"].(map[string]any)["id"].(string)
	scan := e.want(e.do("POST", "/api/v1/sites/"+id+"/scan", nil), 201).obj(t)["id"].(string)
	s := "/api/v1/sites/" + id
	endpoints := []struct {
		method, path string
		body         any
	}{
		{"GET", s, nil},
		{"PATCH", s, map[string]any{"name": "stolen"}},
		{"DELETE", s, nil},
		{"GET", s + "/banner", nil},
		{"PATCH", s + "/banner", map[string]any{"template": "modal"}},
		{"GET", s + "/categories", nil},
		{"POST", s + "/categories", map[string]any{"name": "x"}},
		{"PATCH", s + "/categories/" + cat, map[string]any{"name": "x"}},
		{"DELETE", s + "/categories/" + cat, nil},
		{"GET", s + "/services", nil},
		{"POST", s + "/services", map[string]any{"slug": "x", "label": "x", "categorySlug": "marketing"}},
		{"POST", s + "/services/import", map[string]any{"slug": "mixpanel"}},
		{"DELETE", s + "/services/" + svc, nil},
		{"POST", s + "/scan", nil},
		{"GET", s + "/scans", nil},
		{"GET", s + "/scans/" + scan, nil},
		{"POST", s + "/scans/" + scan + "/configure", nil},
		{"GET", s + "/trackers", nil},
		{"PUT", s + "/script-blocking", map[string]any{"enabled": true}},
		{"GET", s + "/consent-records", nil},
		{"GET", s + "/analytics", nil},
		{"GET", s + "/analytics/export", nil},
		{"GET", s + "/setup-snippet", nil},
	}
	for _, ep := range endpoints {
		r := e.do(ep.method, ep.path, ep.body, e.keyB)
		if r.status != 404 {
			t.Errorf("%s %s as another organization: %d %s", ep.method, ep.path, r.status, r.body)
			continue
		}
		e.want(r, 404, "not_found")
		// and the same answer as for a site that does not exist
		missing := e.do(ep.method, strings.Replace(ep.path, id, "00000000-0000-7000-8000-000000000000", 1), ep.body, e.keyB)
		if missing.status != 404 || string(missing.body) != string(r.body) {
			t.Errorf("%s %s: other org's site answers %s, a missing site %s", ep.method, ep.path, r.body, missing.body)
		}
	}
	if list := e.want(e.do("GET", "/api/v1/sites", nil, e.keyB), 200).arr(t); len(list) != 0 {
		t.Fatalf("organization B sees %d sites", len(list))
	}
	// nothing of A changed
	got := e.want(e.do("GET", s, nil), 200).obj(t)
	if got["name"] != "Shop" {
		t.Fatal("B changed A's site")
	}
	var svcs []any
	if err := json.Unmarshal(e.want(e.do("GET", s+"/services", nil), 200).body, &svcs); err != nil || len(svcs) != 1 {
		t.Fatal("B changed A's services")
	}
}
