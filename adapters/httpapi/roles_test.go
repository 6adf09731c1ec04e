package httpapi_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
)

// roleEnv is an API on a memory store with an organization, two sites, and a key of every
// role made through POST /api-keys by the owner key, plus an admin key limited to site A.
type roleEnv struct {
	*env
	siteA, siteB string
	keys         map[core.Role]string
	scoped       string
}

func newRoleEnv(t *testing.T) *roleEnv {
	t.Helper()
	m := memCore(t, memstore.New())
	srv := httptest.NewServer(httpapi.New(httpapi.Config{UseCases: httpapi.FromCore(m), Logger: slog.New(slog.DiscardHandler), RuntimeScript: []byte("/* runtime */")}))
	t.Cleanup(srv.Close)
	ctx := sysCtx
	org, err := m.Orgs.CreateOrganization(ctx, "agency")
	if err != nil {
		t.Fatal(err)
	}
	_, owner, err := m.Orgs.CreateAPIKey(ctx, org.ID, "cli", "") // as the CLI makes them: an owner
	if err != nil {
		t.Fatal(err)
	}
	e := &roleEnv{env: &env{t: t, srv: srv, m: m, keyA: owner}, keys: map[core.Role]string{core.RoleOwner: owner}}
	e.siteA, _ = e.site()
	e.siteB, _ = e.site()
	for _, r := range core.Roles()[1:] {
		k := e.want(e.do("POST", "/api/v1/api-keys", map[string]any{"name": string(r), "role": string(r)}), 201).obj(t)
		if k["role"] != string(r) || k["siteIds"] != nil {
			t.Fatalf("created key %v, want role %s for every site", k, r)
		}
		e.keys[r] = k["key"].(string)
	}
	k := e.want(e.do("POST", "/api/v1/api-keys", map[string]any{"name": "site A", "siteIds": []string{e.siteA}}), 201).obj(t)
	if k["role"] != "admin" || len(k["siteIds"].([]any)) != 1 {
		t.Fatalf("scoped key %v, want an admin (the default) limited to site A", k)
	}
	e.scoped = k["key"].(string)
	return e
}

var (
	rolesLine = regexp.MustCompile("\\*\\*Roles:\\*\\* (.*?) \\(permission `(\\w+)`\\); a key limited to some sites (may call it on those sites only|may not call it|may call it)\\.")
	roleWord  = regexp.MustCompile("`(\\w+)`")
)

// documented reads an operation's roles and site-scope rule from its description.
func documented(t *testing.T, id, desc string) (roles []core.Role, scope string) {
	t.Helper()
	m := rolesLine.FindStringSubmatch(desc)
	if m == nil {
		t.Fatalf("%s: no role line in its description: %q", id, desc)
	}
	for _, w := range roleWord.FindAllStringSubmatch(m[1], -1) {
		roles = append(roles, core.Role(w[1]))
	}
	return roles, m[3]
}

// TestRoleMatrix calls every authenticated operation of the served OpenAPI document with a
// key of each role and with a key limited to site A (on site A and on site B), and checks
// that each is allowed or answered 403 forbidden exactly as the operation's description
// says. Allowed means anything but 401 and 403: the dummy IDs may well be 404.
func TestRoleMatrix(t *testing.T) {
	t.Parallel()
	e := newRoleEnv(t)
	doc := e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).obj(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for _, where := range []string{"ApiKeyCreateBody", "APIKeyOut"} {
		var enum []string
		for _, v := range schemas[where].(map[string]any)["properties"].(map[string]any)["role"].(map[string]any)["enum"].([]any) {
			enum = append(enum, v.(string))
		}
		if !slices.Equal(enum, core.RoleNames()) {
			t.Errorf("%s.role enum %v, core's roles %v", where, enum, core.RoleNames())
		}
	}
	paths := doc["paths"].(map[string]any)
	var pathNames []string
	for p := range paths {
		pathNames = append(pathNames, p)
	}
	sort.Strings(pathNames)
	ops := 0
	for _, p := range pathNames {
		for _, method := range []string{"get", "post", "put", "patch", "delete"} {
			o, ok := paths[p].(map[string]any)[method].(map[string]any)
			if !ok || o["security"] == nil {
				continue
			}
			ops++
			id := o["operationId"].(string)
			desc, _ := o["description"].(string)
			allowed, scope := documented(t, id, desc)
			if perm, ok := httpapi.OperationPermission(id); !ok || !slices.Equal(allowed, core.RolesAllowing(perm)) {
				t.Errorf("%s: documented roles %v, permission table %q", id, allowed, perm)
			}
			body := exampleBody(t, doc, o)
			call := func(key, site string) int {
				return e.raw(strings.ToUpper(method), "/api/v1"+fillPath(p, site), key, body).status
			}
			for _, r := range core.Roles() {
				status := call(e.keys[r], e.siteA)
				if want := slices.Contains(allowed, r); want != (status != http.StatusForbidden && status != http.StatusUnauthorized) {
					t.Errorf("%s %s as %s: status %d, documented allowed=%v", strings.ToUpper(method), p, r, status, want)
				}
			}
			// The scoped key is an admin: its role allows what admin may.
			inScope := slices.Contains(allowed, core.RoleAdmin) && scope != "may not call it"
			if s := call(e.scoped, e.siteA); inScope != (s != http.StatusForbidden && s != http.StatusUnauthorized) {
				t.Errorf("%s %s with the site-scoped key on its site: status %d, documented allowed=%v", strings.ToUpper(method), p, s, inScope)
			}
			if strings.Contains(p, "{id}") && !strings.HasPrefix(p, "/api-keys") {
				if s := call(e.scoped, e.siteB); s != http.StatusForbidden {
					t.Errorf("%s %s with the site-scoped key on another site: status %d, want 403", strings.ToUpper(method), p, s)
				}
			}
		}
	}
	if ops < 35 {
		t.Fatalf("only %d authenticated operations in the document", ops)
	}
}

// fillPath puts site in {id} (or a fresh UUID under /api-keys) and a plausible value in
// every other parameter.
func fillPath(p, site string) string {
	return regexp.MustCompile(`\{(\w+)\}`).ReplaceAllStringFunc(p, func(s string) string {
		switch {
		case s == "{id}" && !strings.HasPrefix(p, "/api-keys"):
			return site
		case s == "{slug}":
			return "google-analytics"
		case s == "{visitorId}":
			return "visitor-1"
		case s == "{hash}":
			return strings.Repeat("ab", 32)
		}
		return uuid.NewString()
	})
}

// exampleBody builds the smallest body the operation's request schema accepts: its
// required properties with valid values ("" when there is no body).
func exampleBody(t *testing.T, doc map[string]any, o map[string]any) string {
	rb, ok := o["requestBody"].(map[string]any)
	if !ok {
		return ""
	}
	schema := rb["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	b, err := json.Marshal(example(doc, schema))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func example(doc map[string]any, s map[string]any) any {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		s = doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
	}
	if enum, ok := s["enum"].([]any); ok {
		return enum[0]
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok {
		typ = ts[0].(string)
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			out[r.(string)] = example(doc, props[r.(string)].(map[string]any))
		}
		return out
	case "array":
		// As many items as minItems asks for, so that the body passes the schema and the
		// answer is the authorization's.
		n, _ := s["minItems"].(float64)
		out := []any{}
		items, _ := s["items"].(map[string]any)
		for i := 0; i < int(n) && items != nil; i++ {
			out = append(out, example(doc, items))
		}
		return out
	case "boolean":
		return true
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		return 1
	}
	switch s["format"] {
	case "uri":
		return "https://shop.example/"
	case "email":
		return "ana@shop.example"
	case "uuid":
		return "0190a5a8-0000-7000-8000-000000000001"
	}
	if p, ok := s["pattern"].(string); ok {
		// The first of a few plain values that the pattern accepts.
		if re, err := regexp.Compile(p); err == nil {
			for _, v := range []string{"x", "shop.example", "DE", "1"} {
				if re.MatchString(v) {
					return v
				}
			}
		}
	}
	return "x"
}

// TestRoleRules: what the matrix cannot see from one call per role.
func TestRoleRules(t *testing.T) {
	t.Parallel()
	e := newRoleEnv(t)
	admin, viewer, privacy := e.keys[core.RoleAdmin], e.keys[core.RoleViewer], e.keys[core.RolePrivacy]

	// A key limited to site A lists site A only.
	if list := e.want(e.do("GET", "/api/v1/sites", nil, e.scoped), 200).arr(t); len(list) != 1 || list[0].(map[string]any)["id"] != e.siteA {
		t.Fatalf("scoped key's sites: %v, want site A only", list)
	}
	if list := e.want(e.do("GET", "/api/v1/sites", nil, viewer), 200).arr(t); len(list) != 2 {
		t.Fatalf("viewer's sites: %v, want both", list)
	}
	// Looking a visitor up is not reading.
	e.want(e.do("GET", "/api/v1/sites/"+e.siteA+"/consent-records?visitorId=v1", nil, viewer), 403, "forbidden")
	e.want(e.do("GET", "/api/v1/sites/"+e.siteA+"/consent-records?visitorId=v1", nil, privacy), 200)
	e.want(e.do("GET", "/api/v1/sites/"+e.siteA+"/consent-records", nil, viewer), 200)

	// An admin cannot make, rotate or revoke an owner key; an owner can.
	e.want(e.do("POST", "/api/v1/api-keys", map[string]any{"role": "owner"}, admin), 403, "forbidden")
	ownerKey := e.want(e.do("POST", "/api/v1/api-keys", map[string]any{"role": "owner"}), 201).obj(t)
	e.want(e.do("POST", "/api/v1/api-keys/"+ownerKey["id"].(string)+"/rotate", nil, admin), 403, "forbidden")
	e.want(e.do("DELETE", "/api/v1/api-keys/"+ownerKey["id"].(string), nil, admin), 403, "forbidden")
	e.want(e.do("DELETE", "/api/v1/api-keys/"+ownerKey["id"].(string), nil), 200)

	// A rotated key keeps its role and sites.
	var scopedID string
	for _, k := range e.want(e.do("GET", "/api/v1/api-keys", nil, admin), 200).arr(t) {
		if k.(map[string]any)["name"] == "site A" {
			scopedID = k.(map[string]any)["id"].(string)
		}
	}
	rot := e.want(e.do("POST", "/api/v1/api-keys/"+scopedID+"/rotate", map[string]any{"graceSeconds": 0}, admin), 201).obj(t)
	if rot["role"] != "admin" || len(rot["siteIds"].([]any)) != 1 || rot["siteIds"].([]any)[0] != e.siteA {
		t.Fatalf("rotated scoped key: %v", rot)
	}
	e.want(e.do("GET", "/api/v1/sites/"+e.siteB, nil, rot["key"].(string)), 403, "forbidden")

	// Bad roles and sites are validation errors.
	e.want(e.do("POST", "/api/v1/api-keys", map[string]any{"role": "root"}), 400, "validation_error")
	e.want(e.do("POST", "/api/v1/api-keys", map[string]any{"siteIds": []string{uuid.NewString()}}), 400, "validation_error")
	e.want(e.do("POST", "/api/v1/api-keys", map[string]any{"siteIds": []string{}}), 400, "validation_error")
	// A forbidden answer has the contract's error body.
	r := e.want(e.do("PATCH", "/api/v1/sites/"+e.siteA+"/banner", map[string]any{"template": "modal"}, viewer), 403, "forbidden")
	if !strings.Contains(string(r.body), "viewer") {
		t.Fatalf("forbidden message does not name the role: %s", r.body)
	}
}
