package httpapi_test

import (
	"strings"
	"testing"
)

// TestSSOConfigAPI: an owner sets, reads, changes and removes the organization's own single
// sign-on provider; the client secret is never answered and is kept when left out; bad input
// is a 400 in the contract's body; the audit log records the changes without the secret;
// another organization does not see it.
func TestSSOConfigAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.want(e.do("GET", "/api/v1/sso", nil), 404, "not_found")
	e.want(e.do("DELETE", "/api/v1/sso", nil), 404, "not_found")
	body := map[string]any{"issuer": "https://login.acme.example/realms/acme", "clientId": "consentd", "clientSecret": "very-secret-value",
		"allowedDomains": []string{"Acme.example", "acme.example", "acme-group.example"}, "defaultRole": "editor"}
	got := e.want(e.do("PUT", "/api/v1/sso", body), 200)
	if strings.Contains(string(got.body), "very-secret-value") || strings.Contains(string(got.body), "clientSecret") {
		t.Fatalf("the secret is answered: %s", got.body)
	}
	c := got.obj(t)
	if c["issuer"] != body["issuer"] || c["clientId"] != "consentd" || c["defaultRole"] != "editor" ||
		len(c["allowedDomains"].([]any)) != 2 || c["allowedDomains"].([]any)[0] != "acme-group.example" {
		t.Fatalf("PUT /sso answered %v", c)
	}
	if g := e.want(e.do("GET", "/api/v1/sso", nil), 200); strings.Contains(string(g.body), "very-secret-value") || g.obj(t)["clientId"] != "consentd" {
		t.Fatalf("GET /sso: %s", g.body)
	}
	// Another organization has none.
	e.want(e.do("GET", "/api/v1/sso", nil, e.keyB), 404, "not_found")
	// Left out, the secret is kept: the change needs no secret once one is stored.
	delete(body, "clientSecret")
	body["defaultRole"] = "viewer"
	if c := e.want(e.do("PUT", "/api/v1/sso", body), 200).obj(t); c["defaultRole"] != "viewer" {
		t.Fatalf("after a change: %v", c)
	}
	// Bad input.
	for _, bad := range []map[string]any{
		{"issuer": "http://login.acme.example", "clientId": "c", "allowedDomains": []string{"acme.example"}, "defaultRole": "viewer"},
		{"issuer": "https://login.acme.example?x=1", "clientId": "c", "allowedDomains": []string{"acme.example"}, "defaultRole": "viewer"},
		{"issuer": "https://login.acme.example", "clientId": "c", "allowedDomains": []string{}, "defaultRole": "viewer"},
		{"issuer": "https://login.acme.example", "clientId": "c", "allowedDomains": []string{"not a domain"}, "defaultRole": "viewer"},
		{"issuer": "https://login.acme.example", "clientId": "c", "allowedDomains": []string{"ana@acme.example"}, "defaultRole": "viewer"},
		{"issuer": "https://login.acme.example", "clientId": "c", "allowedDomains": []string{"acme.example"}, "defaultRole": "owner"},
		{"issuer": "https://login.acme.example", "clientId": " ", "allowedDomains": []string{"acme.example"}, "defaultRole": "viewer"},
	} {
		e.want(e.do("PUT", "/api/v1/sso", bad), 400, "validation_error")
	}
	// A first provider needs a secret.
	e.want(e.do("PUT", "/api/v1/sso", body, e.keyB), 400, "validation_error")
	e.want(e.do("DELETE", "/api/v1/sso", nil), 200)
	e.want(e.do("GET", "/api/v1/sso", nil), 404, "not_found")

	log := e.want(e.do("GET", "/api/v1/audit-log?action=sso.update", nil), 200)
	if strings.Contains(string(log.body), "very-secret-value") {
		t.Fatalf("the secret is in the audit log: %s", log.body)
	}
	entries := log.obj(t)["entries"].([]any)
	if len(entries) != 2 {
		t.Fatalf("%d sso.update entries, want 2: %s", len(entries), log.body)
	}
	first := entries[1].(map[string]any)["changes"].([]any)
	var fields []string
	for _, ch := range first {
		fields = append(fields, ch.(map[string]any)["field"].(string))
	}
	if strings.Join(fields, ",") != "allowedDomains,clientId,defaultRole,issuer,clientSecret" {
		t.Fatalf("the first entry's changes: %v", fields)
	}
	e.want(e.do("GET", "/api/v1/audit-log?action=sso.delete", nil), 200)
}
