package httpapi_test

import (
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// TestBannerRegionRules: PATCH stores the rules (with their defaults) and GET returns them;
// invalid rules are 400s whose message names the field; the presets and the law are served;
// the public configuration says which rule applies to a visitor from France or Japan.
func TestBannerRegionRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	path := "/api/v1/sites/" + id + "/banner"
	if got := e.want(e.do("GET", path, nil), 200).obj(t)["regionRules"]; got == nil || len(got.([]any)) != 0 {
		t.Fatalf("a new banner's regionRules: %v", got)
	}
	for body, field := range map[string]string{
		`{"regionRules":[{"regions":["FR"],"defaultBehavior":"opt_in"},{"regions":["XX"],"defaultBehavior":"opt_in"}]}`: `regionRules[1].regions[0]: expected value to be one of \"*, AD,`, // the schema's enum, core.RegionCodes
		`{"regionRules":[{"regions":[],"defaultBehavior":"opt_in"}]}`:                                                   `regionRules[0].regions`,
		`{"regionRules":[{"regions":["FR"],"defaultBehavior":"gdpr"}]}`:                                                 `regionRules[0].defaultBehavior`,
		`{"regionRules":[{"regions":["FR"]}]}`:                                                                          `defaultBehavior`,
		`{"regionRules":[{"regions":["FR"],"defaultBehavior":"opt_in","gpc":true}]}`:                                    `gpc`,
	} {
		r := e.want(e.raw("PATCH", path, e.keyA, body), 400, "validation_error")
		if !strings.Contains(string(r.body), field) {
			t.Errorf("%s: the message does not name %s: %s", body, field, r.body)
		}
	}
	rules := []any{
		map[string]any{"regions": []any{"EU", "EEA", "GB", "CH"}, "defaultBehavior": "opt_in"},
		map[string]any{"regions": []any{"US-CA"}, "defaultBehavior": "opt_out"},
		map[string]any{"regions": []any{"*"}, "defaultBehavior": "no_banner", "honorGpc": false},
	}
	p := e.want(e.do("PATCH", path, map[string]any{"regionRules": rules}), 200).obj(t)
	got := p["regionRules"].([]any)
	if len(got) != 3 || got[1].(map[string]any)["doNotSellLink"] != true || got[1].(map[string]any)["honorGpc"] != true ||
		got[2].(map[string]any)["honorGpc"] != false || got[0].(map[string]any)["rejectOnFirstLayer"] != true {
		t.Fatalf("patched rules: %v", got)
	}
	if again := e.want(e.do("GET", path, nil), 200).obj(t)["regionRules"].([]any); len(again) != 3 {
		t.Fatalf("GET after PATCH: %v", again)
	}
	for country, want := range map[string][2]string{"FR": {"regionRules[0]", "gdpr"}, "JP": {"regionRules[2]", "none"}} {
		cfg := e.want(e.raw("GET", "/api/v1/public/"+pk+"/config", "", "", "X-Country", country), 200).obj(t)
		if cfg["rule"] != want[0] || cfg["jurisdiction"] != want[1] {
			t.Errorf("%s: config rule %v jurisdiction %v, want %v", country, cfg["rule"], cfg["jurisdiction"], want)
		}
	}
	presets := e.want(e.do("GET", "/api/v1/region-presets", nil), 200).obj(t)["presets"].([]any)
	if len(presets) != len(banner.RegionPresets()) || presets[0].(map[string]any)["id"] != banner.PresetGDPRUSLaws {
		t.Errorf("presets: %v", presets)
	}
	first := presets[0].(map[string]any)["regionRules"]
	e.want(e.do("PATCH", path, map[string]any{"regionRules": first}), 200)
	laws := e.want(e.do("GET", "/api/v1/region-laws", nil), 200).obj(t)
	if len(laws["usStates"].([]any)) != len(core.USStateLaws()) || len(laws["groups"].([]any)) != len(core.RegionGroups()) {
		t.Errorf("region laws: %v", laws)
	}
}

// TestRegionRecordsVerify: records made before and after a banner got regional rules share one
// chain that verifies, and a third party checks an export of both kinds (v1 and v2 lines) from
// docs/consent-records.md alone; editing a record's regionRule breaks the check.
func TestRegionRecordsVerify(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	post := func(country string) {
		e.want(e.raw("POST", "/api/v1/public/"+pk+"/consent", "", `{"categories":{"statistics":true},"consentVersion":1}`,
			"X-Country", country, "Content-Type", "application/json"), 201)
	}
	post("FR")
	post("US")
	e.want(e.do("PATCH", "/api/v1/sites/"+id+"/banner", map[string]any{"regionRules": []any{
		map[string]any{"regions": []any{"EU"}, "defaultBehavior": "opt_in"},
		map[string]any{"regions": []any{"US"}, "defaultBehavior": "opt_out"},
	}}), 200)
	post("FR")
	post("US")
	post("JP")
	rep := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records/verify", nil), 200).obj(t)
	if rep["ok"] != true || rep["records"].(float64) != 5 {
		t.Fatalf("verify: %v", rep)
	}
	export := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records/export?format=ndjson", nil), 200).body
	if err := thirdPartyCheck(export); err != nil {
		t.Fatalf("third-party check: %v", err)
	}
	for _, want := range []string{`"regionRule":"regionRules[0]"`, `"regionRule":"regionRules[1]"`, `"regionRule":"defaultBehavior"`, `"regionRule":""`} {
		if !strings.Contains(string(export), want) {
			t.Errorf("the export lacks %s", want)
		}
	}
	forged := strings.Replace(string(export), `"regionRule":"regionRules[1]"`, `"regionRule":"regionRules[0]"`, 1)
	if err := thirdPartyCheck([]byte(forged)); err == nil {
		t.Error("the third-party check accepts an edited regionRule")
	}
	csv := e.want(e.do("GET", "/api/v1/sites/"+id+"/consent-records/export?format=csv", nil), 200).body
	if !strings.Contains(string(csv), "prevBatchHash,region,regionRule") {
		t.Errorf("the CSV header lacks region and regionRule: %s", csv)
	}
}
