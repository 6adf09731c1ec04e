package httpapi_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/core"
)

// schemaLimits is every limit the served OpenAPI document states, keyed "where keyword", and
// the core constant it must equal. A limit in the document that is missing here fails the
// test as surely as one that differs: struct tags hardcode numbers, and this table is what
// keeps them equal to core.
var schemaLimits = map[string]any{
	"SiteCreateBody.name minLength":                               1, // non-empty
	"ApiKeyCreateBody.name maxLength":                             core.MaxAPIKeyName,
	"ApiKeyCreateBody.siteIds minItems":                           1,
	"ApiKeyCreateBody.siteIds maxItems":                           core.MaxAPIKeySites,
	"ApiKeyRotateBody.graceSeconds minimum":                       0,
	"ApiKeyRotateBody.graceSeconds maximum":                       int(core.MaxRotateGrace.Seconds()),
	"SiteCreateBody.name maxLength":                               core.MaxSiteName,
	"SiteCreateBody.url maxLength":                                core.MaxURL,
	"SitePatchBody.name minLength":                                1,
	"SitePatchBody.name maxLength":                                core.MaxSiteName,
	"SitePatchBody.url maxLength":                                 core.MaxURL,
	"BannerPatchBody.logoUrl maxLength":                           core.MaxURL,
	"TcfIn.vendorIds maxItems":                                    core.MaxTCFVendors,
	"TcfIn.publisherRestrictions maxItems":                        core.MaxTCFRestrictions,
	"TcfIn.googleAtpIds maxItems":                                 core.MaxGoogleATPs,
	"TcfIn.publisherCountryCode pattern":                          core.CountryCodePattern,
	"BannerPatchBody.privacyPolicyUrl maxLength":                  core.MaxURL,
	"BannerPatchBody.cookiePolicyUrl maxLength":                   core.MaxURL,
	"BannerPatchBody.cookieExpirationDays minimum":                core.MinCookieExpiration,
	"BannerPatchBody.cookieExpirationDays maximum":                core.MaxCookieExpiration,
	"BannerPatchBody.regionRules maxItems":                        core.MaxRegionRules,
	"RegionRuleIn.regions minItems":                               1,
	"RegionRuleIn.regions maxItems":                               core.MaxRuleRegions,
	"ColorsIn.primary minLength":                                  1,
	"ColorsIn.background minLength":                               1,
	"ColorsIn.text minLength":                                     1,
	"ColorsIn.acceptButton minLength":                             1,
	"ColorsIn.rejectButton minLength":                             1,
	"CategoryCreateBody.name minLength":                           1,
	"CategoryCreateBody.name maxLength":                           core.MaxCategoryName,
	"CategoryCreateBody.description maxLength":                    core.MaxCategoryDescription,
	"CategoryCreateBody.nameTranslations.* maxLength":             core.MaxTranslation,
	"CategoryCreateBody.descriptionTranslations.* maxLength":      core.MaxTranslation,
	"CategoryPatchBody.name minLength":                            1,
	"CategoryPatchBody.name maxLength":                            core.MaxCategoryName,
	"CategoryPatchBody.description maxLength":                     core.MaxCategoryDescription,
	"CategoryPatchBody.sortOrder minimum":                         0,
	"CategoryPatchBody.sortOrder maximum":                         core.MaxSortOrder,
	"CategoryPatchBody.nameTranslations.* maxLength":              core.MaxTranslation,
	"CategoryPatchBody.descriptionTranslations.* maxLength":       core.MaxTranslation,
	"ServiceCreateBody.slug minLength":                            1,
	"ServiceCreateBody.slug maxLength":                            core.MaxSlug,
	"ServiceCreateBody.slug pattern":                              core.SlugPattern,
	"ServiceCreateBody.label minLength":                           1,
	"ServiceCreateBody.label maxLength":                           core.MaxServiceLabel,
	"ServiceCreateBody.categorySlug minLength":                    1,
	"ServiceCreateBody.categorySlug maxLength":                    core.MaxCategorySlug,
	"ServiceCreateBody.description maxLength":                     core.MaxServiceDescription,
	"ServiceCreateBody.serviceUrl maxLength":                      core.MaxURL,
	"ServiceCreateBody.cookies maxItems":                          core.MaxServiceCookies,
	"ServiceCreateBody.labelTranslations.* maxLength":             core.MaxTranslation,
	"ServiceCreateBody.descriptionTranslations.* maxLength":       core.MaxTranslation,
	"CookieIn.name minLength":                                     1,
	"CookieIn.name maxLength":                                     core.MaxCookieName,
	"CookieIn.duration minLength":                                 1,
	"CookieIn.duration maxLength":                                 core.MaxCookieDuration,
	"CookieIn.description maxLength":                              core.MaxCookieDescription,
	"CookieIn.descriptionTranslations.* maxLength":                core.MaxTranslation,
	"ServiceImportBody.slug minLength":                            1,
	"ServiceImportBody.slug maxLength":                            core.MaxSlug,
	"ServiceImportBody.categorySlug minLength":                    1,
	"ServiceImportBody.categorySlug maxLength":                    core.MaxCategorySlug,
	"ScanTriggerBody.url maxLength":                               core.MaxURL,
	"ScanTriggerBody.urls maxItems":                               core.MaxScanURLs,
	"ScanTriggerBody.storefrontPassword minLength":                1,
	"ScanTriggerBody.storefrontPassword maxLength":                core.MaxPasswordSize,
	"ConsentBody.visitorId minLength":                             1,
	"ConsentBody.visitorId maxLength":                             core.MaxVisitorID,
	"ConsentBody.consentVersion minimum":                          1,
	"ConsentBody.consentVersion maximum":                          core.MaxConsentVersion,
	"GET /library/services query:q maxLength":                     core.MaxSearchQuery,
	"GET /public/{projectKey}/config path:projectKey maxLength":   core.MaxProjectKey,
	"POST /public/{projectKey}/consent path:projectKey maxLength": core.MaxProjectKey,
	"GET /sites/{id}/consent-records query:page minimum":          1,
	"GET /audit-log query:limit minimum":                          1,
	"GET /audit-log query:limit maximum":                          core.MaxAuditLimit,
	"GET /audit-log query:siteId maxLength":                       core.MaxAuditFilter,
	"GET /audit-log query:actor maxLength":                        core.MaxAuditFilter,
	"GET /audit-log query:cursor maxLength":                       core.MaxAuditFilter,
	"GET /sites/{id}/consent-records query:page maximum":          core.MaxConsentPage,
	"GET /sites/{id}/consent-records query:limit minimum":         1,
	"GET /sites/{id}/consent-records query:limit maximum":         core.MaxConsentLimit,

	// Public endpoints of the banner runtime (docs/banner.md).
	"GET /public/{projectKey}/cookies path:projectKey maxLength":            core.MaxProjectKey,
	"GET /public/{projectKey}/declaration path:projectKey maxLength":        core.MaxProjectKey,
	"GET /public/{projectKey}/loader.js path:projectKey maxLength":          core.MaxProjectKey,
	"GET /public/{projectKey}/config header:Accept-Language maxLength":      core.MaxAcceptLanguage,
	"GET /public/{projectKey}/cookies header:Accept-Language maxLength":     core.MaxAcceptLanguage,
	"GET /public/{projectKey}/declaration header:Accept-Language maxLength": core.MaxAcceptLanguage,
	"GET /public/{projectKey}/tcf path:projectKey maxLength":                core.MaxProjectKey,
	"GET /public/{projectKey}/tcf header:Accept-Language maxLength":         core.MaxAcceptLanguage,
	"GET /public/{projectKey}/loader.js header:Accept-Language maxLength":   core.MaxAcceptLanguage,

	// Proof of consent (docs/consent-records.md).
	"ConsentBody.language maxLength":                            core.MaxLanguageKey,
	"ConsentBody.pageUrl maxLength":                             core.MaxURL,
	"ConsentBody.tcString maxLength":                            core.MaxTCString,
	"ConsentBody.gppString maxLength":                           core.MaxGPPString,
	"ConsentBody.acString maxLength":                            core.MaxACString,
	"ConsentBody.tcString pattern":                              core.TCStringPattern,
	"ConsentBody.acString pattern":                              core.ACStringPattern,
	"ConsentBody.gppString pattern":                             core.GPPStringPattern,
	"ConsentBody.gvlVersion minimum":                            1,
	"ConsentBody.gvlVersion maximum":                            core.MaxGVLVersion,
	"ConsentBody.runtimeVersion maxLength":                      core.MaxRuntimeVersion,
	"ConsentBody.runtimeVersion pattern":                        core.RuntimeVersionPattern,
	"BannerPatchBody.cookieDomain maxLength":                    core.MaxDomain,
	"BannerPatchBody.cookieDomain pattern":                      core.DomainPattern,
	"GET /audit-log query:from pattern":                         httpapi.DatePattern,
	"GET /sites/{id}/consent-stats query:from pattern":          httpapi.DatePattern,
	"GET /sites/{id}/consent-stats query:to pattern":            httpapi.DatePattern,
	"GET /audit-log query:to pattern":                           httpapi.DatePattern,
	"GET /sites/{id}/consent-records query:from pattern":        httpapi.DatePattern,
	"GET /sites/{id}/consent-records query:to pattern":          httpapi.DatePattern,
	"GET /sites/{id}/consent-records/export query:from pattern": httpapi.DatePattern,
	"GET /sites/{id}/consent-records/export query:to pattern":   httpapi.DatePattern,

	"DELETE /sites/{id}/visitors/{visitorId} path:visitorId maxLength": core.MaxVisitorID,
	"GET /sites/{id}/consent-records query:cursor maxLength":           core.MaxConsentCursor,
	"GET /sites/{id}/consent-records query:visitorId maxLength":        core.MaxVisitorID,
	"GET /sites/{id}/consent-records/export query:visitorId maxLength": core.MaxVisitorID,
	"GET /sites/{id}/consent-snapshots/{hash} path:hash maxLength":     core.HashHexLength,

	// Webhooks (docs/webhooks.md).
	"WebhookCreateBody.url maxLength":                                                 core.MaxURL,
	"WebhookCreateBody.description maxLength":                                         core.MaxWebhookDescription,
	"WebhookCreateBody.events minItems":                                               1,
	"WebhookCreateBody.events maxItems":                                               len(core.EventTypes()),
	"WebhookPatchBody.url maxLength":                                                  core.MaxURL,
	"WebhookPatchBody.description maxLength":                                          core.MaxWebhookDescription,
	"WebhookPatchBody.events minItems":                                                1,
	"WebhookPatchBody.events maxItems":                                                len(core.EventTypes()),
	"SitePatchBody.digestEmails maxItems":                                             core.MaxDigestEmails,
	"GET /unsubscribe/{token} path:token maxLength":                                   core.MaxUnsubscribeToken,
	"POST /unsubscribe/{token} path:token maxLength":                                  core.MaxUnsubscribeToken,
	"GET /webhooks/{id}/deliveries query:page minimum":                                1,
	"GET /webhooks/{id}/deliveries query:page maximum":                                core.MaxConsentPage,
	"GET /webhooks/{id}/deliveries query:limit minimum":                               1,
	"GET /webhooks/{id}/deliveries query:limit maximum":                               core.MaxDeliveryListLimit,
	"GET /webhooks/{id}/deliveries/{deliveryId} path:deliveryId maxLength":            core.MaxDeliveryID,
	"POST /webhooks/{id}/deliveries/{deliveryId}/redeliver path:deliveryId maxLength": core.MaxDeliveryID,

	// Single sign-on (docs/teams.md).
	"SsoPutBody.issuer maxLength":           core.MaxURL,
	"SsoPutBody.clientId minLength":         1,
	"SsoPutBody.clientId maxLength":         core.MaxSSOField,
	"SsoPutBody.clientSecret minLength":     1,
	"SsoPutBody.clientSecret maxLength":     core.MaxSSOField,
	"SsoPutBody.allowedDomains minItems":    1,
	"SsoPutBody.allowedDomains maxItems":    core.MaxSSODomains,
	"SsoPutBody.allowedDomains[] pattern":   core.EmailDomainPattern,
	"SsoPutBody.allowedDomains[] maxLength": core.MaxDomain,
}

var limitKeywords = []string{"maxLength", "minLength", "maxItems", "minItems", "maximum", "minimum",
	"exclusiveMaximum", "exclusiveMinimum", "maxProperties", "minProperties", "pattern"}

// collectLimits adds every limit keyword of schema (and its properties, map values and items)
// to out under "where keyword".
func collectLimits(where string, s map[string]any, out map[string]any) {
	for _, k := range limitKeywords {
		if v, ok := s[k]; ok {
			out[where+" "+k] = v
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for n, p := range props {
			collectLimits(where+"."+n, p.(map[string]any), out)
		}
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		collectLimits(where+".*", ap, out)
	}
	if it, ok := s["items"].(map[string]any); ok {
		collectLimits(where+"[]", it, out)
	}
}

// TestSchemaLimitsAreCore: every limit of the served OpenAPI document equals its core constant,
// and every constant of the table is in the document.
func TestSchemaLimitsAreCore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var doc map[string]any
	if err := json.Unmarshal(e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).body, &doc); err != nil {
		t.Fatal(err)
	}
	served := map[string]any{}
	for name, s := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
		collectLimits(name, s.(map[string]any), served)
	}
	for p, item := range doc["paths"].(map[string]any) {
		for method, o := range item.(map[string]any) {
			op, ok := o.(map[string]any)
			if !ok {
				continue
			}
			for _, prm := range asSlice(op["parameters"]) {
				prm := prm.(map[string]any)
				if s, ok := prm["schema"].(map[string]any); ok {
					collectLimits(fmt.Sprintf("%s %s %s:%s", upper(method), p, prm["in"], prm["name"]), s, served)
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
		want, ok := schemaLimits[k]
		if !ok {
			t.Errorf("%s = %v in the document has no core constant in schemaLimits", k, served[k])
			continue
		}
		if norm(served[k]) != norm(want) {
			t.Errorf("%s = %v in the document, core says %v", k, served[k], want)
		}
	}
	for k := range schemaLimits {
		if _, ok := served[k]; !ok {
			t.Errorf("%s (core %v) is not in the document", k, schemaLimits[k])
		}
	}
	// the pattern the document states is the one enforced
	id, _ := e.site()
	r := e.want(e.do("POST", "/api/v1/sites/"+id+"/services", map[string]any{"slug": "Not_A_Slug", "label": "L", "categorySlug": "marketing"}), 400, "validation_error")
	if !strings.Contains(string(r.body), "slug") {
		t.Errorf("message does not name slug: %s", r.body)
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func init() {
	// every banner text, overridden or translated, is limited like a translation
	for _, k := range core.TextKeys() {
		schemaLimits["BannerPatchBody.textOverrides."+k+" maxLength"] = core.MaxTranslation
		schemaLimits["BannerPatchBody.textTranslations.*."+k+" maxLength"] = core.MaxTranslation
	}
}

// norm makes a JSON number and a Go integer constant compare equal.
func norm(v any) string {
	switch n := v.(type) {
	case float64:
		return fmt.Sprintf("%.0f", n)
	case int:
		return fmt.Sprint(n)
	}
	return fmt.Sprint(v)
}
