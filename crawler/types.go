package crawler

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/extract"
	"github.com/consentd/consentd/crawler/netguard"
)

// Defaults applied by Crawl to zero Options fields.
const (
	DefaultMaxPages     = 50
	DefaultMaxDepth     = 3
	DefaultMaxBodyBytes = 5 << 20
	DefaultTimeout      = 2 * time.Minute
	DefaultPageTimeout  = 20 * time.Second
	DefaultConcurrency  = 8
	DefaultUserAgent    = "consentd-scanner/1.0 (+https://github.com/consentd/consentd; cookie consent audit)"

	// MaxStartURLs is the most start URLs one scan accepts.
	MaxStartURLs = 10

	DefaultQuietFor = 400 * time.Millisecond
	DefaultQuietMax = 5 * time.Second
	// DefaultPagesAtOnce is how many pages a deep scan's browser loads at once.
	DefaultPagesAtOnce = 3
	// DefaultStatesAtOnce is how many consent states a verification visits at once.
	DefaultStatesAtOnce = 3
	// DefaultStatePagesAtOnce is how many pages a verification's state loads at once.
	DefaultStatePagesAtOnce = 5
)

// Options are the inputs of one scan.
type Options struct {
	// StartURLs are 1 to MaxStartURLs absolute http(s) URLs. Links are followed on the
	// registrable domains of these URLs only.
	StartURLs []string
	// MaxPages bounds the pages fetched (start pages included); MaxDepth the link hops from a
	// start page. Zero means DefaultMaxPages, DefaultMaxDepth; a negative MaxDepth means start
	// pages only.
	MaxPages, MaxDepth int
	// MaxBodyBytes bounds each response body. A larger body is reported as a page error (its
	// first MaxBodyBytes are still scanned), not silently truncated.
	MaxBodyBytes int64
	// Timeout bounds the whole scan, PageTimeout each request (redirects and body included).
	Timeout, PageTimeout time.Duration
	// Concurrency is the number of requests in flight at once.
	Concurrency int
	// StorefrontPassword is submitted when a shop answers with a storefront password page.
	StorefrontPassword string
	// AllowPrivate allows loopback, private, link-local, multicast, unspecified and reserved
	// addresses, and IPv6 addresses that embed such an IPv4 address (mapped, compatible,
	// NAT64, 6to4, Teredo, ISATAP). The check applies to every connection, on the address it actually dials, so redirects and
	// DNS answers that point inside are covered.
	AllowPrivate bool
	// IgnoreRobots skips robots.txt, which is honoured by default.
	IgnoreRobots bool
	// UserAgent is sent with every request; DefaultUserAgent when empty.
	UserAgent string
	// ConnectTo are connect-to rules (see netguard.ConnectTo and netguard.ParseConnectTo), tried in order, for
	// page fetches and tag manager containers alike: a scan can be pointed at a local copy of
	// a site and its vendors without DNS. AllowPrivate is still needed to dial a private or
	// loopback address.
	ConnectTo []netguard.ConnectTo
	// RootCAPEM and RootCAFile hold extra root CA certificates (PEM) trusted for TLS next to
	// the system's, for a test server's certificate; both may be set.
	RootCAPEM  []byte
	RootCAFile string

	// Deep scans (DeepCrawl) only. MaxBrowserBytes bounds what the browser may download in the
	// whole scan (0: no bound); QuietFor is how long the network must be idle for a page to
	// count as loaded, each wait bounded by QuietMax (zero: DefaultQuietFor, DefaultQuietMax).
	// PageTimeout bounds each page in the browser.
	MaxBrowserBytes    int64
	QuietFor, QuietMax time.Duration
	// PagesAtOnce is the number of pages the scan's browser loads at once, each in a
	// browser context of its own (zero: DefaultPagesAtOnce).
	PagesAtOnce int
	// StatesAtOnce is the number of consent states a verification visits at once, each in a
	// browser context of its own loading PagesAtOnce pages at a time (zero:
	// DefaultStatesAtOnce).
	StatesAtOnce int
	// StatePagesAtOnce is the number of pages a verification's state loads at once, as tabs of
	// the state's browser context (zero: DefaultStatePagesAtOnce). A page's load mostly waits
	// (for quiet network, the scroll, the page's timers run forward), so a state's pages go
	// more at once than a deep scan's, which each take a context of their own.
	StatePagesAtOnce int
}

func (o Options) withDefaults() Options {
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = DefaultMaxDepth
	} else if o.MaxDepth < 0 {
		o.MaxDepth = 0
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.PageTimeout <= 0 {
		o.PageTimeout = DefaultPageTimeout
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.QuietFor <= 0 {
		o.QuietFor = DefaultQuietFor
	}
	if o.PagesAtOnce <= 0 {
		o.PagesAtOnce = DefaultPagesAtOnce
	}
	if o.QuietMax <= 0 {
		o.QuietMax = DefaultQuietMax
	}
	if o.StatesAtOnce <= 0 {
		o.StatesAtOnce = DefaultStatesAtOnce
	}
	if o.StatePagesAtOnce <= 0 {
		o.StatePagesAtOnce = DefaultStatePagesAtOnce
	}
	return o
}

func (o Options) validate() ([]*url.URL, error) {
	if len(o.StartURLs) == 0 || len(o.StartURLs) > MaxStartURLs {
		return nil, &Error{Kind: KindInvalidInput, Message: fmt.Sprintf("a scan takes 1 to %d start URLs, got %d", MaxStartURLs, len(o.StartURLs))}
	}
	out := make([]*url.URL, 0, len(o.StartURLs))
	for _, s := range o.StartURLs {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			return nil, &Error{Kind: KindInvalidInput, Message: fmt.Sprintf("start URL %q is not an absolute http(s) URL", s)}
		}
		u.Fragment, u.RawFragment = "", ""
		out = append(out, u)
	}
	for _, r := range o.ConnectTo {
		if err := r.Validate(); err != nil {
			return nil, &Error{Kind: KindInvalidInput, Message: err.Error(), Err: err}
		}
	}
	return out, nil
}

// Result is what a scan saw, in detail: the pages, the evidence of each sighting, every cookie
// and request (`consentd scan` prints it). Report gives the kernel's report of it; the kernel's
// types (PreConsent, Verification) are used as they are. Every list is sorted so that equal
// scans give equal JSON.
type Result struct {
	// Mode is core.ScanStatic (Crawl), core.ScanDeep (DeepCrawl) or core.ScanVerify (Verify).
	Mode string `json:"mode"`
	// Pages are the pages fetched, by URL.
	Pages []Page `json:"pages"`
	// Services are the library services detected, by slug.
	Services []DetectedService `json:"services"`
	// Mentions (deep scans) are services, and tracking IDs of detected services, that the pages
	// only name: in script text, comments or data, or a resource hint, with nothing the browser
	// requested or stored for them and no tag held until consent that would load them. By slug.
	Mentions []Mention `json:"mentions,omitempty"`
	// Unrecognized are third-party scripts no library pattern matched, by src.
	Unrecognized []UnrecognizedScript `json:"unrecognized"`
	// Cookies are, for a static scan, the cookies set by Set-Cookie headers of every response,
	// redirect hops included; for a deep scan, the cookies the browser held at the end of each
	// page. By name and domain.
	Cookies []ObservedCookie `json:"cookies"`
	// Storage are the localStorage and sessionStorage keys the browser held at the end of each
	// page (deep scans), by kind, host and name.
	Storage []StorageKey `json:"storage,omitempty"`
	// PreConsent are the services that loaded or stored something in the browser, which gave
	// no consent (deep scans), by slug: what each loaded (requests that got an answer) and
	// left (cookies, storage keys), each list sorted and at most core.MaxPreConsentItems long.
	PreConsent []core.PreConsentFinding `json:"preConsent,omitempty"`
	// Requests are the browser's requests (deep scans), by page and URL; at most MaxRequests.
	Requests []Request `json:"requests,omitempty"`
	// Errors are per-page failures, by URL.
	Errors []PageError `json:"errors"`
	// Verification is what a verification scan (Verify) saw per consent state.
	Verification *core.Verification `json:"verification,omitempty"`
	// PublicConfig (verification scans) is the public configuration of the consentd runtime
	// the pages load ({apiBase}/{projectKey}/config), fetched through the scan's transport, or
	// PublicConfigError why it could not be; neither is part of the JSON (`consentd verify`
	// reads them).
	PublicConfig      []byte `json:"-"`
	PublicConfigError string `json:"-"`
}

// Page is one fetched page.
type Page struct {
	// URL is the URL requested.
	URL string `json:"url"`
	// FinalURL is the URL answered after redirects, when it differs from URL.
	FinalURL string `json:"finalUrl,omitempty"`
	// Status is the final HTTP status.
	Status int `json:"status"`
	// Depth is the number of link hops from a start page.
	Depth int `json:"depth"`
	// Bytes is the size of the body read.
	Bytes int64 `json:"bytes"`
}

// DetectedService is a library service seen during the scan.
type DetectedService struct {
	// Slug, Name and Category are the library service's.
	Slug     string `json:"slug"`
	Name     string `json:"name"`
	Category string `json:"category"`
	// TrackingIDs are the account or container IDs found, sorted.
	TrackingIDs []string `json:"trackingIds"`
	// Pages are the pages where the service was seen, sorted.
	Pages []string `json:"pages"`
	// Evidence lists distinct sightings, at most MaxEvidence, sorted.
	Evidence []extract.Evidence `json:"evidence"`
	// Gated is true when every sighting was held back by a consent tool.
	Gated bool `json:"gated"`
	// InjectsTags is true for a tag manager: it may load more tags than the scan saw.
	InjectsTags bool `json:"injectsTags,omitempty"`
}

// Mention is a service, or some tracking IDs of a detected service, that a deep scan's pages
// name without anything loading it: the sightings are text (Result.Mentions).
type Mention struct {
	Slug     string `json:"slug"`
	Name     string `json:"name"`
	Category string `json:"category"`
	// Detected is true when the service itself is detected (in Result.Services) and only
	// these IDs are mentions.
	Detected    bool               `json:"detected,omitempty"`
	TrackingIDs []string           `json:"trackingIds"`
	Pages       []string           `json:"pages"`
	Evidence    []extract.Evidence `json:"evidence"`
}

// MaxEvidence bounds DetectedService.Evidence.
const MaxEvidence = 20

// UnrecognizedScript is a third-party script that matched no library pattern.
type UnrecognizedScript struct {
	// Src is the absolute script URL.
	Src string `json:"src"`
	// Domain is its registrable domain (public suffix plus one label).
	Domain string `json:"domain"`
	// Pages are the pages that load it, sorted.
	Pages []string `json:"pages"`
	// Gated is true when every occurrence was held back by a consent tool.
	Gated bool `json:"gated,omitempty"`
	// Error says why the script could not be loaded (core.UnrecognizedScript.Error).
	Error string `json:"error,omitempty"`
}

// ObservedCookie is a cookie set by a response, one per name and domain.
type ObservedCookie struct {
	// Name is the cookie name; Domain its Domain attribute, or the responding host.
	Name   string `json:"name"`
	Domain string `json:"domain"`
	// Path is its Path attribute, or the default path of the URL that set it (RFC 6265);
	// the shortest when settings differ.
	Path string `json:"path"`
	// MaxAge is how long the browser keeps it: its Max-Age, or its Expires date less the
	// response's Date; the longest when settings differ. Zero for a session cookie or one
	// being deleted. In JSON, nanoseconds.
	MaxAge time.Duration `json:"maxAge"`
	// Service is the slug of the library service whose cookie list names it, or "".
	Service string `json:"service,omitempty"`
	// ThirdParty is true when the domain is not on a start URL's registrable domain.
	ThirdParty bool `json:"thirdParty"`
	// Session is true for a cookie without Expires or Max-Age.
	Session bool `json:"session"`
	// URLs are the response URLs that set it (redirect hops included), sorted; none for a
	// cookie a browser held (deep scans), which cannot say who wrote it.
	URLs []string `json:"urls"`
	// HTTPOnly, Secure and SameSite are the browser's attributes (deep scans).
	HTTPOnly bool   `json:"httpOnly,omitempty"`
	Secure   bool   `json:"secure,omitempty"`
	SameSite string `json:"sameSite,omitempty"`
	// Pages are the pages whose fetch set it, sorted: the URL requested before redirects, or
	// for a tag manager container or same-site script the scan fetched, the page loading it.
	Pages []string `json:"pages"`
}

// StorageKey is a localStorage or sessionStorage key a page left in the browser.
type StorageKey struct {
	// Kind is core.StorageLocal or core.StorageSession.
	Kind string `json:"kind"`
	// Name is the key; Host the host of the page's origin.
	Name string `json:"name"`
	Host string `json:"host"`
	// Service is the slug of the library service whose cookie list names the key, or "".
	Service string `json:"service,omitempty"`
	// Pages are the pages after which the browser held it, sorted.
	Pages []string `json:"pages"`
}

// MaxRequests bounds the requests of a Result.
const MaxRequests = 5000

// Request is one request the browser made.
type Request struct {
	// Page is the page being loaded; URL the request.
	Page string `json:"page"`
	URL  string `json:"url"`
	// Type is the browser's resource type (Document, Script, Image, XHR, Fetch, Ping, ...),
	// when the browser said.
	Type string `json:"type,omitempty"`
	// Initiator is the script (or document) that started the request, when the browser said.
	Initiator string `json:"initiator,omitempty"`
	// ThirdParty is true when the host is not on a start URL's registrable domain.
	ThirdParty bool `json:"thirdParty"`
	// Status is the upstream answer, 0 when none came; Bytes the body bytes passed on.
	Status int   `json:"status,omitempty"`
	Bytes  int64 `json:"bytes,omitempty"`
	// Service is the slug of the library service the URL belongs to, or "".
	Service string `json:"service,omitempty"`
	// Error says why the proxy gave the browser no answer (a refused address, the budget).
	Error string `json:"error,omitempty"`
}

// PageError is a per-page failure; the scan goes on. Every page that answered an HTTP error,
// could not be fetched, was cut at MaxBodyBytes or was disallowed by robots.txt has one, as
// has every tag manager container that could not be fetched.
type PageError struct {
	// URL is the URL that failed (the page requested, or the container URL).
	URL string `json:"url"`
	// Status is the HTTP status when one was received, 0 when none was (network failure,
	// refused address, robots.txt).
	Status int `json:"status,omitempty"`
	// Message says what went wrong, as a sentence fragment fit for a site owner ("answered
	// 404 Not Found", "refused to scan ...", "disallowed by robots.txt").
	Message string `json:"message"`
}

// Kinds of scan-level errors.
const (
	KindInvalidInput = "invalid_input"
	KindRefused      = "refused_address"
	KindPassword     = "storefront_password"
	KindBotWall      = "bot_wall"
	KindHTTPStatus   = "http_status"
	KindFetch        = "fetch"
	KindNoBrowser    = "no_browser"
	KindBrowser      = "browser"
)

// Error is a failure of the whole scan. Its message is fit for a scan's errorMessage.
type Error struct {
	// Kind is one of the Kind* constants.
	Kind string
	// Message is the human-readable message.
	Message string
	// Temporary is true when retrying the scan later may succeed.
	Temporary bool
	// Err is the underlying cause, if any.
	Err error
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// IsTemporary reports whether err is worth retrying: timeouts, reset or refused connections,
// temporary DNS failures and 5xx answers of the start page. Refused private addresses, wrong
// storefront passwords, 4xx answers, bot walls and unknown hosts are not.
func IsTemporary(err error) bool {
	if err == nil {
		return false
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Temporary
	}
	return isTemporaryNet(err)
}
