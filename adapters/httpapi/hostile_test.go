package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// controls are the characters every text field and path parameter must refuse with a 400.
var controls = []string{"\x00", "\x01", "\x1b", "\x7f"}

// leaf is a string field of a request body schema: its JSON path and a body holding v there.
type leaf struct {
	path  string
	build func(v any) any
}

// stringLeaves lists the string fields of schema (an OpenAPI schema as decoded JSON), maps and
// arrays included (one entry each, under the key "de" or index 0).
func stringLeaves(doc, schema map[string]any, depth int) []leaf {
	return leavesWhere(doc, schema, depth, func(map[string]any) bool { return true })
}

// leavesWhere lists the string fields of schema, as stringLeaves does, whose own schema keep
// accepts.
func leavesWhere(doc, schema map[string]any, depth int, keep func(map[string]any) bool) []leaf {
	if schema == nil || depth > 8 {
		return nil
	}
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		schema, _ = doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
		return leavesWhere(doc, schema, depth+1, keep)
	}
	var out []leaf
	if hasType(schema, "string") && keep(schema) {
		out = append(out, leaf{"", func(v any) any { return v }})
	}
	if props, ok := schema["properties"].(map[string]any); ok {
		for name, p := range props {
			for _, l := range leavesWhere(doc, p.(map[string]any), depth+1, keep) {
				out = append(out, leaf{join(name, l.path), func(v any) any { return map[string]any{name: l.build(v)} }})
			}
		}
	}
	if ap, ok := schema["additionalProperties"].(map[string]any); ok {
		for _, l := range leavesWhere(doc, ap, depth+1, keep) {
			out = append(out, leaf{join("de", l.path), func(v any) any { return map[string]any{"de": l.build(v)} }})
		}
	}
	if items, ok := schema["items"].(map[string]any); ok {
		for _, l := range leavesWhere(doc, items, depth+1, keep) {
			out = append(out, leaf{join("[0]", l.path), func(v any) any { return []any{l.build(v)} }})
		}
	}
	return out
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case strings.HasPrefix(b, "["):
		return a + b
	}
	return a + "." + b
}

func hasType(s map[string]any, t string) bool {
	switch v := s["type"].(type) {
	case string:
		return v == t
	case []any:
		for _, x := range v {
			if x == t {
				return true
			}
		}
	}
	return false
}

// TestHostileText: for every operation of the served OpenAPI document, NUL and other control
// characters in any string field of its request body, any path parameter and any string query
// parameter answer 400 validation_error naming the field, with no ERROR log line.
func TestHostileText(t *testing.T) {
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
	checked := 0
	check := func(t *testing.T, field string, r resp) {
		t.Helper()
		e.want(r, 400, "validation_error")
		if !strings.Contains(string(r.body), field) {
			t.Errorf("message does not name %s: %s", field, r.body)
		}
		if errs := e.logs.errors(); len(errs) > 0 {
			t.Errorf("ERROR logged: %v", errs)
		}
		checked++
	}
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
			var params []map[string]any
			for _, x := range asSlice(op["parameters"]) {
				params = append(params, x.(map[string]any))
			}
			url := func(bad, value string) string {
				u := p
				q := ""
				for _, prm := range params {
					name := prm["name"].(string)
					switch prm["in"] {
					case "path":
						v := valid[name]
						if v == "" {
							v = "x"
						}
						if name == bad {
							v = value
						}
						u = strings.ReplaceAll(u, "{"+name+"}", v)
					case "query":
						if name == bad {
							q = "?" + name + "=" + value
						}
					}
				}
				return "/api/v1" + u + q
			}
			body := "{}"
			if _, ok := op["requestBody"]; !ok {
				body = ""
			}
			t.Run(method+" "+p, func(t *testing.T) {
				for _, prm := range params {
					name := prm["name"].(string)
					if prm["in"] != "path" && (prm["in"] != "query" || !hasType(prm["schema"].(map[string]any), "string")) {
						continue
					}
					for _, c := range controls {
						check(t, name, e.raw(method, url(name, pathEscape(c)), key, body))
					}
				}
				rb, ok := op["requestBody"].(map[string]any)
				if !ok {
					return
				}
				schema := rb["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
				leaves := stringLeaves(doc, schema, 0)
				if len(leaves) == 0 && method != "PUT" && !strings.HasSuffix(p, "/configure") && !strings.HasSuffix(p, "/rotate") {
					t.Errorf("no string field found in the body of %s %s", method, p)
				}
				for _, l := range leaves {
					for _, c := range controls {
						check(t, l.path, e.raw(method, url("", ""), key, mustJSON(l.build("a"+c+"b"))))
					}
				}
			})
		}
	}
	if checked < 100 {
		t.Fatalf("only %d requests checked: the walk of the document found too little", checked)
	}
	// the public consent POST's visitorId, named here so that it never drops out of the walk
	check(t, "visitorId", e.raw("POST", "/api/v1/public/"+pk+"/consent", "", `{"visitorId":"v\u0000","categories":{},"consentVersion":1}`))
	check(t, "projectKey", e.raw("GET", "/api/v1/public/%00/config", "", ""))
	check(t, "nameTranslations key", e.raw("POST", "/api/v1/sites/"+id+"/categories", e.keyA, `{"name":"n","nameTranslations":{"d\u0000":"x"}}`))
	// huma reads a body under an odd media type as JSON too: the check does not trust the header
	for _, ct := range []string{";", "text/plain", "a+json;x"} {
		check(t, "name", e.raw("PATCH", "/api/v1/sites/"+id, e.keyA, `{"name":"a\u0000"}`, "Content-Type", ct))
	}
	// a path parameter that is not UTF-8 is refused the same way
	check(t, "id", e.raw("GET", "/api/v1/sites/%FF", e.keyA, ""))
	// tab, newline and carriage return are text
	e.want(e.raw("POST", "/api/v1/sites/"+id+"/categories", e.keyA, `{"name":"tabs","description":"a\tb\nc\r\n"}`), 201)
}

func pathEscape(s string) string { return url.PathEscape(s) }

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// TestCaseFoldedKeys: a body key that matches a field only when case is ignored is an unknown
// field, at any depth.
func TestCaseFoldedKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	for _, c := range []struct{ method, path, body, field string }{
		{"PATCH", "/api/v1/sites/" + id, `{"NAME":"x"}`, "NAME"},
		{"POST", "/api/v1/sites/" + id + "/categories", `{"name":"a","Name":"b"}`, "Name"},
		{"POST", "/api/v1/sites/" + id + "/services", `{"slug":"s","label":"l","categorySlug":"marketing","cookies":[{"name":"n","duration":"d","Description":"x"}]}`, "cookies[0].Description"},
		{"PATCH", "/api/v1/sites/" + id + "/banner", `{"textTranslations":{"de":{"HEADLINE":"x"}}}`, "textTranslations.de.HEADLINE"},
	} {
		r := e.want(e.raw(c.method, c.path, e.keyA, c.body), 400, "validation_error")
		if !strings.Contains(string(r.body), c.field) {
			t.Errorf("%s %s: message does not name %s: %s", c.method, c.path, c.field, r.body)
		}
	}
	// the site kept its name
	if n := e.want(e.do("GET", "/api/v1/sites/"+id, nil), 200).obj(t)["name"]; n != "Shop" {
		t.Fatalf("name %v", n)
	}
}

// TestEmptyPathSegment: a path that ServeMux would clean and redirect answers the JSON error
// body instead of an HTML 307.
func TestEmptyPathSegment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/api/v1/sites//banner", "/api/v1/sites/" + id + "//banner", "/api/v1//sites", "/api/v1/sites/./" + id, "/api/v1/public//config"} {
		req, _ := http.NewRequest("GET", e.srv.URL+p, nil)
		req.Header.Set("Authorization", "Bearer "+e.keyA)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 404 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s", p, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
	e.want(e.raw("GET", "/api/v1/sites//banner", e.keyA, ""), 404, "not_found")
}
