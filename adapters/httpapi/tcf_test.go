package httpapi_test

import (
	"strings"
	"testing"
)

// TestBannerTCF: the banner's tcf object is checked against the GVL in use (an unknown or
// deleted vendor is a 400 naming it), stored whole and returned with empty lists, and the
// public configuration says whether the TCF applies to the visitor.
func TestBannerTCF(t *testing.T) {
	t.Parallel()
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
		`{"tcf":{"vendorIds":"755"}}`:                               `tcf.vendorIds`,
		`{"tcf":{"enabled":true}}`:                                  `tcf.vendorIds: TCF needs at least one vendor`,
		`{"tcf":{"enabled":true,"vendorIds":[],"googleAtpIds":[]}}`: `tcf.vendorIds: TCF needs at least one vendor`,
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
	t.Parallel()
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
	if l := loader("FR", "fr"); !strings.HasPrefix(l, compileHint+"/* __tcfapi stub, fr */;\n") || !strings.Contains(l, "window.__consentdBoot=") {
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

// TC strings made by the IAB's reference encoder (@iabtechlabtcf/core 1.5.21, TCString.encode)
// on the fixture GVL (vendorListVersion 17) for testTCF's CMP (4095, version 7): the five
// vendors 755, 1, 2, 6, 8 disclosed, with every purpose and those vendors consented (accept)
// or nothing consented (reject).
const (
	tcAccept = "CQuUTiAQuUTiA__AHAENAREgAP_gAAAAAAqIF5wBIAAgAEAAYABAC8wAAAAA.IF5wBIAAgAEAAYABAC8w.YAAAAAAAAAAA"
	tcReject = "CQuUTiAQuUTiA__AHAENAREgAAAAAAAAAAqIAAAAAAAA.IF5wBIAAgAEAAYABAC8w.YAAAAAAAAAAA"
)

// TestTCFRecords: a TCF site's decisions keep their TC string, AC string and GVL version in
// the record, sealed in the chain (v3 lines) that a third party checks from
// docs/consent-records.md alone; the snapshot holds the site's TCF settings; a malformed
// string, another CMP's, a GVL version that disagrees or a provider not the site's is a 400.
func TestTCFRecords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	consent := func(body string) resp {
		return e.raw("POST", "/api/v1/public/"+pk+"/consent", "", body, "X-Country", "FR", "Content-Type", "application/json")
	}
	e.want(consent(`{"categories":{},"consentVersion":1,"tcString":"`+tcAccept+`"}`), 400, "validation_error")
	e.want(e.do("PATCH", "/api/v1/sites/"+id+"/banner", map[string]any{"tcf": map[string]any{"enabled": true,
		"vendorIds": []any{755, 1, 2, 6, 8}, "publisherCountryCode": "FR", "googleAtpIds": []any{89, 2822}}}), 200)
	e.want(consent(`{"categories":{"statistics":true},"consentVersion":1}`), 201) // a v1 line before
	for body, msg := range map[string]string{
		`{"categories":{},"consentVersion":1,"tcString":"CQuUTiAQuUTiA"}`:                                                     "tcString: not a",
		`{"categories":{},"consentVersion":1,"tcString":"CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.IDKQA4AAgAKAGQAygAAA"}`: "made by CMP 880, not by this deployment's (4095)",
		`{"categories":{},"consentVersion":1,"tcString":"` + tcAccept + `","gvlVersion":16}`:                                  "gvlVersion: 16, but the tcString says vendorListVersion 17",
		`{"categories":{},"consentVersion":1,"tcString":"` + tcAccept + `","acString":"2~7~dv.7"}`:                            "acString: provider 7 is not one of the site's",
		`{"categories":{},"consentVersion":1,"tcString":"` + tcAccept + `","acString":"1~89"}`:                                "acString: not an Additional Consent string v2",
		`{"categories":{},"consentVersion":1,"gvlVersion":17}`:                                                                "gvlVersion: only with a tcString",
	} {
		r := e.want(consent(body), 400, "validation_error")
		if !strings.Contains(string(r.body), msg) {
			t.Errorf("%s: the message does not say %q: %s", body, msg, r.body)
		}
	}
	e.want(consent(`{"categories":{"statistics":true,"marketing":true},"consentVersion":1,"action":"accept_all","tcString":"`+tcAccept+
		`","acString":"2~89.2822~dv.89.2822","gvlVersion":17}`), 201)
	e.want(consent(`{"categories":{},"consentVersion":1,"action":"reject_all","tcString":"`+tcReject+`","acString":"2~~dv.89.2822"}`), 201)
	recs := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records?limit=10", nil), 200).obj(t)["records"].([]any)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	reject, accept := recs[0].(map[string]any), recs[1].(map[string]any)
	if accept["tcString"] != tcAccept || accept["acString"] != "2~89.2822~dv.89.2822" || accept["gvlVersion"] != 17.0 ||
		reject["tcString"] != tcReject || reject["gvlVersion"] != 17.0 || recs[2].(map[string]any)["tcString"] != "" {
		t.Fatalf("records: %v", recs)
	}
	snap := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-snapshots/"+accept["snapshotHash"].(string), nil), 200).obj(t)
	if tcf, _ := snap["content"].(map[string]any)["tcf"].(map[string]any); tcf == nil || len(tcf["vendorIds"].([]any)) != 5 {
		t.Errorf("the snapshot lacks the site's TCF settings: %v", snap["content"])
	}
	rep := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records/verify", nil), 200).obj(t)
	if rep["ok"] != true || rep["records"].(float64) != 3 {
		t.Fatalf("verify: %v", rep)
	}
	export := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records/export?format=ndjson", nil), 200).body
	if err := thirdPartyCheck(export); err != nil {
		t.Fatalf("third-party check: %v", err)
	}
	forged := strings.Replace(string(export), tcReject, tcAccept, 1)
	if err := thirdPartyCheck([]byte(forged)); err == nil {
		t.Error("the third-party check accepts a record whose tcString was swapped")
	}
	csv := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records/export?format=csv", nil), 200).body
	if !strings.Contains(string(csv), "regionRule,tcString,acString,gvlVersion") || !strings.Contains(string(csv), tcAccept) {
		t.Errorf("the CSV lacks the TCF columns: %s", csv)
	}
}
