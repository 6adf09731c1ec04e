package crawler

import (
	"bytes"
	"encoding/binary"
	"mime"
	"net/url"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/consentd/consentd/library"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// pageReport is what one page (or one tag-manager container) contributes to a scan. Every
// string in it is owned (never aliases a tokenizer buffer).
type pageReport struct {
	links []string
	hits  []hit
	unrec []unrecHit
}

// addLink appends a link, starting with room for a page's navigation.
func (r *pageReport) addLink(u string) {
	if r.links == nil {
		r.links = make([]string, 0, 16)
	}
	r.links = append(r.links, u)
}

// addHit appends a hit, starting with room for a page's usual share.
func (r *pageReport) addHit(h hit) {
	if r.hits == nil {
		r.hits = make([]hit, 0, 4)
	}
	r.hits = append(r.hits, h)
}

// hit is a sighting of a library service, with the tracking ID it carries, if any.
type hit struct {
	svc *library.Service
	id  string
	ev  Evidence
}

type unrecHit struct {
	src, domain, page string
	gated             bool
}

// extractor streams a page through html.Tokenizer and fingerprints what it finds: script,
// iframe, image and link URLs against the index's host map, inline script text against the
// tracking-ID prefilter and for URL literals. No document tree is built.
type extractor struct {
	ix       *library.Index
	domainOf func(host string) string // registrable domain, cached by the caller
	page     string                   // page URL as reported
	pageURL  *url.URL
	base     *url.URL // <base href> or the page URL
	baseSet  bool
	pageHost string // lower case
	pageDom  string // registrable domain of the page
	follow   bool   // collect <a href> links
	rep      *pageReport
	attrBuf  []byte
	fp       *fingerprints // the scan's cache, or nil
	// linkPrefix ("https://host") and linkDir (the base path up to its last '/') let link
	// resolve plain relative references without net/url; linkPrefix is "" when the base is not a
	// plain http(s) URL.
	linkPrefix, linkDir string
}

func newExtractor(ix *library.Index, domainOf func(string) string, pageURL *url.URL, follow bool) *extractor {
	host := strings.ToLower(pageURL.Hostname())
	x := &extractor{
		ix: ix, domainOf: domainOf, page: pageURL.String(), pageURL: pageURL,
		pageHost: host, pageDom: domainOf(host), follow: follow, rep: &pageReport{},
	}
	x.setBase(pageURL)
	return x
}

// setBase sets the URL relative references resolve against.
func (x *extractor) setBase(u *url.URL) {
	x.base = u
	x.linkPrefix, x.linkDir = "", ""
	if (u.Scheme == "http" || u.Scheme == "https") && u.User == nil && u.Opaque == "" && u.RawPath == "" &&
		u.Host != "" && strings.Trim(u.Host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:") == "" &&
		plainPath(u.Path) {
		x.linkPrefix = u.Scheme + "://" + u.Host
		x.linkDir = u.Path[:strings.LastIndexByte(u.Path, '/')+1]
	}
}

// plainPath reports whether p is made of letters, digits, '-', '.', '_', '~' and '/' only, without
// "." or ".." segments: a path net/url keeps as it is.
func plainPath[T string | []byte](p T) bool {
	seg, dots := 0, 0 // the current segment's length and number of dots
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '/':
			if dots > 0 && dots <= 2 && dots == seg {
				return false
			}
			seg, dots = 0, 0
			continue
		case c == '.':
			dots++
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '~':
		default:
			return false
		}
		seg++
	}
	return !(dots > 0 && dots <= 2 && dots == seg)
}

// plainLink resolves a reference ("/a/b.html?x=1", "c.html", "https://host/d") the way net/url
// would, without parsing, when it and the base are plain: abs is the absolute URL and path its
// path. ok is false for any other reference.
func (x *extractor) plainLink(raw []byte) (abs, path string, ok bool) {
	if len(raw) == 0 {
		return "", "", false
	}
	end := bytes.IndexByte(raw, '?')
	if end < 0 {
		end = len(raw)
	}
	p, q := raw[:end], raw[end:]
	for _, c := range q {
		if c <= ' ' || c >= 0x7f || c == '#' {
			return "", "", false
		}
	}
	if host, rest, isAbs := cutHTTPScheme(p); isAbs {
		// An absolute URL: net/url keeps a plain one as it is.
		if !plainHost(host) || (len(rest) > 0 && rest[0] != '/') || !plainPath(rest) {
			return "", "", false
		}
		abs = string(raw)
		start := len(abs) - len(raw) + len(p) - len(rest)
		return abs, abs[start : start+len(rest)], true
	}
	if x.linkPrefix == "" || len(p) == 0 || (len(p) > 1 && p[0] == '/' && p[1] == '/') || !plainPath(p) {
		return "", "", false
	}
	dir := ""
	if p[0] != '/' {
		dir = x.linkDir
		if dir == "" {
			dir = "/"
		}
	}
	abs = x.linkPrefix + dir + string(raw)
	start := len(x.linkPrefix)
	return abs, abs[start : start+len(dir)+len(p)], true
}

// cutHTTPScheme splits "http://host/path" (scheme in lower case) into host and path.
func cutHTTPScheme(p []byte) (host, rest []byte, ok bool) {
	switch {
	case bytes.HasPrefix(p, []byte("https://")):
		p = p[8:]
	case bytes.HasPrefix(p, []byte("http://")):
		p = p[7:]
	default:
		return nil, nil, false
	}
	i := bytes.IndexByte(p, '/')
	if i < 0 {
		i = len(p)
	}
	return p[:i], p[i:], true
}

// plainHost reports whether h is a host name of letters, digits, '-' and '.', with an optional
// numeric port.
func plainHost(h []byte) bool {
	if i := bytes.IndexByte(h, ':'); i >= 0 {
		for _, c := range h[i+1:] {
			if c < '0' || c > '9' {
				return false
			}
		}
		h = h[:i]
	}
	if len(h) == 0 {
		return false
	}
	for _, c := range h {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// decodeHTML returns body as UTF-8. colly has already converted bodies whose Content-Type header
// names a charset; otherwise a BOM or <meta charset> decides, and undeclared pages that are not
// valid UTF-8 are read as windows-1252, as browsers do.
func decodeHTML(body []byte, contentType string) []byte {
	if containsFold(contentType, "charset") {
		if _, params, err := mime.ParseMediaType(contentType); err == nil && params["charset"] != "" {
			return body
		}
	}
	if isASCII(body) {
		return body
	}
	// Valid UTF-8 whose first 1024 bytes, where DetermineEncoding's prescan reads <meta>, name
	// no charset but UTF-8 is kept as it is (a UTF-16 BOM is invalid UTF-8): spare the prescan
	// its tokenizer.
	if onlyUTF8Declared(unsafe.String(&body[0], min(len(body), 1024))) && utf8.Valid(body) {
		return body
	}
	e, name, _ := charset.DetermineEncoding(body, "text/html")
	if name == "utf-8" || (name == "windows-1252" && utf8.Valid(body)) {
		return body
	}
	out, err := e.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return out
}

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

// onlyUTF8Declared reports whether every "charset" in head (ASCII case-insensitively) reads
// charset=utf-8, as <meta charset> and <meta http-equiv content> write it; true when there is none.
func onlyUTF8Declared(head string) bool {
	for i := 0; i+7 <= len(head); i++ {
		if head[i]|0x20 != 'c' || !strings.EqualFold(head[i:i+7], "charset") {
			continue
		}
		j := i + 7
		for j < len(head) && isHTMLSpace(head[j]) {
			j++
		}
		if j >= len(head) || head[j] != '=' {
			return false
		}
		for j++; j < len(head) && isHTMLSpace(head[j]); j++ {
		}
		if j < len(head) && (head[j] == '"' || head[j] == '\'') {
			j++
		}
		if j+5 >= len(head) || !strings.EqualFold(head[j:j+5], "utf-8") || strings.IndexByte("\"' \t\n\f\r>;/", head[j+5]) < 0 {
			return false
		}
		i = j + 5
	}
	return true
}

// isASCII reports whether b has no byte above 0x7f, eight bytes at a time.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// containsFold reports whether s contains the lower-case ASCII word sub, ignoring ASCII case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// run extracts from an HTML document or fragment.
func (x *extractor) run(body []byte) {
	z := html.NewTokenizer(bytes.NewReader(body))
	inScript, gated := false, false
	var ta tagAttrs
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return
		case html.TextToken:
			if inScript {
				x.inline(z.Text(), gated)
			}
			inScript = false
		case html.StartTagToken, html.SelfClosingTagToken:
			inScript = false
			tag := tagOf(z.Raw())
			if tag == tagOther {
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

// tagAttrs reads the attributes of the current start tag. When its keys and values hold no '&',
// '\r' or NUL, the tokenizer would return the keys lower-cased and the values verbatim: they are then cut
// from the raw bytes as html.Tokenizer's readTag cuts them, without the two copies per attribute
// TagAttr makes. Otherwise TagAttr decodes them.
type tagAttrs struct {
	z    *html.Tokenizer
	raw  []byte
	fast bool
	more bool
	list [32]rawAttr
	n, i int
	key  []byte
}

// rawAttr is an attribute as offsets into a tag's raw bytes.
type rawAttr struct{ k0, k1, v0, v1 int }

func (a *tagAttrs) reset(z *html.Tokenizer) {
	a.z, a.raw, a.more, a.i, a.n = z, z.Raw(), true, 0, 0
	a.n, a.fast = parseRawAttrs(a.raw, a.list[:])
}

// next returns the next attribute's lower-case key and value; both are valid until the next call.
func (a *tagAttrs) next() (key, val []byte, ok bool) {
	if a.fast {
		if a.i >= a.n {
			return nil, nil, false
		}
		r := a.list[a.i]
		a.i++
		a.key = append(a.key[:0], a.raw[r.k0:r.k1]...)
		for j, c := range a.key {
			if 'A' <= c && c <= 'Z' {
				a.key[j] = c + 'a' - 'A'
			}
		}
		return a.key, a.raw[r.v0:r.v1], true
	}
	if !a.more {
		return nil, nil, false
	}
	key, val, a.more = a.z.TagAttr()
	return key, val, key != nil
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

// parseRawAttrs cuts the raw bytes of a start tag ("<a href=x>") into attributes exactly as
// html.Tokenizer's readTag, readTagAttrKey and readTagAttrVal do, dropping empty and repeated
// keys. ok is false when there are more than len(out), or when a key or value holds a byte
// TagAttr would rewrite ('&', '\r', NUL).
func parseRawAttrs(raw []byte, out []rawAttr) (n int, ok bool) {
	i := 1
	for i < len(raw) { // the tag name
		c := raw[i]
		i++
		if isHTMLSpace(c) {
			break
		}
		if c == '/' || c == '>' {
			i--
			break
		}
	}
	skip := func() {
		for i < len(raw) && isHTMLSpace(raw[i]) {
			i++
		}
	}
	skip()
	for i < len(raw) && raw[i] != '>' {
		// The key: an '=' first is part of it.
		k0 := i
		for i < len(raw) {
			c := raw[i]
			i++
			if c == '=' && i == k0+1 {
				continue
			}
			if c == '=' || c == '/' || c == '>' || isHTMLSpace(c) {
				i--
				break
			}
		}
		k1 := i
		// The value.
		v0, v1 := i, i
		skip()
		if i < len(raw) {
			c := raw[i]
			i++
			switch {
			case c == '/':
			case c != '=':
				i--
			default:
				skip()
				if i < len(raw) {
					q := raw[i]
					i++
					switch q {
					case '>':
						i--
					case '\'', '"':
						v0 = i
						for i < len(raw) && raw[i] != q {
							i++
						}
						v1 = i
						if i < len(raw) {
							i++
						}
					default:
						v0 = i - 1
						for i < len(raw) && raw[i] != '>' && !isHTMLSpace(raw[i]) {
							i++
						}
						v1 = i
						if i < len(raw) && raw[i] != '>' {
							i++
						}
					}
				}
			}
		}
		if rewritten(raw[k0:k1]) || rewritten(raw[v0:v1]) {
			return n, false
		}
		if k1 > k0 && !repeatedKey(raw, out[:n], k0, k1) {
			if n == len(out) {
				return n, false
			}
			out[n] = rawAttr{k0, k1, v0, v1}
			n++
		}
		skip()
	}
	return n, true
}

// rewritten reports whether b holds a byte TagAttr would rewrite: a character reference, a
// carriage return or a NUL.
func rewritten(b []byte) bool {
	for _, c := range b {
		if c == '&' || c == '\r' || c == 0 {
			return true
		}
	}
	return false
}

// repeatedKey reports whether raw[k0:k1] names an attribute already in list (ASCII
// case-insensitively); the tokenizer keeps the first.
func repeatedKey(raw []byte, list []rawAttr, k0, k1 int) bool {
	for _, r := range list {
		if r.k1-r.k0 != k1-k0 {
			continue
		}
		same := true
		for j := 0; j < k1-k0; j++ {
			if foldASCII(raw[r.k0+j]) != foldASCII(raw[k0+j]) {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}

func foldASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// element handles the URL-bearing elements other than script.
func (x *extractor) element(tag int, attrs *tagAttrs) {
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
func (x *extractor) absolute(raw string) (abs, host string, ok bool) {
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

func (x *extractor) thirdParty(host string) (bool, string) {
	if host == x.pageHost {
		return false, x.pageDom
	}
	d := x.domainOf(host)
	return d != x.pageDom, d
}

// resource fingerprints a script, iframe, pixel or link URL.
func (x *extractor) resource(kind, raw string, gated bool) {
	abs, host, ok := x.absolute(raw)
	if !ok {
		return
	}
	third, dom := x.thirdParty(host)
	f := x.fp.url(x.ix, abs)
	if f.svc != nil {
		x.rep.addHit(hit{svc: f.svc, ev: Evidence{Kind: kind, Page: x.page, URL: abs, Gated: gated}})
	}
	for _, id := range f.ids {
		x.rep.addHit(hit{svc: id.svc, id: id.id, ev: Evidence{Kind: kind, Page: x.page, URL: abs, Gated: gated}})
	}
	if f.svc == nil && len(f.ids) == 0 && kind == EvidenceScript && third {
		x.rep.unrec = append(x.rep.unrec, unrecHit{src: abs, domain: dom, page: x.page, gated: gated})
	}
}

// inline fingerprints inline script text: tracking IDs, and service URLs written in the code
// (vendor snippets build their script tags from string literals).
func (x *extractor) inline(b []byte, gated bool) {
	if len(b) == 0 {
		return
	}
	// text aliases the tokenizer's buffer for the duration of this call only; the findings own
	// their strings.
	for _, f := range x.fp.script(x.ix, unsafe.String(&b[0], len(b)), x.base.Scheme) {
		x.rep.addHit(hit{svc: f.svc, id: f.id,
			ev: Evidence{Kind: f.kind, Page: x.page, URL: f.url, Snippet: f.snippet, Gated: gated}})
	}
}

// fingerprints caches, for one scan, what a resource URL or an inline script's text yields: the
// pages of a site repeat their tags, and the work depends on the text alone. A nil
// *fingerprints computes every time.
type fingerprints struct {
	mu      sync.Mutex
	urls    map[string]urlFindings
	scripts map[scriptKey][]finding
	size    int // bytes of script text held
}

// Bounds of a scan's fingerprint cache.
const (
	maxCachedURLs        = 1 << 14
	maxCachedScript      = 32 << 10
	maxCachedScriptBytes = 8 << 20
)

func newFingerprints() *fingerprints {
	return &fingerprints{urls: map[string]urlFindings{}, scripts: map[scriptKey][]finding{}}
}

// scriptKey is an inline script's text and the scheme scheme-relative URLs in it resolve to.
type scriptKey struct{ text, scheme string }

// urlFindings is what a URL yields: the service its pattern names and the IDs it carries.
type urlFindings struct {
	svc *library.Service
	ids []idFinding
}

type idFinding struct {
	svc *library.Service
	id  string
}

// finding is a service sighting in an inline script: an ID (with a snippet) or a URL.
type finding struct {
	svc          *library.Service
	id           string
	kind         string
	url, snippet string
}

func (c *fingerprints) url(ix *library.Index, abs string) urlFindings {
	if c != nil {
		c.mu.Lock()
		f, ok := c.urls[abs]
		c.mu.Unlock()
		if ok {
			return f
		}
	}
	var f urlFindings
	if m, ok := ix.MatchURL(abs); ok {
		f.svc = m.Service
	}
	ix.FindTrackingIDs(abs, func(m library.IDMatch) {
		f.ids = append(f.ids, idFinding{m.Service, m.ID})
	})
	if c != nil {
		c.mu.Lock()
		if len(c.urls) < maxCachedURLs {
			c.urls[abs] = f
		}
		c.mu.Unlock()
	}
	return f
}

// script returns the findings of an inline script, scheme-relative URLs resolved to scheme; text
// may alias a buffer that changes later.
func (c *fingerprints) script(ix *library.Index, text, scheme string) []finding {
	cacheable := c != nil && len(text) <= maxCachedScript
	if cacheable {
		c.mu.Lock()
		f, ok := c.scripts[scriptKey{text, scheme}]
		c.mu.Unlock()
		if ok {
			return f
		}
	}
	f := scriptFindings(ix, text, scheme)
	if cacheable {
		c.mu.Lock()
		if c.size+len(text) <= maxCachedScriptBytes {
			if _, ok := c.scripts[scriptKey{text, scheme}]; !ok {
				c.scripts[scriptKey{strings.Clone(text), scheme}] = f
				c.size += len(text)
			}
		}
		c.mu.Unlock()
	}
	return f
}

// scriptFindings fingerprints inline script text; every string kept is cloned.
func scriptFindings(ix *library.Index, text, scheme string) []finding {
	var out []finding
	ix.FindTrackingIDs(text, func(m library.IDMatch) {
		out = append(out, finding{svc: m.Service, id: strings.Clone(m.ID), kind: EvidenceInlineScript, snippet: snippet(text, m.Start, m.End)})
	})
	scanURLLiterals(text, func(u string, unescaped bool) {
		m, ok := ix.MatchURL(u)
		if !ok && !unescaped {
			return
		}
		if strings.HasPrefix(u, "//") {
			u = scheme + ":" + u
		} else {
			u = strings.Clone(u)
		}
		if ok {
			out = append(out, finding{svc: m.Service, kind: EvidenceInlineURL, url: u})
		}
		if unescaped {
			// IDs inside JSON-escaped URLs ("https:\/\/...\/config\/123") were invisible to
			// the pass over the raw text.
			ix.FindTrackingIDs(u, func(m library.IDMatch) {
				out = append(out, finding{svc: m.Service, id: m.ID, kind: EvidenceInlineURL, url: u})
			})
		}
	})
	return out
}

// attributes looks for tracking IDs in a script element's attributes.
func (x *extractor) attributes(b []byte, gated bool) {
	text := unsafe.String(&b[0], len(b))
	x.ix.FindTrackingIDs(text, func(m library.IDMatch) {
		x.rep.addHit(hit{svc: m.Service, id: strings.Clone(m.ID),
			ev: Evidence{Kind: EvidenceScript, Page: x.page, Snippet: snippet(text, m.Start, m.End), Gated: gated}})
	})
}

// snippet returns the match with a little context, whitespace collapsed, at most ~100 bytes.
func snippet(text string, start, end int) string {
	const ctx = 24
	lo, hi := max(start-ctx, 0), min(end+ctx, len(text))
	if end-start > 80 {
		hi = start + 80
	}
	for lo > 0 && lo < len(text) && !utf8.RuneStart(text[lo]) {
		lo++
	}
	for hi < len(text) && hi > lo && !utf8.RuneStart(text[hi]) {
		hi--
	}
	return collapseSpace(text[lo:hi])
}

// collapseSpace is strings.Join(strings.Fields(s), " ") in one allocation.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	gap := false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if unicode.IsSpace(r) {
			gap = b.Len() > 0
		} else {
			if gap {
				b.WriteByte(' ')
				gap = false
			}
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// linkBytes records an <a href> for the crawl frontier.
func (x *extractor) linkBytes(raw []byte) {
	raw = bytes.TrimSpace(raw)
	if abs, path, ok := x.plainLink(raw); ok {
		if !skipExtension(path) {
			x.rep.addLink(abs)
		}
		return
	}
	x.link(string(raw))
}

// link records an <a href> for the crawl frontier.
func (x *extractor) link(raw string) {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw[0] == '#' {
		return
	}
	u, err := x.base.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return
	}
	u.Fragment, u.RawFragment = "", ""
	if skipExtension(u.Path) {
		return
	}
	x.rep.addLink(u.String())
}

// skipExtension is true for links that are certainly not HTML pages.
func skipExtension(p string) bool {
	i := strings.LastIndexByte(p, '.')
	if i < 0 || strings.IndexByte(p[i:], '/') >= 0 {
		return false
	}
	switch strings.ToLower(p[i+1:]) {
	case "pdf", "jpg", "jpeg", "png", "gif", "webp", "svg", "ico", "zip", "gz", "mp4", "mp3", "webm",
		"css", "js", "json", "xml", "txt", "csv", "doc", "docx", "xls", "xlsx", "woff", "woff2", "ttf", "avif":
		return true
	}
	return false
}

// scanURLLiterals calls fn with every absolute or scheme-relative URL written in JavaScript or
// JSON text, including the "https:\/\/" form of JSON strings (unescaped before fn).
func scanURLLiterals(text string, fn func(u string, unescaped bool)) {
	scanSlashes(text, "//", func(u string) { fn(u, false) })
	if strings.Contains(text, `\/\/`) {
		scanSlashes(text, `\/\/`, func(u string) { fn(strings.ReplaceAll(u, `\/`, "/"), true) })
	}
}

func scanSlashes(text, sep string, fn func(string)) {
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], sep)
		if j < 0 {
			return
		}
		p := i + j
		i = p + len(sep)
		start := -1
		switch {
		case p >= 6 && strings.EqualFold(text[p-6:p], "https:"):
			start = p - 6
		case p >= 5 && strings.EqualFold(text[p-5:p], "http:"):
			start = p - 5
		case p >= 1 && strings.IndexByte("'\"`(=", text[p-1]) >= 0:
			start = p
		default:
			continue
		}
		end := p + len(sep)
		dot := false
		for end < len(text) && isHostByte(text[end]) {
			dot = dot || text[end] == '.'
			end++
		}
		if !dot || end == p+len(sep) {
			continue
		}
		for end < len(text) && isURLByte(text[end], sep != "//") {
			end++
		}
		fn(strings.TrimRight(text[start:end], `\`))
		i = end
	}
}

func isHostByte(c byte) bool {
	return c == '.' || c == '-' || c == ':' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

func isURLByte(c byte, escapedSlashes bool) bool {
	switch c {
	case '"', '\'', '`', ' ', '\t', '\n', '\r', '\f', '<', '>', '(', ')', '{', '}', '|', '^', '[', ']':
		return false
	case '\\':
		return escapedSlashes
	}
	return c > 0x20 && c != 0x7f
}
