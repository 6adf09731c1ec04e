package httpapi_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/consentd/consentd/core/experiment"

	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/analytics"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/gpp"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/watch"
)

// schemaLimits is every limit the served OpenAPI document states, keyed "where keyword", and
// the core constant it must equal. A limit in the document that is missing here fails the
// test as surely as one that differs: struct tags hardcode numbers, and this table is what
// keeps them equal to core.
var schemaLimits = map[string]any{
	"SiteCreateBody.name minLength":                               1, // non-empty
	"ApiKeyCreateBody.name maxLength":                             identity.MaxAPIKeyName,
	"ApiKeyCreateBody.siteIds minItems":                           1,
	"ApiKeyCreateBody.siteIds maxItems":                           identity.MaxAPIKeySites,
	"ApiKeyRotateBody.graceSeconds minimum":                       0,
	"ApiKeyRotateBody.graceSeconds maximum":                       int(identity.MaxRotateGrace.Seconds()),
	"SiteCreateBody.name maxLength":                               core.MaxSiteName,
	"SiteCreateBody.url maxLength":                                core.MaxURL,
	"SitePatchBody.name minLength":                                1,
	"SitePatchBody.name maxLength":                                core.MaxSiteName,
	"SitePatchBody.url maxLength":                                 core.MaxURL,
	"BannerPatchBody.logoUrl maxLength":                           core.MaxURL,
	"TcfIn.vendorIds maxItems":                                    tcf.MaxTCFVendors,
	"TcfIn.publisherRestrictions maxItems":                        tcf.MaxTCFRestrictions,
	"TcfIn.googleAtpIds maxItems":                                 tcf.MaxGoogleATPs,
	"TcfIn.publisherCountryCode pattern":                          tcf.CountryCodePattern,
	"BannerPatchBody.privacyPolicyUrl maxLength":                  core.MaxURL,
	"BannerPatchBody.cookiePolicyUrl maxLength":                   core.MaxURL,
	"BannerPatchBody.cookieExpirationDays minimum":                banner.MinCookieExpiration,
	"BannerPatchBody.cookieExpirationDays maximum":                banner.MaxCookieExpiration,
	"RegionRuleIn.reaskAfterRejectDays minimum":                   banner.MinReask,
	"RegionRuleIn.reaskAfterRejectDays maximum":                   banner.MaxReask,
	"BannerPatchBody.regionRules maxItems":                        banner.MaxRegionRules,
	"RegionRuleIn.regions minItems":                               1,
	"RegionRuleIn.regions maxItems":                               banner.MaxRuleRegions,
	"ColorsIn.primary minLength":                                  1,
	"ColorsIn.background minLength":                               1,
	"ColorsIn.text minLength":                                     1,
	"ColorsIn.acceptButton minLength":                             1,
	"ColorsIn.rejectButton minLength":                             1,
	"CategoryCreateBody.name minLength":                           1,
	"CategoryCreateBody.name maxLength":                           banner.MaxCategoryName,
	"CategoryCreateBody.description maxLength":                    banner.MaxCategoryDescription,
	"CategoryCreateBody.nameTranslations.* maxLength":             banner.MaxTranslation,
	"CategoryCreateBody.descriptionTranslations.* maxLength":      banner.MaxTranslation,
	"CategoryPatchBody.name minLength":                            1,
	"CategoryPatchBody.name maxLength":                            banner.MaxCategoryName,
	"CategoryPatchBody.description maxLength":                     banner.MaxCategoryDescription,
	"CategoryPatchBody.sortOrder minimum":                         0,
	"CategoryPatchBody.sortOrder maximum":                         core.MaxSortOrder,
	"CategoryPatchBody.nameTranslations.* maxLength":              banner.MaxTranslation,
	"CategoryPatchBody.descriptionTranslations.* maxLength":       banner.MaxTranslation,
	"ServiceCreateBody.slug minLength":                            1,
	"ServiceCreateBody.slug maxLength":                            banner.MaxSlug,
	"ServiceCreateBody.slug pattern":                              core.SlugPattern,
	"ServiceCreateBody.label minLength":                           1,
	"ServiceCreateBody.label maxLength":                           banner.MaxServiceLabel,
	"ServiceCreateBody.categorySlug minLength":                    1,
	"ServiceCreateBody.categorySlug maxLength":                    banner.MaxCategorySlug,
	"ServiceCreateBody.description maxLength":                     banner.MaxServiceDescription,
	"ServiceCreateBody.serviceUrl maxLength":                      core.MaxURL,
	"ServiceCreateBody.cookies maxItems":                          banner.MaxServiceCookies,
	"ServiceCreateBody.labelTranslations.* maxLength":             banner.MaxTranslation,
	"ServiceCreateBody.descriptionTranslations.* maxLength":       banner.MaxTranslation,
	"CookieIn.name minLength":                                     1,
	"CookieIn.name maxLength":                                     banner.MaxCookieName,
	"CookieIn.duration minLength":                                 1,
	"CookieIn.duration maxLength":                                 banner.MaxCookieDuration,
	"CookieIn.description maxLength":                              banner.MaxCookieDescription,
	"CookieIn.descriptionTranslations.* maxLength":                banner.MaxTranslation,
	"ServiceImportBody.slug minLength":                            1,
	"ServiceImportBody.slug maxLength":                            banner.MaxSlug,
	"ServiceImportBody.categorySlug minLength":                    1,
	"ServiceImportBody.categorySlug maxLength":                    banner.MaxCategorySlug,
	"ScanTriggerBody.url maxLength":                               core.MaxURL,
	"ScanTriggerBody.urls maxItems":                               scan.MaxScanURLs,
	"ScanTriggerBody.storefrontPassword minLength":                1,
	"ScanTriggerBody.storefrontPassword maxLength":                scan.MaxPasswordSize,
	"ConsentBody.visitorId minLength":                             1,
	"ConsentBody.visitorId maxLength":                             consent.MaxVisitorID,
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
	"GET /sites/{id}/consent-records query:limit maximum":         consent.MaxConsentLimit,

	// Public endpoints of the banner runtime (docs/banner.md).
	"GET /public/{projectKey}/cookies path:projectKey maxLength":            core.MaxProjectKey,
	"GET /public/{projectKey}/declaration path:projectKey maxLength":        core.MaxProjectKey,
	"GET /public/{projectKey}/loader.js path:projectKey maxLength":          core.MaxProjectKey,
	"GET /public/{projectKey}/edge path:projectKey maxLength":               core.MaxProjectKey,
	"GET /public/{projectKey}/config header:Accept-Language maxLength":      core.MaxAcceptLanguage,
	"GET /public/{projectKey}/cookies header:Accept-Language maxLength":     core.MaxAcceptLanguage,
	"GET /public/{projectKey}/declaration header:Accept-Language maxLength": core.MaxAcceptLanguage,
	"GET /public/{projectKey}/tcf path:projectKey maxLength":                core.MaxProjectKey,
	"GET /public/{projectKey}/tcf header:Accept-Language maxLength":         core.MaxAcceptLanguage,
	"GET /public/{projectKey}/loader.js header:Accept-Language maxLength":   core.MaxAcceptLanguage,

	// Proof of consent (docs/consent-records.md).
	"ConsentBody.language maxLength":                            banner.MaxLanguageKey,
	"ConsentBody.pageUrl maxLength":                             core.MaxURL,
	"ConsentBody.tcString maxLength":                            core.MaxTCString,
	"ConsentBody.gppString maxLength":                           gpp.MaxGPPString,
	"ConsentBody.acString maxLength":                            core.MaxACString,
	"ConsentBody.tcString pattern":                              tcf.TCStringPattern,
	"ConsentBody.acString pattern":                              tcf.ACStringPattern,
	"ConsentBody.gppString pattern":                             gpp.GPPStringPattern,
	"ConsentBody.key pattern":                                   consent.IdempotencyKeyPattern,
	"ConsentBody.variant pattern":                               experiment.VariantIDPattern,
	"ConsentBody.variant maxLength":                             experiment.MaxVariantID,
	"ConsentBody.key minLength":                                 consent.MinIdempotencyKey,
	"ConsentBody.key maxLength":                                 consent.MaxIdempotencyKey,
	"ConsentBody.gvlVersion minimum":                            1,
	"ConsentBody.gvlVersion maximum":                            core.MaxGVLVersion,
	"ConsentBody.runtimeVersion maxLength":                      consent.MaxRuntimeVersion,
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

	"DELETE /sites/{id}/visitors/{visitorId} path:visitorId maxLength": consent.MaxVisitorID,
	"GET /sites/{id}/consent-records query:cursor maxLength":           consent.MaxConsentCursor,
	"GET /sites/{id}/consent-records query:visitorId maxLength":        consent.MaxVisitorID,
	"GET /sites/{id}/consent-records/export query:visitorId maxLength": consent.MaxVisitorID,
	"GET /sites/{id}/consent-snapshots/{hash} path:hash maxLength":     core.HashHexLength,

	// Experiments (core/experiment, docs/experiments.md).
	"ExperimentCreateBody.name minLength":     1,
	"ExperimentCreateBody.name maxLength":     experiment.MaxName,
	"ExperimentCreateBody.regions maxItems":   experiment.MaxRegions,
	"ExperimentCreateBody.variants minItems":  experiment.MinVariants,
	"ExperimentCreateBody.variants maxItems":  experiment.MaxVariants,
	"VariantBody.key pattern":                 experiment.KeyPattern,
	"VariantBody.name maxLength":              experiment.MaxName,
	"VariantBody.weight minimum":              1,
	"VariantBody.weight maximum":              experiment.TotalWeight - 1,
	"ExperimentPromoteBody.variant minLength": 1,
	"ExperimentPromoteBody.variant maxLength": experiment.MaxKey,
	// Analytics (docs/analytics.md).
	"POST /public/{projectKey}/events path:projectKey maxLength": core.MaxProjectKey,
	"GET /sites/{id}/analytics query:country pattern":            analytics.CountryPattern,
	"GET /sites/{id}/analytics query:from pattern":               httpapi.DatePattern,
	"GET /sites/{id}/analytics query:to pattern":                 httpapi.DatePattern,
	"GET /sites/{id}/analytics query:language maxLength":         banner.MaxLanguageKey,
	"GET /sites/{id}/analytics query:variant pattern":            analytics.VariantPattern,
	"GET /sites/{id}/analytics/export query:country pattern":     analytics.CountryPattern,
	"GET /sites/{id}/analytics/export query:from pattern":        httpapi.DatePattern,
	"GET /sites/{id}/analytics/export query:to pattern":          httpapi.DatePattern,
	"GET /sites/{id}/analytics/export query:language maxLength":  banner.MaxLanguageKey,
	"GET /sites/{id}/analytics/export query:variant pattern":     analytics.VariantPattern,

	// Webhooks (docs/webhooks.md).
	"WebhookCreateBody.url maxLength":                                                 core.MaxURL,
	"WebhookCreateBody.description maxLength":                                         watch.MaxWebhookDescription,
	"WebhookCreateBody.events minItems":                                               1,
	"WebhookCreateBody.events maxItems":                                               len(event.EventTypes()),
	"WebhookPatchBody.url maxLength":                                                  core.MaxURL,
	"WebhookPatchBody.description maxLength":                                          watch.MaxWebhookDescription,
	"WebhookPatchBody.events minItems":                                                1,
	"WebhookPatchBody.events maxItems":                                                len(event.EventTypes()),
	"SitePatchBody.digestEmails maxItems":                                             watch.MaxDigestEmails,
	"GET /unsubscribe/{token} path:token maxLength":                                   watch.MaxUnsubscribeToken,
	"POST /unsubscribe/{token} path:token maxLength":                                  watch.MaxUnsubscribeToken,
	"GET /webhooks/{id}/deliveries query:page minimum":                                1,
	"GET /webhooks/{id}/deliveries query:page maximum":                                core.MaxConsentPage,
	"GET /webhooks/{id}/deliveries query:limit minimum":                               1,
	"GET /webhooks/{id}/deliveries query:limit maximum":                               event.MaxDeliveryListLimit,
	"GET /webhooks/{id}/deliveries/{deliveryId} path:deliveryId maxLength":            watch.MaxDeliveryID,
	"POST /webhooks/{id}/deliveries/{deliveryId}/redeliver path:deliveryId maxLength": watch.MaxDeliveryID,

	// Single sign-on (docs/teams.md).
	"SsoPutBody.issuer maxLength":           core.MaxURL,
	"SsoPutBody.clientId minLength":         1,
	"SsoPutBody.clientId maxLength":         identity.MaxSSOField,
	"SsoPutBody.clientSecret minLength":     1,
	"SsoPutBody.clientSecret maxLength":     identity.MaxSSOField,
	"SsoPutBody.allowedDomains minItems":    1,
	"SsoPutBody.allowedDomains maxItems":    identity.MaxSSODomains,
	"SsoPutBody.allowedDomains[] pattern":   identity.EmailDomainPattern,
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
	for _, k := range banner.TextKeys() {
		schemaLimits["BannerPatchBody.textOverrides."+k+" maxLength"] = banner.MaxTranslation
		schemaLimits["BannerPatchBody.textTranslations.*."+k+" maxLength"] = banner.MaxTranslation
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
