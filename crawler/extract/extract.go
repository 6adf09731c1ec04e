package extract

import (
	"bytes"
	"net/url"
	"strings"
	"unsafe"

	"github.com/consentd/consentd/library"
	"golang.org/x/net/html"
	"golang.org/x/net/publicsuffix"
)

// Report is what one page (or one tag-manager container) contributes to a scan. Every
// string in it is owned (never aliases a tokenizer buffer).
type Report struct {
	// Links are the page's links to follow (absolute http(s) URLs), when the extractor follows.
	Links []string
	Hits  []Hit
	// Unrecognized are the third-party scripts no library pattern or ID claims.
	Unrecognized []Unrecognized
	// Own are the page's same-site script URLs no library URL pattern claims: a tag manager
	// container may be served from the site itself, at any path.
	Own []OwnScript
}

// OwnScript is a same-site script of a page.
type OwnScript struct {
	URL   string
	Gated bool
}

// addLink appends a link, starting with room for a page's navigation.
func (r *Report) addLink(u string) {
	if r.Links == nil {
		r.Links = make([]string, 0, 16)
	}
	r.Links = append(r.Links, u)
}

// AddHit appends a hit, starting with room for a page's usual share.
func (r *Report) AddHit(h Hit) {
	if r.Hits == nil {
		r.Hits = make([]Hit, 0, 4)
	}
	r.Hits = append(r.Hits, h)
}

// Hit is a sighting of a library service, with the tracking ID it carries, if any.
type Hit struct {
	Service  *library.Service
	ID       string
	Evidence Evidence
}

// Unrecognized is a third-party script (Src, on registrable domain Domain) of a page that no
// library pattern claims.
type Unrecognized struct {
	Src, Domain, Page string
	Gated             bool
	// Err is why the script could not be loaded, when it was tried and failed.
	Err string
}

// Extractor streams a page through html.Tokenizer and fingerprints what it finds: script,
// iframe, image and link URLs against the index's host map, inline script text against the
// tracking-ID prefilter and for URL literals. No document tree is built.
type Extractor struct {
	ix       *library.Index
	domainOf func(host string) string // registrable domain, cached by the caller
	page     string                   // page URL as reported
	pageURL  *url.URL
	base     *url.URL // <base href> or the page URL
	baseSet  bool
	pageHost string // lower case
	pageDom  string // registrable domain of the page
	follow   bool   // collect <a href> links
	rep      *Report
	attrBuf  []byte
	fp       *Cache // the scan's cache, or nil
	// linkPrefix ("https://host") and linkDir (the base path up to its last '/') let link
	// resolve plain relative references without net/url; linkPrefix is "" when the base is not a
	// plain http(s) URL.
	linkPrefix, linkDir string
}

// New returns an extractor for the page at pageURL, reported as page: its findings go to
// Report, its <a href> links too when follow is set. domainOf returns a host's registrable
// domain (RegistrableDomain, cached by the caller); cache is the scan's fingerprint cache, or
// nil.
func New(ix *library.Index, cache *Cache, domainOf func(string) string, pageURL *url.URL, page string, follow bool) *Extractor {
	host := strings.ToLower(pageURL.Hostname())
	x := &Extractor{
		ix: ix, domainOf: domainOf, page: page, pageURL: pageURL,
		pageHost: host, pageDom: domainOf(host), follow: follow, rep: &Report{}, fp: cache,
	}
	x.setBase(pageURL)
	return x
}

// Report is what the extractor found so far.
func (x *Extractor) Report() *Report { return x.rep }

// Elements the extractor reads; every other tag is skipped without decoding its name or
// attributes.
const (
	tagOther = iota
	tagScript
	tagNoscript
	tagIframe
	tagImg
	tagLink
	tagA
	tagBase
)

// tagOf classifies a start tag from its raw bytes ("<SCRIPT src=...>") without allocating, as
// html.Tokenizer.TagName would name it (ASCII lower-cased).
func tagOf(raw []byte) int {
	if len(raw) < 2 || raw[0] != '<' {
		return tagOther
	}
	switch raw[1] | 0x20 { // the first letters of the names below
	case 'a', 'b', 'i', 'l', 'n', 's':
	default:
		return tagOther
	}
	n := 1
	for n < len(raw) && !isNameEnd(raw[n]) {
		n++
	}
	name := raw[1:n]
	switch len(name) {
	case 1:
		if name[0]|0x20 == 'a' {
			return tagA
		}
	case 3:
		if asciiEqualFold(name, "img") {
			return tagImg
		}
	case 4:
		if asciiEqualFold(name, "link") {
			return tagLink
		}
		if asciiEqualFold(name, "base") {
			return tagBase
		}
	case 6:
		if asciiEqualFold(name, "script") {
			return tagScript
		}
		if asciiEqualFold(name, "iframe") {
			return tagIframe
		}
	case 8:
		if asciiEqualFold(name, "noscript") {
			return tagNoscript
		}
	}
	return tagOther
}

// isNameEnd reports whether c ends a tag name (html.Tokenizer's readTagName).
func isNameEnd(c byte) bool {
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		return true
	}
	return false
}

// asciiEqualFold compares b with the lower-case ASCII word s, folding ASCII letters only (as
// html.Tokenizer does: "ſcript" is no script tag).
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// Run extracts from an HTML document or fragment.
func (x *Extractor) Run(body []byte) {
	z := html.NewTokenizer(bytes.NewReader(body))
	inScript, gated := false, false
	var ta tagAttrs
	// Embeds carry account keys in attributes of any element (reCAPTCHA's data-sitekey); they
	// are read only in documents that name one of those attributes at all.
	idAttrs := idAttrsOf(x.ix)
	readIDAttrs := idAttrs.in(body)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return
		case html.TextToken:
			if inScript {
				x.Inline(z.Text(), gated)
			}
			inScript = false
		case html.StartTagToken, html.SelfClosingTagToken:
			inScript = false
			tag := tagOf(z.Raw())
			if tag == tagOther {
				if readIDAttrs && idAttrs.in(z.Raw()) {
					x.idAttributes(&ta, z, idAttrs)
				}
				continue
			}
			ta.reset(z)
			switch tag {
			case tagScript:
				var src string
				var typ []byte // valid until the next token
				attrs := x.attrBuf[:0]
				for {
					k, v, ok := ta.next()
					if !ok {
						break
					}
					switch string(k) {
					case "src":
						src = string(v)
						continue
					case "data-src":
						if src == "" {
							src = string(v)
						}
						continue
					case "type":
						typ = v
					}
					// Other attributes carry IDs too (data-cbid, data-domain-script, ...):
					// they are matched as `name="value"` text.
					attrs = append(attrs, k...)
					attrs = append(attrs, '=', '"')
					attrs = append(attrs, v...)
					attrs = append(attrs, '"', ' ')
				}
				x.attrBuf = attrs
				gated = bytes.EqualFold(bytes.TrimSpace(typ), []byte("text/plain"))
				if len(attrs) > 0 {
					x.attributes(attrs, gated)
				}
				if src != "" {
					x.resource(EvidenceScript, src, gated)
				} else if tt == html.StartTagToken {
					inScript = true
				}
			case tagNoscript:
				// What a browser without scripts loads: the content is read as markup, as
				// the HTML standard parses it with scripting disabled, not as raw text.
				if tt == html.StartTagToken {
					z.NextIsNotRawText()
				}
			default:
				x.element(tag, &ta)
			}
		default:
			inScript = false
		}
	}
}

// element handles the URL-bearing elements other than script.
func (x *Extractor) element(tag int, attrs *tagAttrs) {
	if (tag == tagA && !x.follow) || (tag == tagBase && x.baseSet) {
		return
	}
	var src, dataSrc, rel string
	for src == "" || (tag != tagA && tag != tagImg) {
		k, v, ok := attrs.next()
		if !ok {
			break
		}
		switch string(k) {
		case "src":
			if tag == tagIframe || tag == tagImg {
				src = string(v)
			}
		case "data-src":
			if tag == tagIframe {
				dataSrc = string(v)
			}
		case "href":
			if tag == tagA {
				x.linkBytes(v)
				return
			}
			if tag == tagLink || tag == tagBase {
				src = string(v)
			}
		case "rel":
			rel = strings.ToLower(string(v))
		}
	}
	if tag == tagIframe && dataSrc != "" && (src == "" || strings.EqualFold(strings.TrimSpace(src), "about:blank")) {
		// An iframe whose real address waits in data-src is held back by a consent tool.
		x.resource(EvidenceIframe, dataSrc, true)
		return
	}
	if src == "" {
		return
	}
	switch tag {
	case tagIframe:
		x.resource(EvidenceIframe, src, false)
	case tagImg:
		x.resource(EvidencePixel, src, false)
	case tagLink:
		for _, r := range strings.Fields(rel) {
			switch r {
			case "stylesheet", "preload", "modulepreload", "prefetch", "preconnect", "dns-prefetch":
				x.resource(EvidenceLink, src, false)
				return
			}
		}
	case tagBase:
		if !x.baseSet {
			x.baseSet = true
			if u, err := x.pageURL.Parse(strings.TrimSpace(src)); err == nil {
				x.setBase(u)
			}
		}
	case tagA:
		if x.follow {
			x.link(src)
		}
	}
}

// absolute returns raw as an absolute http(s) URL string and its lower-case host, resolving
// relative references against the base. ok is false for other schemes and unparsable values.
func (x *Extractor) absolute(raw string) (abs, host string, ok bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", "", false
	}
	switch {
	case strings.HasPrefix(raw, "//"):
		abs = x.base.Scheme + ":" + raw
	case hasHTTPScheme(raw):
		abs = raw
	default:
		if i := strings.IndexAny(raw, ":/?#"); i >= 0 && raw[i] == ':' {
			return "", "", false // data:, javascript:, mailto: ...
		}
		u, err := x.base.Parse(raw)
		if err != nil || u.Host == "" {
			return "", "", false
		}
		abs = u.String()
	}
	h, _, _, ok := splitHostOnly(abs)
	if !ok {
		return "", "", false
	}
	return abs, strings.ToLower(h), true
}

func hasHTTPScheme(s string) bool {
	return len(s) > 8 && (strings.EqualFold(s[:7], "http://") || strings.EqualFold(s[:8], "https://"))
}

// splitHostOnly returns the host of an absolute URL string without parsing the rest.
func splitHostOnly(abs string) (host, rest string, port bool, ok bool) {
	i := strings.Index(abs, "://")
	if i < 0 {
		return "", "", false, false
	}
	s := abs[i+3:]
	end := strings.IndexAny(s, "/?#")
	if end < 0 {
		end = len(s)
	}
	host, rest = s[:end], s[end:]
	if j := strings.LastIndexByte(host, '@'); j >= 0 {
		host = host[j+1:]
	}
	if j := strings.LastIndexByte(host, ':'); j >= 0 && !strings.Contains(host[j:], "]") {
		host, port = host[:j], true
	}
	host = strings.TrimSuffix(host, ".")
	return host, rest, port, host != ""
}

// ThirdParty reports whether host is on another registrable domain than the page, and returns
// that domain.
func (x *Extractor) ThirdParty(host string) (bool, string) {
	if host == x.pageHost {
		return false, x.pageDom
	}
	d := x.domainOf(host)
	return d != x.pageDom, d
}

// resource fingerprints a script, iframe, pixel or link URL.
func (x *Extractor) resource(kind, raw string, gated bool) {
	abs, host, ok := x.absolute(raw)
	if !ok {
		return
	}
	third, dom := x.ThirdParty(host)
	f := x.fp.URL(x.ix, abs)
	if f.Service != nil {
		x.rep.AddHit(Hit{Service: f.Service, Evidence: Evidence{Kind: kind, Page: x.page, URL: abs, Gated: gated}})
	}
	for _, id := range f.IDs {
		x.rep.AddHit(Hit{Service: id.Service, ID: id.ID, Evidence: Evidence{Kind: kind, Page: x.page, URL: abs, Gated: gated}})
	}
	if f.Service == nil && len(f.IDs) == 0 && kind == EvidenceScript && third {
		x.rep.Unrecognized = append(x.rep.Unrecognized, Unrecognized{Src: abs, Domain: dom, Page: x.page, Gated: gated})
	}
	if f.Service == nil && kind == EvidenceScript && !third {
		x.rep.Own = append(x.rep.Own, OwnScript{URL: abs, Gated: gated})
	}
}

// Inline fingerprints inline script text: tracking IDs, and service URLs written in the code
// (vendor snippets build their script tags from string literals).
func (x *Extractor) Inline(b []byte, gated bool) {
	if len(b) == 0 {
		return
	}
	// text aliases the tokenizer's buffer for the duration of this call only; the findings own
	// their strings.
	for _, f := range x.fp.script(x.ix, unsafe.String(&b[0], len(b)), x.base.Scheme) {
		x.rep.AddHit(Hit{Service: f.svc, ID: f.id,
			Evidence: Evidence{Kind: f.kind, Page: x.page, URL: f.url, Snippet: f.snippet, Gated: gated}})
	}
}

// attributes looks for tracking IDs in a script element's attributes.
func (x *Extractor) attributes(b []byte, gated bool) {
	text := unsafe.String(&b[0], len(b))
	x.ix.FindTrackingIDs(text, func(m library.IDMatch) {
		x.rep.AddHit(Hit{Service: m.Service, ID: strings.Clone(m.ID),
			Evidence: Evidence{Kind: EvidenceScript, Page: x.page, Snippet: Snippet(text, m.Start, m.End), Gated: gated}})
	})
}

// URLHost returns the host of an absolute URL string, without its port and trailing dot, and
// without parsing the rest; ok is false when there is none.
func URLHost(abs string) (host string, ok bool) {
	host, _, _, ok = splitHostOnly(abs)
	return host, ok
}

// RegistrableDomain is the public suffix plus one label, or the host itself for IP addresses,
// single-label hosts and public suffixes: what "third party" is judged by.
func RegistrableDomain(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}
