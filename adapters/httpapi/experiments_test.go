package httpapi_test

import (
	"strings"
	"testing"
)

// TestExperimentGuardrailAPI: a variant without "Reject all" on the first layer, in an
// experiment running where an opt-in rule in Europe applies, cannot start: 400 with the
// contract's error body naming the rule; the same variant starts in the United States, where
// no rule requires reject on the first layer. Another organization sees none of it.
func TestExperimentGuardrailAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	site, _ := e.site()
	e.want(e.do("PATCH", "/api/v1/sites/"+site+"/banner", map[string]any{"regionRules": []any{
		map[string]any{"regions": []string{"EU", "EEA", "GB", "CH"}, "defaultBehavior": "opt_in"},
		map[string]any{"regions": []string{"US-STATE-LAWS", "US"}, "defaultBehavior": "opt_out"},
	}}), 200)
	draft := func(regions ...string) map[string]any {
		return map[string]any{"name": "Reject in the preferences", "metric": "accept_all_rate", "regions": regions, "variants": []any{
			map[string]any{"key": "control", "weight": 50},
			map[string]any{"key": "second-layer", "weight": 50, "patch": map[string]any{"rejectOnFirstLayer": false}},
		}}
	}
	base := "/api/v1/sites/" + site + "/experiments"
	eu := e.want(e.do("POST", base, draft("EU")), 201).obj(t)["id"].(string)
	r := e.want(e.do("POST", base+"/"+eu+"/start", nil), 400, "validation_error")
	if !strings.Contains(string(r.body), "consent.region-europe-opt-in") {
		t.Fatalf("400 does not name the rule: %s", r.body)
	}
	us := e.want(e.do("POST", base, draft("US")), 201).obj(t)["id"].(string)
	got := e.want(e.do("POST", base+"/"+us+"/start", nil), 200).obj(t)
	if got["status"] != "running" {
		t.Fatalf("started: %v", got)
	}
	e.want(e.do("POST", base+"/"+eu+"/start", nil), 400, "validation_error")
	e.want(e.do("GET", base+"/"+us, nil, e.keyB), 404, "not_found")
	e.want(e.do("POST", base+"/"+us+"/stop", nil, e.keyB), 404, "not_found")
	e.want(e.do("POST", base+"/"+us+"/promote", map[string]any{"variant": "second-layer"}), 400, "validation_error")
	e.want(e.do("POST", base+"/"+us+"/stop", nil), 200)
	e.want(e.do("POST", base+"/"+us+"/stop", nil), 409, "conflict")
	if list := e.want(e.do("GET", base, nil), 200).arr(t); len(list) != 2 {
		t.Fatalf("list: %v", list)
	}
}
