package httpapi_test

import (
	"encoding/json"
	"testing"

	"github.com/consentd/consentd/core/edge"
)

// TestEdgeRuleSet: the rule set is served as versioned, cacheable data with an ETag, changes
// with the site's services, and a site that does not exist is a 404.
func TestEdgeRuleSet(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	r := e.want(e.raw("GET", "/api/v1/public/"+pk+"/edge", "", ""), 200)
	etag := r.header.Get("ETag")
	if etag == "" || r.header.Get("Cache-Control") == "" {
		t.Fatalf("headers: %v", r.header)
	}
	var rs edge.RuleSet
	if err := json.Unmarshal([]byte(r.body), &rs); err != nil {
		t.Fatal(err)
	}
	if rs.Format != edge.Format || rs.ProjectKey != pk || rs.Cookie.Name != edge.CookieName || len(rs.Policies) == 0 || len(rs.Places) < 200 {
		t.Fatalf("rule set: %+v", rs)
	}
	e.want(e.raw("GET", "/api/v1/public/"+pk+"/edge", "", "", "If-None-Match", etag), 304)
	e.want(e.do("POST", "/api/v1/sites/"+id+"/services/import", map[string]any{"slug": "mixpanel"}), 201)
	r = e.want(e.raw("GET", "/api/v1/public/"+pk+"/edge", "", "", "If-None-Match", etag), 200)
	if r.header.Get("ETag") == etag {
		t.Fatal("the ETag did not change with the rules")
	}
	e.want(e.raw("GET", "/api/v1/public/pk_nope/edge", "", ""), 404, "not_found")
}
