package core

import (
	"math"
	"time"
)

// Limits that had no constant in core, and those the stores impose, which the use cases must
// check before a value reaches them. The limits of the contract (names, descriptions, ...) live
// beside their concept (MaxSiteName in site.go, MaxSlug in category.go, ...).
const (
	// MaxSortOrder is the largest category sort order: the column is a 32-bit integer on
	// Postgres.
	MaxSortOrder = math.MaxInt32
	// MaxConsentVersion is the largest consentVersion a decision may carry.
	MaxConsentVersion = 1_000_000
	// MaxConsentPage is the last page of the consent listing a client may ask for.
	MaxConsentPage = 1_000_000
	// MaxSearchQuery is the longest library search text.
	MaxSearchQuery = 200
	// MaxProjectKey is the longest projectKey a public request may name.
	MaxProjectKey = 100
	// MaxAcceptLanguage is the longest Accept-Language header the public endpoints read.
	MaxAcceptLanguage = 1000
	// SlugPattern is the one pattern of slugs (service slugs, library slugs): lower-case
	// letters, digits and hyphens. The HTTP schema's pattern is checked against it.
	SlugPattern = `^[a-z0-9-]+$`
	// RuntimeVersionPattern is the form of the banner runtime's version a consent decision
	// names: letters, digits, '.', '+' and '-', starting with a letter or digit.
	RuntimeVersionPattern = `^[0-9A-Za-z][0-9A-Za-z.+-]*$`
	// DomainPattern is the form of a domain name a banner's cookieDomain may hold: labels of
	// letters, digits and inner hyphens, separated by dots, with an optional leading dot.
	DomainPattern = `^\.?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`
	// MaxDomain is the longest cookieDomain: a 253-character name and its leading dot.
	MaxDomain = 254
)

// MinTime and MaxTime bound the instants a date filter may name: years 1 to 9999, which
// Postgres timestamptz, SQLite's text timestamps and RFC 3339 all hold. Year 0 and earlier
// fail on Postgres, and five-digit years do not round-trip as text.
var (
	MinTime = time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(9999, time.December, 31, 23, 59, 59, 999999999, time.UTC)
)

// CheckSortOrder returns a validation error naming field when v is not a sort order the store
// can hold (0 to MaxSortOrder).
func CheckSortOrder(field string, v int) error {
	if v < 0 || v > MaxSortOrder {
		return FieldErrorf(field, "must be between 0 and %d", MaxSortOrder)
	}
	return nil
}

// CheckTime returns a validation error naming field when t is outside MinTime..MaxTime.
func CheckTime(field string, t time.Time) error {
	if t.Before(MinTime) || t.After(MaxTime) {
		return FieldErrorf(field, "must be between years %d and %d", MinTime.Year(), MaxTime.Year())
	}
	return nil
}

// Limits of the TCF strings a consent POST may carry.
const (
	// MaxTCString is the longest tcString: a TC string with a thousand vendors' consents,
	// legitimate interests and disclosures in bit fields is under 1,000 characters.
	MaxTCString = 8192
	// MaxACString is the longest acString.
	MaxACString = 8192
	// MaxGVLVersion is the largest vendorListVersion a TC string holds (12 bits).
	MaxGVLVersion = 4095
)

// MaxConsentRetentionDays is the longest consentRetentionDays a site may set (ten years).
const MaxConsentRetentionDays = 3650
