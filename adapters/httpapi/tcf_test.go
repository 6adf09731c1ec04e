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

// TestLoaderTCFStub: the loader inlines the __tcfapi stub first where the TCF applies to the
// visitor, and nowhere else: a visitor outside Europe, and every visitor of a site without the
// TCF, get the very loader they got before; the site's TCF configuration carries the module's
// texts in the visitor's language and core's table.
func TestLoaderTCFStub(t *testing.T) {
	e := newEnv(t)
	id, pk := e.site()
	loader := func(country, lang string) string {
		return string(e.want(e.raw("GET", "/api/v1/public/"+pk+"/loader.js?lang="+lang, "", "", "X-Country", country), 200).body)
	}
	before := map[string]string{"FR": loader("FR", "en"), "JP": loader("JP", "en")}
	for c, l := range before {
		if strings.Contains(l, "__tcfapi") {
			t.Errorf("%s: the loader of a site without TCF has the stub", c)
		}
	}
	e.want(e.raw("GET", "/api/v1/public/"+pk+"/tcf", "", ""), 404, "not_found")
	e.want(e.do("PATCH", "/api/v1/sites/"+id+"/banner", map[string]any{"tcf": map[string]any{"enabled": true, "vendorIds": []any{755, 28}, "publisherCountryCode": "FR"}}), 200)
	if l := loader("FR", "fr"); !strings.HasPrefix(l, "/* __tcfapi stub, fr */;\n") || !strings.Contains(l, "window.__consentdBoot=") {
		t.Errorf("a French visitor's loader does not start with the stub: %.120s", l)
	}
	if l := loader("JP", "en"); l != before["JP"] {
		t.Errorf("a Japanese visitor's loader changed with TCF on: %.120s", l)
	}
	cfg := e.want(e.raw("GET", "/api/v1/public/"+pk+"/tcf?lang=de", "", ""), 200).obj(t)
	texts, _ := cfg["texts"].(map[string]any)
	signals, _ := cfg["signals"].(map[string]any)
	if cfg["cmpId"] != float64(4095) || cfg["vendorListVersion"] != float64(17) || texts["tcfManageLabel"] != "Optionen verwalten" ||
		signals["categories"] == nil || signals["consentMode"] == nil || len(cfg["vendors"].(map[string]any)) != 2 {
		t.Errorf("TCF configuration: cmpId %v, GVL %v, texts %v, signals %v", cfg["cmpId"], cfg["vendorListVersion"], texts["tcfManageLabel"], signals)
	}
}
