package httpapi_test

import (
	"strings"
	"testing"
)

// TestBannerTCF: the banner's tcf object is checked against the GVL in use (an unknown or
// deleted vendor is a 400 naming it), stored whole and returned with empty lists, and the
// public configuration says whether the TCF applies to the visitor.
func TestBannerTCF(t *testing.T) {
	e := newEnv(t)
	id, pk := e.site()
	path := "/api/v1/sites/" + id + "/banner"
	tcf := e.want(e.do("GET", path, nil), 200).obj(t)["tcf"].(map[string]any)
	if tcf["enabled"] != false || len(tcf["vendorIds"].([]any)) != 0 || len(tcf["publisherRestrictions"].([]any)) != 0 {
		t.Fatalf("a new banner's tcf: %v", tcf)
	}
	for body, msg := range map[string]string{
		`{"tcf":{"enabled":true,"vendorIds":[755,1,2,9999]}}`: `tcf.vendorIds[3]: unknown vendor 9999`,
		`{"tcf":{"vendorIds":[468]}}`:                         `tcf.vendorIds[0]: vendor 468`,
		`{"tcf":{"publisherCountryCode":"fr"}}`:               `tcf.publisherCountryCode`,
		`{"tcf":{"publisherCountryCode":"ZZ"}}`:               `tcf.publisherCountryCode`,
		`{"tcf":{"vendorIds":[755],"publisherRestrictions":[{"purposeId":3,"restrictionType":2,"vendorIds":[755]}]}}`: `purpose 3 never rests on legitimate interest`,
		`{"tcf":{"vendorIds":"755"}}`: `tcf.vendorIds`,
	} {
		r := e.want(e.raw("PATCH", path, e.keyA, body), 400, "validation_error")
		if !strings.Contains(string(r.body), msg) {
			t.Errorf("%s: the message does not say %s: %s", body, msg, r.body)
		}
	}
	p := e.want(e.do("PATCH", path, map[string]any{"tcf": map[string]any{"enabled": true, "vendorIds": []any{755, 1}, "publisherCountryCode": "FR"}}), 200).obj(t)
	tcf = p["tcf"].(map[string]any)
	if tcf["enabled"] != true || len(tcf["vendorIds"].([]any)) != 2 || tcf["publisherCountryCode"] != "FR" || tcf["googleAtpIds"] == nil {
		t.Fatalf("patched tcf: %v", tcf)
	}
	for country, want := range map[string]any{"FR": true, "GB": true, "JP": nil, "US": nil} {
		cfg := e.want(e.raw("GET", "/api/v1/public/"+pk+"/config", "", "", "X-Country", country), 200).obj(t)
		if cfg["tcf"] != want {
			t.Errorf("%s: config tcf %v, want %v", country, cfg["tcf"], want)
		}
	}
}
