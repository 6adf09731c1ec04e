package httpapi_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/consentd/consentd/core/event"
)

// ruleKeywords are the schema keywords that state a rule about a string's form.
var ruleKeywords = []string{"pattern", "format", "enum", "const"}

// TestSchemaAgreement probes every string field of every request body, and every string query
// and path parameter, of the served OpenAPI document whose schema states no rule about the
// value's form (pattern, format, enum): it sends plain text there. A 400 naming the field
// means the server applies a rule the document omits, so that generated clients and
// validators accept what the server refuses; the few refusals that depend on other data, not
// on the value's form, are listed in semanticRules with the reason.
func TestSchemaAgreement(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	valid := map[string]string{"id": id, "projectKey": pk, "catId": e.categoryID(id, "marketing"), "slug": "hotjar"}
	var doc map[string]any
	if err := json.Unmarshal(e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).body, &doc); err != nil {
		t.Fatal(err)
	}
	paths := doc["paths"].(map[string]any)
	names := make([]string, 0, len(paths))
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	probed := 0
	seen := map[string]bool{}
	for _, p := range names {
		for method, o := range paths[p].(map[string]any) {
			op, ok := o.(map[string]any)
			if !ok {
				continue
			}
			method = strings.ToUpper(method)
			key := ""
			if _, secured := op["security"]; secured {
				key = e.keyA
			}
			u := p
			for _, prm := range asSlice(op["parameters"]) {
				prm := prm.(map[string]any)
				if prm["in"] == "path" {
					v := valid[prm["name"].(string)]
					if v == "" {
						v = "x"
					}
					u = strings.ReplaceAll(u, "{"+prm["name"].(string)+"}", v)
				}
			}
			// Parameters: plain text in each query and path parameter with no rule of form.
			for _, prm := range asSlice(op["parameters"]) {
				prm := prm.(map[string]any)
				name, in := prm["name"].(string), prm["in"]
				schema, _ := prm["schema"].(map[string]any)
				if (in != "query" && in != "path") || schema == nil || !hasType(schema, "string") || ruled(schema) {
					continue
				}
				where := method + " " + p + " " + in.(string) + ":" + name
				target := "/api/v1" + u
				if in == "path" {
					target = "/api/v1" + strings.ReplaceAll(p, "{"+name+"}", "Plain%20text%201")
					for _, other := range asSlice(op["parameters"]) {
						o := other.(map[string]any)
						if n := o["name"].(string); o["in"] == "path" && n != name {
							v := valid[n]
							if v == "" {
								v = "x"
							}
							target = strings.ReplaceAll(target, "{"+n+"}", v)
						}
					}
				} else {
					target += "?" + name + "=Plain%20text%201"
				}
				body := ""
				if _, ok := op["requestBody"]; ok {
					body = mustJSON(baseBodies[method+" "+p])
					if baseBodies[method+" "+p] == nil {
						body = "{}"
					}
				}
				r := e.raw(method, target, key, body)
				probed++
				if r.status == 400 && strings.Contains(string(r.body), name+":") {
					if why, ok := semanticRules[where]; ok {
						seen[where] = true
						t.Logf("%s: %s (%s)", where, r.body, why)
						continue
					}
					t.Errorf("%s: the server refuses plain text the schema allows: %s", where, r.body)
				}
			}
			rb, ok := op["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			content, _ := rb["content"].(map[string]any)["application/json"].(map[string]any)
			if content == nil {
				continue
			}
			for _, l := range freeLeaves(doc, content["schema"].(map[string]any), 0) {
				where := method + " " + p + " " + l.path
				body := merge(baseBodies[method+" "+p], l.build("Plain text 1"))
				r := e.raw(method, "/api/v1"+u, key, mustJSON(body))
				probed++
				if strings.Contains(string(r.body), "expected required property") {
					t.Errorf("%s: the probe lacks a required field (add a valid body to baseBodies): %s", where, r.body)
					continue
				}
				if r.status == 400 && strings.Contains(string(r.body), l.path+":") {
					if why, ok := semanticRules[where]; ok {
						seen[where] = true
						t.Logf("%s: %s (%s)", where, r.body, why)
						continue
					}
					t.Errorf("%s: the server refuses plain text the schema allows: %s", where, r.body)
				}
			}
		}
	}
	if probed < 50 {
		t.Fatalf("only %d fields probed: the walk of the document found too little", probed)
	}
	for where := range semanticRules {
		if !seen[where] {
			t.Errorf("%s is listed as refused for a reason of its own, but accepts plain text: remove it from semanticRules", where)
		}
	}
}

// semanticRules are the fields whose refusal of plain text depends on other data than the
// value's form, which no schema can state.
var semanticRules = map[string]string{
	"GET /audit-log query:cursor":                   "an opaque token of the listing",
	"GET /sites/{id}/consent-records query:cursor":  "an opaque token of the listing",
	"POST /sites/{id}/services categorySlug":        "must name a category of the site",
	"POST /sites/{id}/services/import categorySlug": "must name a category of the site",
}

// baseBodies are valid bodies of the operations with required fields, into which each probe
// is merged, so that the answer is about the probed field.
var baseBodies = map[string]any{
	"POST /sites":                       map[string]any{"name": "Probe", "url": "https://probe.example"},
	"POST /public/{projectKey}/consent": map[string]any{"categories": map[string]any{}, "consentVersion": 1},
	"POST /public/{projectKey}/events":  map[string]any{"consentVersion": 1, "events": []any{map[string]any{"type": "shown"}}},
	"POST /sites/{id}/categories":       map[string]any{"name": "Probe"},
	"POST /sites/{id}/services": map[string]any{"slug": "probe", "label": "Probe", "categorySlug": "marketing",
		"cookies": []any{map[string]any{"name": "probe", "duration": "1 day"}}},
	"POST /sites/{id}/services/import": map[string]any{"slug": "hotjar", "categorySlug": "marketing"},
	"POST /webhooks":                   map[string]any{"url": "https://hooks.example/in", "events": []any{event.EventTypes()[0]}},
	"POST /sites/{id}/experiments": map[string]any{"name": "Wording", "metric": "consent_rate", "variants": []any{
		map[string]any{"key": "a", "weight": 50}, map[string]any{"key": "b", "weight": 50, "patch": map[string]any{"textOverrides": map[string]any{"headline": "Your choice"}}}}},
	"POST /sites/{id}/experiments/{experimentId}/promote": map[string]any{"variant": "b"},
	"PATCH /sites/{id}/banner":                            map[string]any{"regionRules": []any{map[string]any{"regions": []any{"FR"}, "defaultBehavior": "opt_in"}}},
	"PUT /sso": map[string]any{"issuer": "https://login.probe.example", "clientId": "probe", "clientSecret": "probe",
		"allowedDomains": []any{"probe.example"}, "defaultRole": "viewer"},
}

// merge returns base with over laid on it (objects merged key by key, anything else replaced).
func merge(base, over any) any {
	if bl, ok := base.([]any); ok {
		if ol, ok := over.([]any); ok && len(bl) > 0 && len(ol) > 0 {
			return append([]any{merge(bl[0], ol[0])}, ol[1:]...)
		}
	}
	b, ok1 := base.(map[string]any)
	o, ok2 := over.(map[string]any)
	if !ok1 || !ok2 {
		if over == nil {
			return base
		}
		return over
	}
	out := map[string]any{}
	for k, v := range b {
		out[k] = v
	}
	for k, v := range o {
		out[k] = merge(b[k], v)
	}
	return out
}

// ruled reports whether a string schema states a rule about the value's form.
func ruled(schema map[string]any) bool {
	for _, k := range ruleKeywords {
		if _, ok := schema[k]; ok {
			return true
		}
	}
	return false
}

// freeLeaves are the string fields of schema that state no rule about the value's form.
func freeLeaves(doc, schema map[string]any, depth int) []leaf {
	return leavesWhere(doc, schema, depth, func(s map[string]any) bool { return !ruled(s) })
}
