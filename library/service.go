// Package library is consentd's catalog of known services: what each one is, which cookies it
// sets, and the patterns by which its scripts, resources and tracking IDs are recognised.
//
// Entries are JSON files, one per service, embedded in the binary (services/*.json) and
// optionally extended or overridden by an operator's directory. The pattern language shared by
// entries, blocking rules, the crawler and the banner runtime is described in README.md and
// implemented in pattern.go.
package library

import (
	"regexp"
	"strings"
)

// Categories a library service may belong to. They are the three default category slugs every
// site has.
const (
	CategoryEssential  = "essential"
	CategoryStatistics = "statistics"
	CategoryMarketing  = "marketing"
)

// Categories returns the categories a library service may belong to.
func Categories() []string { return []string{CategoryEssential, CategoryStatistics, CategoryMarketing} }

// Service is one known third-party service.
type Service struct {
	// Slug identifies the service; lower-case letters, digits and hyphens.
	Slug string `json:"slug"`
	// Label is the display name.
	Label string `json:"label"`
	// Description says what the service does, in one or two sentences.
	Description string `json:"description"`
	// Category is one of CategoryEssential, CategoryStatistics, CategoryMarketing.
	Category string `json:"category"`
	// Vendor is the company that operates the service.
	Vendor string `json:"vendor"`
	// Logo is a URL of the service's logo, or nil.
	Logo *string `json:"logo"`
	// ServiceURL is the service's home page.
	ServiceURL string `json:"serviceUrl"`
	// PrivacyPolicyURL is the vendor's privacy policy.
	PrivacyPolicyURL string `json:"privacyPolicyUrl"`
	// Cookies are the cookies and storage keys the service sets.
	Cookies []Cookie `json:"cookies"`
	// Scripts are patterns matching the URLs of the service's scripts.
	Scripts []string `json:"scripts"`
	// Resources are patterns matching its other resources: iframes, pixels, connect hosts.
	Resources []string `json:"resources"`
	// TrackingIDs recognise the account or container IDs the service is configured with.
	TrackingIDs []TrackingID `json:"trackingIds"`
	// BuiltinBlocking is true when a built-in blocking rule already covers the service: every
	// site's blocking rules include its script patterns, so importing it adds no rule.
	BuiltinBlocking bool `json:"builtinBlocking"`
	// SelfHostFix marks an entry that is not strictly necessary although pages often load it
	// before any choice (web fonts, script libraries from a public CDN): it says how to serve
	// the same files from the site itself, so that no visitor's address reaches the vendor.
	// The compliance rule enforcement.essential-third-party then makes its requests before a
	// choice an error under opt-in, with this fix.
	SelfHostFix string `json:"selfHostFix,omitempty"`
	// LoadedBy are the other services' tags that load this service when the page's code
	// configures them with one of its IDs: the Google tag (gtag.js), loaded for Analytics,
	// loads Google Ads for a gtag('config', 'AW-…') beside it. Such an ID on a page that
	// loaded the tag is a detection, not a mention.
	LoadedBy []LoadedBy `json:"loadedBy,omitempty"`
}

// LoadedBy is a tag that loads a service when configured for it.
type LoadedBy struct {
	// Script is the tag's URL prefix, without the scheme ("www.googletagmanager.com/gtag/js").
	Script string `json:"script"`
	// Call is a regular expression the page's code matches where it configures the tag for
	// the service, up to the ID (`gtag\(\s*['"]config['"]\s*,\s*['"]AW-`).
	Call string `json:"call"`
	call *regexp.Regexp
}

// Loads reports whether the tag at url (absolute), configured by the code around an ID
// (snippet), loads the service.
func (l *LoadedBy) Loads(url, snippet string) bool {
	if l.call == nil {
		return false
	}
	if i := strings.Index(url, "://"); i >= 0 {
		url = url[i+3:]
	}
	return strings.HasPrefix(url, l.Script) && l.call.MatchString(snippet)
}

// Cookie match kinds.
const (
	MatchExact  = "exact"
	MatchPrefix = "prefix"
	MatchRegex  = "regex"
)

// Cookie is a cookie or storage key set by a service.
type Cookie struct {
	// Name is the cookie name, a name prefix or a regular expression, as Match says.
	Name string `json:"name"`
	// Match is MatchExact, MatchPrefix or MatchRegex.
	Match string `json:"match"`
	// Duration is the lifetime as the vendor states it, free text ("2 years", "session").
	Duration string `json:"duration"`
	// Description says what the cookie is for.
	Description string `json:"description"`
	// Party is "first" or "third".
	Party string `json:"party"`
	// Storage is "cookie" or "localStorage".
	Storage string `json:"storage"`
}

// TrackingID recognises the IDs a service is configured with (a GA4 measurement ID, a pixel ID).
type TrackingID struct {
	// Pattern is a Go regular expression with exactly one capture group: the ID.
	Pattern string `json:"pattern"`
	// Examples are strings the pattern must match.
	Examples []string `json:"examples"`
	// Attributes are the names (lower case) of the element attributes an embed carries the
	// ID in, on any element (reCAPTCHA's data-sitekey on its widget's div): the static pass
	// reads them as `name="value"` text against Pattern.
	Attributes []string `json:"attributes,omitempty"`
}
