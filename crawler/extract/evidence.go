package extract

// Evidence kinds: those an Extractor finds, and those package crawler adds from responses and
// from the browser (cookie, request, script-body, storage).
const (
	EvidenceScript       = "script"        // <script src>
	EvidenceInlineScript = "inline-script" // a tracking ID in inline script text
	EvidenceInlineURL    = "inline-url"    // a service URL written inside inline script text
	EvidenceIframe       = "iframe"
	EvidencePixel        = "pixel"     // <img>, including inside <noscript>
	EvidenceLink         = "link"      // <link> preloads, stylesheets, preconnects
	EvidenceAttribute    = "attribute" // an ID in an embed's attribute (library TrackingID.Attributes)
	EvidenceCookie       = "cookie"
	EvidenceTagManager   = "tag-manager" // configured in a fetched tag manager container
	EvidenceRequest      = "request"     // a request the browser made (deep scans)
	EvidenceScriptBody   = "script-body" // a tracking ID in a script the browser loaded
	EvidenceStorage      = "storage"     // a localStorage or sessionStorage key
)

// Evidence is one sighting of a service.
type Evidence struct {
	// Kind is one of the Evidence* constants.
	Kind string `json:"kind"`
	// Page is the page (or, for cookies, the response URL) where it was seen.
	Page string `json:"page"`
	// URL is the matched URL, when the evidence is a URL.
	URL string `json:"url,omitempty"`
	// Snippet is the matched text (tracking ID in context, cookie name, tag type).
	Snippet string `json:"snippet,omitempty"`
	// Gated is true when the element is held back by a consent tool (type="text/plain").
	Gated bool `json:"gated,omitempty"`
}
