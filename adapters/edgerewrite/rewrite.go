package edgerewrite

import (
	"bufio"
	"bytes"
	"html"
	"io"
	"net/url"
	"strings"

	xhtml "golang.org/x/net/html"

	"github.com/consentd/consentd/core/edge"
)

// Rewrite copies the HTML page read from r to w, holding what v holds (docs/edge.md, "The held
// forms"): tokens it does not change are copied byte for byte from the input, never
// re-serialized. base is the page's URL, against which relative URLs resolve (a <base href>
// in the page takes over). Memory stays constant whatever the page's size: one token and the
// tokenizer's and writer's buffers at a time (an inline script is one token). What has been
// rewritten is flushed to w (and, when w has a Flush method, through it) whenever reading r
// would wait, so that the page streams. Malformed markup is copied as the tokenizer reads it,
// which is byte for byte too.
func Rewrite(w io.Writer, r io.Reader, v *edge.Visitor, base *url.URL) error {
	b := buffersPool.Get().(*buffers)
	defer b.release()
	b.in.Reset(r)
	b.out.Reset(w)
	out := b.out
	in := &flushingReader{r: b.in, out: out, w: w}
	rw := &rewriter{v: v, base: base, out: out, early: in, bufs: b}
	if base != nil {
		rw.baseNamed = v.NamesHost(strings.ToLower(base.Hostname()))
	}
	run := rw.stream
	if tokenizerOnly {
		run = func(r io.Reader) error { return rw.run(xhtml.NewTokenizer(r)) }
	}
	if err := run(in); err != nil {
		return err
	}
	return flushAll(out, w)
}

// tokenizerOnly makes Rewrite read everything with the tokenizer, without scan.go's scanner
// (tests compare both).
var tokenizerOnly = false

type rewriter struct {
	v    *edge.Visitor
	base *url.URL
	// baseNamed is whether a rule names the base URL's host: relative URLs need a closer look
	// only then.
	baseNamed bool
	// baseSeen: only the first <base href> counts.
	baseSeen bool
	out      *bufio.Writer
	// script is the start tag of an inline script waiting for its text (held or not is
	// decided by its text); nil otherwise.
	script []byte
	// scriptBuf is script's memory, reused from script to script.
	scriptBuf []byte
	// spans is the attribute list parseAttrs fills, reused from tag to tag.
	spans []span
	// early, until the page's first bytes are flushed, flushes them (scan.go).
	early *flushingReader
	// bufs are the scanner's buffers.
	bufs *buffers
	// ed is the edits of the tag being rewritten (their list reused); marked the marks of each
	// rule met.
	ed     edits
	marked map[*edge.HoldRule]string
	// noscript is true after a <noscript> start tag: its content (raw text to the tokenizer)
	// is rewritten as a fragment.
	noscript bool
}

func (rw *rewriter) run(z *xhtml.Tokenizer) error {
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return rw.end(z)
		}
		if err := rw.token(tt, z.Raw()); err != nil {
			return err
		}
	}
}

// runOne reads one construct with the tokenizer (scan.go's handoff): a comment, a doctype, or a
// script to its end tag.
func (rw *rewriter) runOne(z *xhtml.Tokenizer) error {
	for first := true; ; first = false {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return rw.end(z)
		}
		if err := rw.token(tt, z.Raw()); err != nil {
			return err
		}
		if tt == xhtml.EndTagToken || (first && tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken) {
			return nil
		}
	}
}

// end ends a run at the tokenizer's error: the end of the input, or the reader's error.
func (rw *rewriter) end(z *xhtml.Tokenizer) error {
	if rw.script != nil {
		rw.out.Write(rw.script)
		rw.script = nil
	}
	if err := z.Err(); err != io.EOF {
		return err
	}
	// A tag cut off by the end of the input (which the browser drops) goes out as it came too.
	rw.out.Write(z.Raw())
	return nil
}

// token handles one token of the tokenizer.
func (rw *rewriter) token(tt xhtml.TokenType, raw []byte) error {
	if rw.script != nil {
		start := rw.script
		rw.script = nil
		if tt == xhtml.TextToken {
			if r := rw.inlineHold(raw); r != nil {
				heldTotal.WithLabelValues("inline_script").Inc()
				rw.holdScript(start, rw.attrsOf(start), r)
				rw.out.Write(raw)
				return nil
			}
		}
		rw.out.Write(start)
	}
	switch tt {
	case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
		rw.noscript = false
		if !rw.tag(raw, tt == xhtml.StartTagToken) {
			rw.out.Write(raw)
		}
	case xhtml.TextToken:
		if rw.noscript {
			rw.noscript = false
			// The content of <noscript>, raw text to a tokenizer run with scripting on,
			// is markup where scripting is off: its images and frames are held too.
			return rw.run(xhtml.NewTokenizer(bytes.NewReader(raw)))
		}
		rw.out.Write(raw)
	default:
		rw.noscript = false
		rw.out.Write(raw)
	}
	return nil
}

// tag handles a start tag raw; it returns false when the tag goes out as it came.
func (rw *rewriter) tag(raw []byte, open bool) bool {
	name := tagName(raw)
	switch len(name) {
	case 3:
		if asciiEq(name, "img") {
			return rw.img(raw)
		}
	case 4:
		if asciiEq(name, "link") {
			return rw.link(raw)
		}
		if asciiEq(name, "base") && !rw.baseSeen {
			rw.baseSeen = true
			if a := rw.attrsOf(raw); a.get(raw, "href") != nil {
				if u, err := rw.resolve(html.UnescapeString(a.get(raw, "href").value(raw))); err == nil {
					rw.base, rw.baseNamed = u, rw.v.NamesHost(strings.ToLower(u.Hostname()))
				}
			}
		}
	case 6:
		if asciiEq(name, "script") {
			return rw.scriptTag(raw, open)
		}
		if asciiEq(name, "iframe") {
			return rw.iframe(raw)
		}
	case 8:
		// (self-closing or not, as the tokenizer reads it: its content is raw text)
		if asciiEq(name, "noscript") {
			rw.noscript = true
		}
	}
	return false
}

func (rw *rewriter) scriptTag(raw []byte, open bool) bool {
	a := rw.attrsOf(raw)
	if t := a.get(raw, "type"); t != nil && strings.EqualFold(strings.TrimSpace(t.value(raw)), held.ScriptType) {
		return false // marked by the page: the runtime activates it
	}
	src := a.get(raw, "src")
	if src == nil {
		if open && scriptType(a, raw) {
			rw.script = append(rw.scriptBuf[:0], raw...)
			rw.scriptBuf = rw.script
			return true
		}
		return false
	}
	r := rw.holdAttr(raw, src, false)
	if r == nil {
		return false
	}
	heldTotal.WithLabelValues("script").Inc()
	rw.holdScript(raw, a, r)
	return true
}

// scriptType reports whether a script's type is JavaScript (classic or module): only those
// may load what a held URL in their text names.
func scriptType(a attrs, raw []byte) bool {
	t := a.get(raw, "type")
	if t == nil {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(t.value(raw))) {
	case "", "module", "text/javascript", "application/javascript", "text/ecmascript", "application/ecmascript":
		return true
	}
	return false
}

// held are the forms of a held element, core's (edge.HeldForms), which the rule set serves
// and the runtime restores; heldType is a held script's type attribute, heldCategory and
// heldService the starts of the marks (built once: marks is on the hot path).
var (
	held         = edge.HeldForms()
	heldType     = ` type="` + held.ScriptType + `"`
	heldCategory = ` ` + held.Category + `="`
	heldService  = `" ` + held.Service + `="`
)

// holdScript writes the held form of the script start tag raw: type text/plain, its own type
// kept in data-consentd-type, its category and service.
func (rw *rewriter) holdScript(raw []byte, a attrs, r *edge.HoldRule) {
	e := rw.edits(raw)
	e.insert(a.nameEnd, heldType)
	e.insert(a.nameEnd, rw.marks(r))
	if t := a.get(raw, "type"); t != nil {
		e.remove(t)
		e.insert(a.nameEnd, ` `+held.OriginalType+`="`+html.EscapeString(t.value(raw))+`"`)
	}
	e.removeAll(a, held.Category, held.Service, held.OriginalType)
	rw.apply(e)
}

// edits starts the edits of the tag raw, with the rewriter's reused list of operations.
func (rw *rewriter) edits(raw []byte) *edits {
	rw.ed = edits{raw: raw, ops: rw.ed.ops[:0]}
	return &rw.ed
}

// apply writes the tag that e edits.
func (rw *rewriter) apply(e *edits) { e.write(rw.out) }

func (rw *rewriter) iframe(raw []byte) bool {
	a := rw.attrsOf(raw)
	src := a.get(raw, "src")
	if src == nil {
		return false
	}
	r := rw.holdAttr(raw, src, false)
	if r == nil {
		return false
	}
	heldTotal.WithLabelValues("iframe").Inc()
	e := rw.edits(raw)
	e.removeAll(a, held.IframeSrc, held.Category, held.Service)
	e.rename(a, src, held.IframeSrc)
	e.insert(a.nameEnd, rw.marks(r))
	rw.apply(e)
	return true
}

func (rw *rewriter) img(raw []byte) bool {
	a := rw.attrsOf(raw)
	src := a.get(raw, "src")
	if src == nil {
		return false
	}
	r := rw.holdAttr(raw, src, true)
	if r == nil {
		return false
	}
	heldTotal.WithLabelValues("img").Inc()
	e := rw.edits(raw)
	e.removeAll(a, held.ImgSrc, held.ImgSrcset, held.Category, held.Service)
	e.rename(a, src, held.ImgSrc)
	if s := a.get(raw, "srcset"); s != nil {
		e.rename(a, s, held.ImgSrcset)
	}
	e.insert(a.nameEnd, rw.marks(r))
	rw.apply(e)
	return true
}

// hints are the link types that make the browser connect to or fetch from a host ahead.
var hints = []string{"preload", "modulepreload", "prefetch", "preconnect", "dns-prefetch"}

func (rw *rewriter) link(raw []byte) bool {
	a := rw.attrsOf(raw)
	rel, href := a.get(raw, "rel"), a.get(raw, "href")
	if rel == nil || href == nil {
		return false
	}
	stylesheet, hint := false, false
	for _, t := range strings.Fields(rel.value(raw)) {
		switch {
		case strings.EqualFold(t, "stylesheet"):
			stylesheet = true
		default:
			for _, h := range hints {
				if strings.EqualFold(t, h) {
					hint = true
				}
			}
		}
	}
	if hint {
		if u, err := rw.resolve(html.UnescapeString(href.value(raw))); err == nil && (u.Scheme == "http" || u.Scheme == "https") &&
			rw.v.HoldHost(strings.ToLower(u.Hostname())) != nil {
			heldTotal.WithLabelValues("hint").Inc()
			return true // removed: what it prepares must not be fetched
		}
	}
	if !stylesheet {
		return false
	}
	r := rw.holdAttr(raw, href, true)
	if r == nil {
		return false
	}
	heldTotal.WithLabelValues("stylesheet").Inc()
	e := rw.edits(raw)
	e.removeAll(a, held.LinkHref, held.Category, held.Service)
	e.rename(a, href, held.LinkHref)
	e.insert(a.nameEnd, rw.marks(r))
	rw.apply(e)
	return true
}

// marks are the attributes naming a held element's category and service, made once per rule
// and page.
func (rw *rewriter) marks(r *edge.HoldRule) string {
	if m, ok := rw.marked[r]; ok {
		return m
	}
	if rw.marked == nil {
		rw.marked = map[*edge.HoldRule]string{}
	}
	m := heldCategory + html.EscapeString(r.Category) + heldService + html.EscapeString(r.Service) + `"`
	rw.marked[r] = m
	return m
}

// holdAttr is hold of the value of the attribute s of the tag raw. A URL relative to the page,
// where no rule names the page's host, is let through without a closer look (most of a site's
// own resources).
func (rw *rewriter) holdAttr(raw []byte, s *span, resource bool) *edge.HoldRule {
	if !rw.v.HoldsAny() {
		return nil
	}
	if v := raw[s.valStart:s.valEnd]; !rw.baseNamed && relative(v) {
		return nil
	}
	return rw.hold(s.value(raw), resource)
}

// relative reports whether v is surely a URL relative to the page's host: no scheme, not
// scheme-relative, no character reference that could hide either.
func relative(v []byte) bool {
	v = bytes.TrimLeft(v, " \t\n\r\f")
	if bytes.ContainsAny(v, "\t\n\r") { // the browser drops them anywhere in a URL
		return false
	}
	if len(v) >= 2 && (v[0] == '/' || v[0] == '\\') && (v[1] == '/' || v[1] == '\\') {
		return false
	}
	for _, c := range v {
		switch c {
		case ':', '&':
			return false
		case '/', '?', '#':
			return true
		}
	}
	return true
}

// hold returns the rule holding the URL in the attribute value val (HTML-escaped), nil when it
// may load; resource picks the rules for images and stylesheets (Visitor.HoldResource).
func (rw *rewriter) hold(val string, resource bool) *edge.HoldRule {
	if !rw.v.HoldsAny() {
		return nil
	}
	if strings.IndexByte(val, '&') >= 0 {
		val = html.UnescapeString(val)
	}
	if strings.ContainsAny(val, "\t\n\r") {
		val = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(val)
	}
	host, ok := quickHost(val)
	if !ok {
		return nil
	}
	if host == "" {
		if !rw.baseNamed {
			return nil
		}
	} else if !rw.v.NamesHost(host) {
		return nil
	}
	u, err := rw.resolve(val)
	if err != nil {
		return nil
	}
	if resource {
		return rw.v.HoldResource(u)
	}
	return rw.v.Hold(u)
}

// resolve resolves an attribute's URL against the page as a browser does, for what matters to
// matching: surrounding spaces and control characters trimmed, tabs and newlines removed,
// backslashes as slashes.
func (rw *rewriter) resolve(val string) (*url.URL, error) {
	val = strings.TrimFunc(val, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(val, "\t\n\r\\") {
		val = strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(val)
	}
	u, err := url.Parse(val)
	if err != nil {
		return nil, err
	}
	if rw.base != nil {
		u = rw.base.ResolveReference(u)
	}
	return u, nil
}

// quickHost finds the host of a URL cheaply: ok false for a scheme other than http and https,
// host "" for a URL relative to the page's host, else the host in lower case without port or
// user.
func quickHost(s string) (host string, ok bool) {
	s = strings.TrimLeft(s, " \t\n\r\f")
	rest := ""
	switch {
	case strings.HasPrefix(s, "//") || strings.HasPrefix(s, `\\`) || strings.HasPrefix(s, `/\`) || strings.HasPrefix(s, `\/`):
		rest = s[2:]
	case len(s) >= 7 && strings.EqualFold(s[:7], "http://"):
		rest = s[7:]
	case len(s) >= 8 && strings.EqualFold(s[:8], "https://"):
		rest = s[8:]
	default:
		// A scheme is letters, digits, +, - and . before the first ':' that comes before any
		// '/', '?' or '#'.
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == ':':
				if i == 0 {
					return "", true
				}
				return "", false // another scheme (http: without slashes is rare enough to let pass)
			case c == '/' || c == '?' || c == '#' || c == '\\':
				return "", true
			case !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
				return "", true
			}
		}
		return "", true
	}
	if i := strings.IndexAny(rest, `/?#\`); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	if !strings.HasPrefix(rest, "[") {
		if i := strings.IndexByte(rest, ':'); i >= 0 {
			rest = rest[:i]
		}
	}
	rest = strings.TrimRight(rest, ".")
	return strings.ToLower(rest), rest != ""
}

// inlineHold returns the rule holding the first held URL an inline script's text names
// (https://host/..., //host/...), nil when it names none.
func (rw *rewriter) inlineHold(text []byte) *edge.HoldRule {
	if !rw.v.HoldsAny() {
		return nil
	}
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte("//"))
		if j < 0 {
			return nil
		}
		i += j + 2
		end := i
		for end < len(text) && urlByte(text[end]) {
			end++
		}
		if end == i {
			continue
		}
		cand := string(text[i:end])
		host, _, _ := strings.Cut(cand, "/")
		if k := strings.IndexAny(host, "?#"); k >= 0 {
			host = host[:k]
		}
		host = strings.ToLower(host)
		if host == "" || !rw.v.NamesHost(host) {
			i = end
			continue
		}
		if u, err := url.Parse("https://" + cand); err == nil {
			if r := rw.v.Hold(u); r != nil {
				return r
			}
		}
		i = end
	}
}

// urlByte reports whether c may be part of a URL written in a script's string literal.
func urlByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&*+,;=%", c) >= 0
}

// attrsOf reads the attributes of the start tag raw (valid until the next call).
func (rw *rewriter) attrsOf(raw []byte) attrs {
	a := parseAttrs(raw, rw.spans)
	rw.spans = a.list
	return a
}
