package httpapi_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/consentd/consentd/core/experiment"

	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/internal/response"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/analytics"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/gpp"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/library"
)

// schemaEnums is every enum the served OpenAPI document states, keyed "where" as schemaLimits
// keys its limits, and the list it must equal, in order: core's (or the library's) where the
// domain owns the values, this package's where the API does (the snippet's frameworks, the
// export's formats). An enum in the document that is missing here fails the test as surely as
// one that differs: struct tags restate lists, and this table keeps them equal to their source.
var schemaEnums = map[string][]string{
	"BannerPatchBody.template":            banner.Templates(),
	"VariantPatchBody.template":           banner.Templates(),
	"VariantPatchBody.position":           banner.Positions(),
	"ExperimentCreateBody.metric":         experiment.Metrics(),
	"BannerPatchBody.position":            banner.Positions(),
	"BannerPatchBody.defaultBehavior":     banner.DefaultBehaviors(),
	"BannerPatchBody.closeButtonBehavior": banner.CloseButtonBehaviors(),
	"BannerPatchBody.reopenPosition":      banner.ReopenPositions(),
	"BannerPatchBody.consentMode":         banner.ConsentModes(),
	"RegionRuleIn.defaultBehavior":        banner.DefaultBehaviors(),
	"RuleVerification.behavior":           banner.DefaultBehaviors(),
	"RulePlace.behavior":                  banner.DefaultBehaviors(),
	"RuleResult.behavior":                 banner.DefaultBehaviors(),
	"RegionRuleIn.regions[]":              core.RegionCodes(),
	"ExperimentCreateBody.regions[]":      core.RegionCodes(),
	"GppIn.mspaMode":                      gpp.MSPAModes(),
	"GPPSettings.mspaMode":                gpp.MSPAModes(),
	"GppIn.approach":                      gpp.Approaches(),
	"GPPSettings.approach":                gpp.Approaches(),
	"ConsentBody.action":                  consent.ConsentActions(),
	"ScanTriggerBody.mode":                core.ScanModes(),
	"Scan.mode":                           core.ScanModes(),
	"SitePatchBody.scanSchedule":          scan.ScanSchedules(),
	"SitePatchBody.verifySchedule":        scan.VerifySchedules(),
	"SiteOut.scanSchedule":                scan.ScanSchedules(),
	"SiteOut.verifySchedule":              scan.VerifySchedules(),
	"LibrarySummary.category":             library.Categories(),
	"LibraryDetail.category":              library.Categories(),
	"ErrorDetail.code":                    codeStrings(),
	"APIKeyOut.role":                      core.RoleNames(),
	"APIKeyCreatedOut.role":               core.RoleNames(),
	"APIKeyRotatedOut.role":               core.RoleNames(),
	"ApiKeyCreateBody.role":               core.RoleNames(),
	"SsoPutBody.defaultRole":              identity.SSORoleNames(),
	"WebhookCreateBody.events[]":          event.EventTypes(),
	"WebhookPatchBody.events[]":           event.EventTypes(),
	"Finding.severity":                    scan.Severities(),
	"ComplianceReport.verdict":            scan.Verdicts(),
	"Verification.banner":                 core.VerifiedBanners(),
	"WebhookDelivery.status":              event.DeliveryStatuses(),
	"Snippet.framework":                   response.SnippetFrameworks(),
	"ChangedCookie.kind":                  core.StorageKinds(),
	"UnrecognizedCookie.kind":             core.StorageKinds(),
	"VerifiedStorage.kind":                core.StorageKinds(),
	"VendorConsent.kind":                  banner.VendorCallKinds(),

	"GET /sites/{id}/setup-snippet query:framework":       response.SnippetFrameworks(),
	"GET /sites/{id}/consent-records/export query:format": httpapi.ExportFormats,
	"GET /sites/{id}/consent-stats query:interval":        consent.StatsIntervals(),
	"GET /sites/{id}/analytics query:interval":            consent.StatsIntervals(),
	"GET /sites/{id}/analytics query:device":              analytics.Devices(),
	"GET /sites/{id}/analytics/export query:interval":     consent.StatsIntervals(),
	"GET /sites/{id}/analytics/export query:device":       analytics.Devices(),
	"GET /audit-log query:action":                         core.AuditActions(),
}

func codeStrings() []string {
	var out []string
	for _, c := range core.Codes() {
		out = append(out, string(c))
	}
	return out
}

// collectEnums adds every enum of schema (and of its properties, map values and items) to
// out under where.
func collectEnums(where string, s map[string]any, out map[string][]string) {
	if e, ok := s["enum"].([]any); ok {
		var vals []string
		for _, v := range e {
			vals = append(vals, fmt.Sprint(v))
		}
		out[where] = vals
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for n, p := range props {
			collectEnums(where+"."+n, p.(map[string]any), out)
		}
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		collectEnums(where+".*", ap, out)
	}
	if it, ok := s["items"].(map[string]any); ok {
		collectEnums(where+"[]", it, out)
	}
}

// TestSchemaEnumsAreCore: every enum of the served OpenAPI document equals, in order, the list
// it restates, and every entry of the table is in the document.
func TestSchemaEnumsAreCore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var doc map[string]any
	if err := json.Unmarshal(e.want(e.raw("GET", core.APIPrefix+"/openapi.json", "", ""), 200).body, &doc); err != nil {
		t.Fatal(err)
	}
	served := map[string][]string{}
	for name, s := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
		collectEnums(name, s.(map[string]any), served)
	}
	for p, item := range doc["paths"].(map[string]any) {
		for method, o := range item.(map[string]any) {
			op, ok := o.(map[string]any)
			if !ok {
				continue
			}
			params, _ := op["parameters"].([]any)
			for _, prm := range params {
				prm := prm.(map[string]any)
				if s, ok := prm["schema"].(map[string]any); ok {
					collectEnums(fmt.Sprintf("%s %s %s:%s", strings.ToUpper(method), p, prm["in"], prm["name"]), s, served)
				}
			}
		}
	}
	keys := make([]string, 0, len(served))
	for k := range served {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want, ok := schemaEnums[k]
		if !ok {
			t.Errorf("%s = %v in the document has no list in schemaEnums", k, served[k])
			continue
		}
		if !slices.Equal(served[k], want) {
			t.Errorf("%s = %v in the document, its list says %v", k, served[k], want)
		}
	}
	for k := range schemaEnums {
		if _, ok := served[k]; !ok {
			t.Errorf("%s (%v) is not in the document", k, schemaEnums[k])
		}
	}
}

// TestLanguageKeyRule: the API refuses a translation in a language key of another shape than
// core.LanguagePattern, as the console does, and takes one of that shape.
func TestLanguageKeyRule(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, key := e.site()
	path := core.APIPrefix + "/sites/" + id
	for _, lang := range []string{"de_DE", "German"} {
		r := e.want(e.do("PATCH", path+"/banner", map[string]any{"textTranslations": map[string]any{lang: map[string]any{"headline": "Hallo"}}}), 400, "validation_error")
		if !strings.Contains(string(r.body), lang) {
			t.Errorf("the message does not name %s: %s", lang, r.body)
		}
		e.want(e.do("POST", path+"/categories", map[string]any{"name": "Extra " + lang, "nameTranslations": map[string]any{lang: "Mehr"}}), 400, "validation_error")
	}
	e.want(e.do("PATCH", path+"/banner", map[string]any{"textTranslations": map[string]any{"pt-BR": map[string]any{"headline": "Olá"}}}), 200)
	// the language a visitor asks for is only bounded: a malformed page language falls back
	e.want(e.raw("GET", core.PublicPath(key, core.PublicConfigPath)+"?lang=de_DE", "", ""), 200)
}
