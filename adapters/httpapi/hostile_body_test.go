package httpapi_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// bodyField is a field of a request body schema at any depth: its JSON path, its schema
// (resolved), and a body holding v there.
type bodyField struct {
	path   string
	schema map[string]any
	build  func(v any) any
}

// bodyFields lists every field of schema (an OpenAPI schema as decoded JSON), whatever its
// type: the value itself (path ""), each property, map values (under the key "de") and array
// items (index 0), nested objects and arrays of objects included.
func bodyFields(doc, schema map[string]any, depth int) []bodyField {
	if schema == nil || depth > 8 {
		return nil
	}
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		schema, _ = doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
		return bodyFields(doc, schema, depth+1)
	}
	out := []bodyField{{"", schema, func(v any) any { return v }}}
	if props, ok := schema["properties"].(map[string]any); ok {
		for name, p := range props {
			for _, f := range bodyFields(doc, p.(map[string]any), depth+1) {
				out = append(out, bodyField{join(name, f.path), f.schema, func(v any) any { return map[string]any{name: f.build(v)} }})
			}
		}
	}
	if ap, ok := schema["additionalProperties"].(map[string]any); ok {
		for _, f := range bodyFields(doc, ap, depth+1) {
			out = append(out, bodyField{join("de", f.path), f.schema, func(v any) any { return map[string]any{"de": f.build(v)} }})
		}
	}
	if items, ok := schema["items"].(map[string]any); ok {
		for _, f := range bodyFields(doc, items, depth+1) {
			out = append(out, bodyField{join("[0]", f.path), f.schema, func(v any) any { return []any{f.build(v)} }})
		}
	}
	return out
}

// hostileValues are put in every field of every request body: every JSON type where another
// is expected (objects, arrays, arrays of objects and of arrays, nulls), numbers past every
// integer and float range, fractions, negatives, and strings empty and long.
var hostileValues = []any{
	nil,
	map[string]any{},
	map[string]any{"a": map[string]any{"b": []any{}}},
	[]any{},
	[]any{nil},
	[]any{map[string]any{}},
	[]any{map[string]any{}, map[string]any{}},
	[]any{map[string]any{"k": "v"}, map[string]any{"k": "w"}},
	[]any{[]any{}},
	[]any{[]any{"a"}, []any{"a"}},
	[]any{"a", "a"},
	[]any{1, 1.5},
	true,
	"",
	"x",
	strings.Repeat("é", 10000),
	json.Number("0"),
	json.Number("-1"),
	json.Number("0.5"),
	json.Number("1e308"),
	json.Number("-1e308"),
	json.Number("1e400"),
	json.Number("9223372036854775807"),
	json.Number("9223372036854775808"),
	json.Number("-9223372036854775809"),
	json.Number("18446744073709551616"),
	json.Number("123456789012345678901234567890e-5"),
}

// bodyOp is an operation of the served document that takes a JSON body.
type bodyOp struct {
	method, path, target, key string
	schema                    map[string]any
}

// bodyOps lists the operations of doc that take a JSON body, each with a target on the
// fixture's real resources (targets maps a path to its URL), so that a body the schema
// accepts reaches core's validation.
func bodyOps(t *testing.T, e *env, doc map[string]any, targets map[string]string) []bodyOp {
	t.Helper()
	var ops []bodyOp
	for p, item := range doc["paths"].(map[string]any) {
		for method, o := range item.(map[string]any) {
			op, ok := o.(map[string]any)
			if !ok {
				continue
			}
			rb, ok := op["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			content, _ := rb["content"].(map[string]any)["application/json"].(map[string]any)
			if content == nil {
				t.Errorf("%s %s: a body without application/json", method, p)
				continue
			}
			target, ok := targets[p]
			if !ok {
				t.Errorf("%s %s: no target in the fixture: add one", strings.ToUpper(method), p)
				continue
			}
			key := ""
			if _, secured := op["security"]; secured {
				key = e.keyA
			}
			ops = append(ops, bodyOp{strings.ToUpper(method), p, target, key, content["schema"].(map[string]any)})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].path+ops[i].method < ops[j].path+ops[j].method })
	return ops
}

// hostileFixture creates the resources the body operations act on and returns each body
// operation's path with its URL.
func hostileFixture(t *testing.T, e *env) map[string]string {
	t.Helper()
	id, pk := e.site()
	cat := e.categoryID(id, "marketing")
	hook := e.want(e.do("POST", "/api/v1/webhooks", baseBodies["POST /webhooks"]), 201).obj(t)["id"].(string)
	key := e.want(e.do("POST", "/api/v1/api-keys", map[string]any{"name": "rotated", "role": "viewer"}), 201).obj(t)["id"].(string)
	xp := e.want(e.do("POST", "/api/v1/sites/"+id+"/experiments", baseBodies["POST /sites/{id}/experiments"]), 201).obj(t)["id"].(string)
	return map[string]string{
		"/sites/{id}/experiments":                        "/api/v1/sites/" + id + "/experiments",
		"/sites/{id}/experiments/{experimentId}/promote": "/api/v1/sites/" + id + "/experiments/" + xp + "/promote",
		"/api-keys":                      "/api/v1/api-keys",
		"/api-keys/{id}/rotate":          "/api/v1/api-keys/" + key + "/rotate",
		"/public/{projectKey}/consent":   "/api/v1/public/" + pk + "/consent",
		"/public/{projectKey}/events":    "/api/v1/public/" + pk + "/events",
		"/sites":                         "/api/v1/sites",
		"/sites/{id}":                    "/api/v1/sites/" + id,
		"/sites/{id}/banner":             "/api/v1/sites/" + id + "/banner",
		"/sites/{id}/categories":         "/api/v1/sites/" + id + "/categories",
		"/sites/{id}/categories/{catId}": "/api/v1/sites/" + id + "/categories/" + cat,
		"/sites/{id}/scan":               "/api/v1/sites/" + id + "/scan",
		"/sites/{id}/script-blocking":    "/api/v1/sites/" + id + "/script-blocking",
		"/sites/{id}/services":           "/api/v1/sites/" + id + "/services",
		"/sites/{id}/services/import":    "/api/v1/sites/" + id + "/services/import",
		"/sso":                           "/api/v1/sso",
		"/webhooks":                      "/api/v1/webhooks",
		"/webhooks/{id}":                 "/api/v1/webhooks/" + hook,
	}
}

// contractError reports whether body is the contract's error body {error:{code,message}}.
func contractError(body []byte) bool {
	var eb struct {
		Error *struct {
			Code    *string `json:"code"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	return json.Unmarshal(body, &eb) == nil && eb.Error != nil && eb.Error.Code != nil && eb.Error.Message != nil && *eb.Error.Message != ""
}

// TestHostileBodies: every field of every request body of the served document (nested objects
// and arrays of objects included), alone and laid on a valid body, given every value of
// hostileValues, answers below 500, with the contract's error body when it refuses, and logs
// no ERROR. No request body makes the server fail.
func TestHostileBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var doc map[string]any
	if err := json.Unmarshal(e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).body, &doc); err != nil {
		t.Fatal(err)
	}
	targets := hostileFixture(t, e)
	e.logs.errors()
	sent, fields, failures := 0, 0, 0
	for _, op := range bodyOps(t, e, doc, targets) {
		base := baseBodies[op.method+" "+op.path]
		for _, f := range bodyFields(doc, op.schema, 0) {
			fields++
			for _, v := range hostileValues {
				bodies := []any{f.build(v)}
				if base != nil && f.path != "" {
					bodies = append(bodies, lay(base, f.build(v)))
				}
				for _, body := range bodies {
					r := e.raw(op.method, op.target, op.key, mustJSON(body))
					sent++
					bad := ""
					switch {
					case r.status >= 500:
						bad = "a 5xx"
					case r.status >= 400 && !contractError(r.body):
						bad = "an error body that is not {error:{code,message}}"
					}
					if errs := e.logs.errors(); len(errs) > 0 {
						bad = fmt.Sprintf("ERROR logged: %v", errs)
					}
					if bad != "" {
						if failures++; failures <= 20 {
							t.Errorf("%s %s %s = %s: %s: %d %s", op.method, op.path, f.path, truncate(mustJSON(v), 80), bad, r.status, truncate(string(r.body), 300))
						}
					}
				}
			}
		}
	}
	if failures > 20 {
		t.Errorf("... %d failures in all", failures)
	}
	// the walk reaches deep: the bodies' fields, nested objects and arrays of objects included
	if fields < 200 || sent < 8000 {
		t.Fatalf("only %d fields, %d requests: the walk of the document found too little", fields, sent)
	}
	t.Logf("%d fields, %d requests", fields, sent)
}

// TestHostileUniqueItems: every array whose schema says uniqueItems, at any depth of any
// request body, answers objects, arrays and nulls among its items (once or repeated) with a
// 400 validation_error in the contract's error body naming the array, never a 5xx. huma up to
// v2.38 panicked on them ("hash of unhashable type"); v2.39.0 compares every pair of them,
// which checkArray spares it: thousands of distinct objects are refused at once.
func TestHostileUniqueItems(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var doc map[string]any
	if err := json.Unmarshal(e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).body, &doc); err != nil {
		t.Fatal(err)
	}
	targets := hostileFixture(t, e)
	e.logs.errors()
	arrays := 0
	for _, op := range bodyOps(t, e, doc, targets) {
		base := baseBodies[op.method+" "+op.path]
		for _, f := range bodyFields(doc, op.schema, 0) {
			if f.schema["uniqueItems"] != true {
				continue
			}
			arrays++
			for _, items := range [][]any{
				{map[string]any{}}, {map[string]any{}, map[string]any{}}, {map[string]any{"a": 1}, map[string]any{"a": 2}},
				{[]any{}}, {[]any{}, []any{}}, {[]any{map[string]any{}}}, {nil}, {nil, nil},
			} {
				body := lay(base, f.build(items))
				r := e.raw(op.method, op.target, op.key, mustJSON(body))
				if r.status != 400 || !contractError(r.body) || !strings.Contains(string(r.body), `"validation_error"`) || !strings.Contains(string(r.body), f.path) {
					t.Errorf("%s %s %s = %s: %d %s, want 400 validation_error naming %s", op.method, op.path, f.path, mustJSON(items), r.status, r.body, f.path)
				}
				if errs := e.logs.errors(); len(errs) > 0 {
					t.Errorf("%s %s %s = %s: ERROR logged: %v", op.method, op.path, f.path, mustJSON(items), errs)
				}
			}
			// Distinct objects, a tenth of what a body under the size limit holds: huma
			// compares every pair of them (checkArray refuses them first).
			many := make([]any, 10000)
			for i := range many {
				many[i] = map[string]any{"a": i}
			}
			start := time.Now()
			r := e.raw(op.method, op.target, op.key, mustJSON(lay(base, f.build(many))))
			if took := time.Since(start); r.status != 400 || !contractError(r.body) || took > 2*time.Second {
				t.Errorf("%s %s %s = 10,000 distinct objects: %d in %v, want a 400 within 2s: %s", op.method, op.path, f.path, r.status, took, truncate(string(r.body), 300))
			}
		}
	}
	if arrays < 2 {
		t.Fatalf("only %d arrays with uniqueItems found: the walk of the document found too little", arrays)
	}
}

// lay returns base with over laid on it: objects merged key by key, anything else (arrays and
// nulls included) replaced by over.
func lay(base, over any) any {
	b, ok1 := base.(map[string]any)
	o, ok2 := over.(map[string]any)
	if !ok1 || !ok2 {
		return over
	}
	out := map[string]any{}
	for k, v := range b {
		out[k] = v
	}
	for k, v := range o {
		out[k] = lay(b[k], v)
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
