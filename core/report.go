package core

import "slices"

// The report of a scan: what the crawler saw, in the words the API, the store and the
// compliance rules use. The crawler (package crawler) builds these types and returns them;
// nothing restates them (crawler/kerneltypes_test.go fails on a copy). This file depends on
// nothing else of core, so that it stays in the kernel when the capabilities move out.

// MaxPreConsentItems bounds the requests, cookies and storage keys listed per finding.
const MaxPreConsentItems = 20

// DetectedService is a library service a scan found.
type DetectedService struct {
	Slug        string   `json:"slug"`
	Name        string   `json:"name"`
	Category    string   `json:"category"`
	TrackingIDs []string `json:"trackingIds"`
	Pages       []string `json:"pages"`
	// Cookies are the cookies of this service the scan saw being set, with where.
	Cookies []ObservedCookie `json:"cookies"`
	// Gated is true when every sighting was a tag marked to wait for consent
	// (type="text/plain"): a consent tool holds it back whatever the blocking settings.
	Gated bool `json:"gated"`
}

// ObservedCookie is a cookie a scan saw being set.
type ObservedCookie struct {
	Name string `json:"name"`
	// Domain is the cookie's Domain attribute, or the host that set it.
	Domain string `json:"domain"`
	Path   string `json:"path"`
	// Session is true for a cookie without an expiry: it ends with the browser session.
	Session bool `json:"session"`
	// Duration is how long the cookie lives as observed, in words ("session", "1 year").
	Duration string `json:"duration"`
	// MaxAgeSeconds is the observed lifetime in seconds, 0 for a session cookie.
	MaxAgeSeconds int64 `json:"maxAgeSeconds"`
	// ThirdParty is true when the domain is not the scanned site's.
	ThirdParty bool `json:"thirdParty"`
	// SeenAt are the pages whose visit set it.
	SeenAt []string `json:"seenAt"`
	// HTTPOnly, Secure and SameSite are the attributes the browser holds (deep scans; false
	// and "" for a static scan).
	HTTPOnly bool   `json:"httpOnly"`
	Secure   bool   `json:"secure"`
	SameSite string `json:"sameSite"`
}

// Kinds of what a site stores in the browser.
const (
	StorageCookie  = "cookie"
	StorageLocal   = "localStorage"
	StorageSession = "sessionStorage"
)

// StorageKinds returns the kinds of what a site stores in the browser.
func StorageKinds() []string { return []string{StorageCookie, StorageLocal, StorageSession} }

// UnrecognizedCookie is a cookie or storage key no service claims.
type UnrecognizedCookie struct {
	// Kind is cookie, localStorage or sessionStorage.
	Kind string `json:"kind" enum:"cookie,localStorage,sessionStorage"`
	Name string `json:"name"`
	// Domain is the cookie's domain, or the origin's host for a storage key.
	Domain        string   `json:"domain"`
	Duration      string   `json:"duration"`
	MaxAgeSeconds int64    `json:"maxAgeSeconds"`
	ThirdParty    bool     `json:"thirdParty"`
	SeenAt        []string `json:"seenAt"`
}

// PreConsentFinding is a service that acted before consent: what it loaded and stored.
type PreConsentFinding struct {
	Slug     string `json:"slug"`
	Name     string `json:"name"`
	Category string `json:"category"`
	// Requests are the URLs it loaded (at most MaxPreConsentItems), Cookies the cookies and
	// Storage the storage keys it left.
	Requests []string `json:"requests"`
	Cookies  []string `json:"cookies"`
	Storage  []string `json:"storage"`
	Pages    []string `json:"pages"`
}

// Mention is a service a deep scan's pages only name (Scan.Mentions).
type Mention struct {
	Slug     string `json:"slug"`
	Name     string `json:"name"`
	Category string `json:"category"`
	// Detected is true when the service itself is detected and only these IDs are mentions.
	Detected    bool     `json:"detected"`
	TrackingIDs []string `json:"trackingIds"`
	Pages       []string `json:"pages"`
}

// PageError is a page a scan could not read.
type PageError struct {
	URL string `json:"url"`
	// Status is the HTTP status answered, null when no answer came.
	Status *int `json:"status"`
	// Message says what went wrong, for the site owner.
	Message string `json:"message"`
}

// UnrecognizedScript is a third-party script that matched nothing in the library.
type UnrecognizedScript struct {
	Src    string   `json:"src"`
	Domain string   `json:"domain"`
	Pages  []string `json:"pages"`
	// Error says why the script could not be loaded (its host does not resolve, the
	// connection was refused, it answered an error status): a page requests it, but no
	// visitor gets it, so the owner should fix or remove the tag. Absent when it loaded.
	Error string `json:"error,omitempty"`
}

// CrawlResult is what the crawler saw.
type CrawlResult struct {
	// ModeUsed is ScanStatic, ScanDeep or ScanVerify.
	ModeUsed            string
	PagesScanned        int
	DetectedServices    []DetectedService
	UnrecognizedScripts []UnrecognizedScript
	UnrecognizedCookies []UnrecognizedCookie
	PreConsent          []PreConsentFinding
	Mentions            []Mention
	PageErrors          []PageError
	// Verification is set by a verification scan (ModeUsed ScanVerify) only.
	Verification *Verification
}

// Scan modes: static reads the HTML (and tag manager containers), deep loads every page in a
// headless browser too, auto is deep when the worker has a browser and static otherwise.
const (
	ScanStatic = "static"
	ScanDeep   = "deep"
	ScanAuto   = "auto"
	// ScanVerify is the scan mode of a verification scan. It needs a browser.
	ScanVerify = "verify"
)

// scanModes are the modes a scan may ask for, in the order the API lists them.
var scanModes = [...]string{ScanStatic, ScanDeep, ScanAuto, ScanVerify}

// ScanModes returns the modes a scan may ask for, in the order the API lists them.
func ScanModes() []string { return slices.Clone(scanModes[:]) }

// ValidScanMode reports whether mode is one of ScanModes.
func ValidScanMode(mode string) bool { return slices.Contains(scanModes[:], mode) }

// A verification scan (mode verify) loads a site's pages in a headless browser once per
// consent state, with consentd's banner driven by clicking its buttons, and records what each
// state let through. The crawler records and attributes; which state allows what, and what is
// a finding, is decided by core's compliance rules (compliance.go), so that rules apply to
// stored scans as they are today.

// Consent states a verification scan visits. A category state is "category:" followed by the
// category slug: only that category (and the required ones) accepted.
const (
	// StateNoDecision is the first visit: no decision stored yet.
	StateNoDecision = "no_decision"
	// StateRejectAll is every page loaded again after clicking "reject all" on the first layer.
	StateRejectAll = "reject_all"
	// StateAcceptAll is every page loaded again after clicking "accept all".
	StateAcceptAll = "accept_all"
	// StateWithdrawn follows accept_all: consent withdrawn through the runtime (rejectAll),
	// the cookies of the denied categories deleted, then every page loaded again. A cookie of a
	// denied category present afterwards came back.
	StateWithdrawn = "withdrawn"
	// StateCategoryPrefix starts a per-category state ("category:statistics").
	StateCategoryPrefix = "category:"
)

// Banner kinds a verification scan can find on a site.
const (
	// BannerConsentd: consentd's runtime ran (window.consentd); every state was visited.
	BannerConsentd = "consentd"
	// BannerNone: no consentd runtime; only the no_decision state was visited (another
	// vendor's banner is not driven).
	BannerNone = "none"
)

// VerifiedBanners returns the banner kinds a verification scan can find.
func VerifiedBanners() []string { return []string{BannerConsentd, BannerNone} }

// Verification is what a verification scan saw, per consent state.
type Verification struct {
	// Banner is BannerConsentd or BannerNone.
	Banner string `json:"banner" enum:"consentd,none"`
	// ProjectKey is the project key of the consentd runtime the pages loaded; null without one.
	ProjectKey *string `json:"projectKey"`
	// ConsentModeDefault is true when Google Consent Mode's default command ('consent',
	// 'default') was in window.dataLayer before any Google tag request, on every page.
	ConsentModeDefault bool `json:"consentModeDefault"`
	// RejectOnFirstLayer is true when the banner's first layer had a reject button (the
	// reject_all state clicked it); false without one, or without consentd's banner.
	RejectOnFirstLayer bool `json:"rejectOnFirstLayer"`
	// ReopenButton is true when, after a decision, the page showed the runtime's reopen button,
	// the lasting way to withdraw that the withdrawn state used (else consentd.rejectAll()).
	ReopenButton bool `json:"reopenButton"`
	// States are the states visited, in the order visited.
	States []VerifiedState `json:"states"`
	// Unreached are the states that could not be set up, with why: consentd's runtime ran but
	// showed no banner (defaultBehavior no_banner), so no visitor could decide. The visited
	// states still stand.
	Unreached []UnreachedState `json:"unreached"`
	// Rules are the verification's runs, one per regional rule of the site, each as a visitor
	// from a place the rule covers (RuleVerification). Empty for a verification that visited
	// only from the scanner's own place; then States are its one run. With rules, States,
	// Unreached, RejectOnFirstLayer and ReopenButton repeat the first run's.
	Rules []RuleVerification `json:"rules,omitempty"`
}

// UnreachedState is a consent state a verification scan could not set up.
type UnreachedState struct {
	State  string `json:"state"`
	Reason string `json:"reason"`
}

// VerifiedState is what the browser did in one consent state, over every page. Requests,
// cookies and storage are those of library services (attributed by the library's patterns and
// cookie names) and, with an empty Service, third-party ones no service claims.
type VerifiedState struct {
	// State is one of the State constants, or StateCategoryPrefix + slug.
	State string   `json:"state"`
	Pages []string `json:"pages"`
	// Requests are the requests the browser made while the state's pages loaded (not those of
	// the visit that set the state up), at most MaxVerifiedItems.
	Requests []VerifiedRequest `json:"requests"`
	// Cookies and Storage are what the browser held after the state's pages loaded (for a
	// state after a decision: what was set or set again after the decision).
	Cookies []VerifiedStorage `json:"cookies"`
	Storage []VerifiedStorage `json:"storage"`
	// HeldUnmarked are the page's own unmarked tags the runtime held back by a blocking rule
	// (consentd.heldUnmarked), with whether the browser had requested their URL anyway.
	HeldUnmarked []HeldTag `json:"heldUnmarked"`
}

// VerifiedRequest is one request of a state.
type VerifiedRequest struct {
	URL  string `json:"url"`
	Page string `json:"page"`
	// Service is the library slug of the service the URL belongs to; "" when none does.
	Service string `json:"service"`
	// Category is the service's library category; "" when no service claims the URL.
	Category string `json:"category"`
	// Type is the browser's resource type (Script, Image, XHR, Fetch, Document, ...).
	Type string `json:"type"`
	// ThirdParty is true when the URL's registrable domain is not the page's.
	ThirdParty bool `json:"thirdParty"`
}

// VerifiedStorage is a cookie or storage key a state left.
type VerifiedStorage struct {
	// Kind is StorageCookie, StorageLocal or StorageSession.
	Kind   string `json:"kind" enum:"cookie,localStorage,sessionStorage"`
	Name   string `json:"name"`
	Domain string `json:"domain"`
	Page   string `json:"page"`
	// Service and Category as for VerifiedRequest.
	Service    string `json:"service"`
	Category   string `json:"category"`
	ThirdParty bool   `json:"thirdParty"`
}

// HeldTag is an unmarked page tag the runtime held back.
type HeldTag struct {
	URL      string `json:"url"`
	Page     string `json:"page"`
	Service  string `json:"service"`
	Category string `json:"category"`
	// Requested is true when the browser requested URL in this state anyway (its preload
	// scanner fetches a parser-inserted script's URL before any script can stop it).
	Requested bool `json:"requested"`
	// Element is what the runtime held: HeldScript or HeldIframe ("" when not known: read as a
	// script).
	Element string `json:"element,omitempty"`
}

// The elements a HeldTag names.
const (
	HeldScript = "script"
	HeldIframe = "iframe"
)

// MaxVerifiedItems bounds the requests, cookies and storage keys kept per state.
const MaxVerifiedItems = 500
