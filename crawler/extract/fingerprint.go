package extract

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/consentd/consentd/library"
)

// Cache holds, for one scan, what a resource URL or an inline script's text yields: the
// pages of a site repeat their tags, and the work depends on the text alone. A nil *Cache
// computes every time. It is safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	urls    map[string]URLFindings
	scripts map[scriptKey][]finding
	size    int // bytes of script text held
}

// Bounds of a scan's fingerprint cache.
const (
	maxCachedURLs        = 1 << 14
	maxCachedScript      = 32 << 10
	maxCachedScriptBytes = 8 << 20
)

// NewCache returns an empty cache, for one scan.
func NewCache() *Cache {
	return &Cache{urls: map[string]URLFindings{}, scripts: map[scriptKey][]finding{}}
}

// scriptKey is an inline script's text and the scheme scheme-relative URLs in it resolve to.
type scriptKey struct{ text, scheme string }

// URLFindings is what a URL yields: the service its pattern names (nil: none) and the IDs it
// carries.
type URLFindings struct {
	Service *library.Service
	IDs     []IDFinding
}

// IDFinding is a tracking ID and the service it belongs to.
type IDFinding struct {
	Service *library.Service
	ID      string
}

// finding is a service sighting in an inline script: an ID (with a snippet) or a URL.
type finding struct {
	svc          *library.Service
	id           string
	kind         string
	url, snippet string
}

// URL matches an absolute URL against the index: the service of its pattern and the IDs in it.
func (c *Cache) URL(ix *library.Index, abs string) URLFindings {
	if c != nil {
		c.mu.Lock()
		f, ok := c.urls[abs]
		c.mu.Unlock()
		if ok {
			return f
		}
	}
	var f URLFindings
	if m, ok := ix.MatchURL(abs); ok {
		f.Service = m.Service
	}
	ix.FindTrackingIDs(abs, func(m library.IDMatch) {
		f.IDs = append(f.IDs, IDFinding{m.Service, m.ID})
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
func (c *Cache) script(ix *library.Index, text, scheme string) []finding {
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
		out = append(out, finding{svc: m.Service, id: strings.Clone(m.ID), kind: EvidenceInlineScript, snippet: Snippet(text, m.Start, m.End)})
	})
	if norm, gaps, ok := callNamesOf(ix).normalizeCalls(text); ok {
		// Calls spaced or quoted unusually: what the plain pass missed.
		found := len(out)
		ix.FindTrackingIDs(norm, func(m library.IDMatch) {
			for _, f := range out[:found] {
				if f.svc == m.Service && f.id == m.ID {
					return
				}
			}
			// The snippet is cut from the text as written.
			out = append(out, finding{svc: m.Service, id: m.ID, kind: EvidenceInlineScript,
				snippet: Snippet(text, origOffset(gaps, m.Start), origOffset(gaps, m.End))})
		})
	}
	scanConcatenatedHosts(text, func(lit string, start, end int) {
		// A vendor URL built around a variable ('https://' + name + '.disqus.com/embed.js')
		// counts when a library pattern names any host under the literal's domain.
		m, ok := ix.MatchURL("https://placeholder" + lit)
		if ok && strings.HasPrefix(m.Pattern, "*.") {
			out = append(out, finding{svc: m.Service, kind: EvidenceInlineURL, snippet: exprSnippet(text, start, end)})
		}
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

// Snippet returns the match text[start:end] with a little context, whitespace collapsed, at
// most ~100 bytes.
func Snippet(text string, start, end int) string {
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
