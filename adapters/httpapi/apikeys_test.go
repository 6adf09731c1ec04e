package httpapi_test

import (
	"strings"
	"testing"
)

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	list := e.want(e.do("GET", "/api/v1/api-keys", nil), 200).arr(t)
	if len(list) != 1 {
		t.Fatalf("organization A has %d keys, want its one test key: %v", len(list), list)
	}
	first := list[0].(map[string]any)
	requireKeys(t, first, "id", "organizationId", "name", "prefix", "createdAt", "lastUsedAt", "expiresAt")
	if first["lastUsedAt"] == nil || !strings.HasPrefix(e.keyA, first["prefix"].(string)) {
		t.Fatalf("listed key: %v (the listing itself used it)", first)
	}
	if _, ok := first["key"]; ok {
		t.Fatal("a listing shows the key itself")
	}

	created := e.want(e.do("POST", "/api/v1/api-keys", map[string]any{"name": "deploy"}), 201).obj(t)
	key, id := created["key"].(string), created["id"].(string)
	if created["name"] != "deploy" || !strings.HasPrefix(key, created["prefix"].(string)) {
		t.Fatalf("created: %v", created)
	}
	e.want(e.do("GET", "/api/v1/sites", nil, key), 200)
	e.want(e.do("POST", "/api/v1/api-keys", map[string]any{"name": strings.Repeat("n", 101)}), 400, "validation_error")
	e.want(e.do("POST", "/api/v1/api-keys", nil), 201)

	// Organization B sees none of A's keys and cannot touch them.
	for _, k := range e.want(e.do("GET", "/api/v1/api-keys", nil, e.keyB), 200).arr(t) {
		if k.(map[string]any)["id"] == id {
			t.Fatal("B lists A's key")
		}
	}
	e.want(e.do("DELETE", "/api/v1/api-keys/"+id, nil, e.keyB), 404, "not_found")
	e.want(e.do("POST", "/api/v1/api-keys/"+id+"/rotate", nil, e.keyB), 404, "not_found")

	// Rotation: the successor works at once; the predecessor until its grace period ends
	// (here 0 seconds: at once; the grace period itself is timed in core's tests).
	rot := e.want(e.do("POST", "/api/v1/api-keys/"+id+"/rotate", map[string]any{"graceSeconds": 3600}), 201).obj(t)
	prev := rot["previous"].(map[string]any)
	if rot["name"] != "deploy" || rot["key"] == key || prev["id"] != id || prev["expiresAt"] == nil {
		t.Fatalf("rotated: %v", rot)
	}
	e.want(e.do("GET", "/api/v1/sites", nil, key), 200)
	succ := rot["key"].(string)
	e.want(e.do("GET", "/api/v1/sites", nil, succ), 200)
	e.want(e.do("POST", "/api/v1/api-keys/"+rot["id"].(string)+"/rotate", map[string]any{"graceSeconds": 0}), 201)
	e.want(e.do("GET", "/api/v1/sites", nil, succ), 401, "unauthorized")
	e.want(e.do("POST", "/api/v1/api-keys/"+id+"/rotate", map[string]any{"graceSeconds": -1}), 400, "validation_error")
	e.want(e.do("POST", "/api/v1/api-keys/"+id+"/rotate", map[string]any{"graceSeconds": 2592001}), 400, "validation_error")

	// Revocation is immediate.
	e.want(e.do("DELETE", "/api/v1/api-keys/"+id, nil), 200)
	e.want(e.do("GET", "/api/v1/sites", nil, key), 401, "unauthorized")
	e.want(e.do("DELETE", "/api/v1/api-keys/"+id, nil), 404, "not_found")
	e.want(e.do("DELETE", "/api/v1/api-keys/not-a-uuid", nil), 404, "not_found")
}
