// Package formlimits gives the console's form fields their HTML limits (maxlength, max, min,
// pattern) from core's, so that a form never allows what the API refuses or refuses what it
// allows. They are the console's template functions max, min and pattern.
package formlimits

import (
	"fmt"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/analytics"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/watch"
)

// limits are the maxlength (or, for a number, the max) of the console's form fields, by
// field, and minimums the min of its numbers: core's limits, so that a form never allows
// what the API refuses or refuses what it allows.
var limits = map[string]int{
	"cookieExpirationDays": banner.MaxCookieExpiration, "reaskAfterRejectDays": banner.MaxReask,
	"siteName": core.MaxSiteName, "url": core.MaxURL, "slug": banner.MaxSlug,
	"categoryName": banner.MaxCategoryName, "categoryDescription": banner.MaxCategoryDescription,
	"serviceLabel": banner.MaxServiceLabel, "serviceDescription": banner.MaxServiceDescription,
	"cookieName": banner.MaxCookieName, "cookieDuration": banner.MaxCookieDuration, "cookieDescription": banner.MaxCookieDescription,
	"text": banner.MaxTranslation, "language": banner.MaxLanguageKey, "apiKeyName": identity.MaxAPIKeyName,
	"userName": identity.MaxUserName, "userPassword": identity.MaxPassword,
	"password": scan.MaxPasswordSize, "visitorId": consent.MaxVisitorID, "reopenLabel": banner.MaxReopenLabel,
	"digestEmails": watch.MaxDigestEmails, "webhookDescription": watch.MaxWebhookDescription,
	"variant": analytics.MaxVariant,
}

var minimums = map[string]int{"cookieExpirationDays": banner.MinCookieExpiration, "reaskAfterRejectDays": banner.MinReask, "userPassword": identity.MinPassword}

// patterns are the pattern attributes of form fields: core's patterns without their
// anchors, which the attribute implies.
var patterns = map[string]string{"slug": htmlPattern(core.SlugPattern), "variant": htmlPattern(analytics.VariantPattern)}

func htmlPattern(re string) string { return strings.TrimSuffix(strings.TrimPrefix(re, "^"), "$") }

// Min is the template function min: the minimum of a number field; like Max, an
// unknown field fails the rendering.
func Min(field string) (int, error) {
	if n, ok := minimums[field]; ok {
		return n, nil
	}
	return 0, fmt.Errorf("console: no form minimum named %q", field)
}

// Pattern is the template function pattern: the pattern attribute of a field.
func Pattern(field string) (string, error) {
	if p, ok := patterns[field]; ok {
		return p, nil
	}
	return "", fmt.Errorf("console: no form pattern named %q", field)
}

// Max is the template function max: the limit of a form field; an unknown field fails
// the page's rendering, which every page's test would show.
func Max(field string) (int, error) {
	if n, ok := limits[field]; ok {
		return n, nil
	}
	return 0, fmt.Errorf("console: no form limit named %q", field)
}
