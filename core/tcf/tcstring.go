package tcf

import (
	"regexp"
	"time"
)

// TCString is what consentd reads of a TC string (TCF v2.x): the core segment's metadata and
// choices and the disclosed vendors (the TC string v2.3 requires that segment). ID lists are
// sorted.
type TCString struct {
	Version           int
	Created           time.Time
	LastUpdated       time.Time
	CMPID             int
	CMPVersion        int
	ConsentScreen     int
	ConsentLanguage   string
	VendorListVersion int
	TCFPolicyVersion  int
	IsServiceSpecific bool
	PublisherCC       string
	SpecialFeatures   []int
	PurposesConsent   []int
	PurposesLI        []int
	VendorsConsent    []int
	VendorsLI         []int
	// VendorsDisclosed is nil when the string has no disclosed-vendors segment.
	VendorsDisclosed []int
	// PublisherRestrictions are the restrictions the string carries, by purpose and type.
	PublisherRestrictions []PublisherRestriction
}

// TCStringDecoder reads TC strings (adapters/tcstring, over a well-kept decoder).
type TCStringDecoder interface {
	// DecodeTCString decodes s; a string that is not a well-formed TC string v2 is a
	// validation error saying why.
	DecodeTCString(s string) (*TCString, error)
}

// ACStringPattern is the form of Google's Additional Consent string v2: "2~", the consented
// providers' IDs joined by dots, "~dv.", the disclosed providers' IDs joined by dots. The
// OpenAPI document states it for acString.
const ACStringPattern = `^2~([0-9]+(\.[0-9]+)*)?~dv\.([0-9]+(\.[0-9]+)*)?$`

var AcStringPattern = regexp.MustCompile(ACStringPattern)

// TCStringPattern is the form of a TC string v2 (IAB TCF, "TC String Format"): segments of
// web-safe base64 without padding, separated by '.'. The decoder checks the rest; the OpenAPI
// document states it for tcString.
const TCStringPattern = `^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`

var TcStringPattern = regexp.MustCompile(TCStringPattern)
