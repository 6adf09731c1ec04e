package extract

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/consentd/consentd/library"
)

// Vendor snippets are often rewritten by hand or by minifiers: "fbq ( 'init' , ...)" with a
// space before the parenthesis, backquoted strings, vendor URLs built from a variable. The
// library's tracking-ID patterns are written for the usual form; what follows lets the static
// pass read the others without loosening the patterns.

// callNames are the function names a library tracking-ID pattern writes immediately before
// "\(" ("fbq" in `fbq\(\s*['"]init`), for one index.
type callNames map[string]bool

var callNamesByIndex sync.Map // *library.Index → callNames

// callNamesOf returns the call names of ix's tracking-ID patterns, computed once per index.
func callNamesOf(ix *library.Index) callNames {
	return perIndex(&callNamesByIndex, ix, func() callNames {
		names := callNames{}
		for _, svc := range ix.Services() {
			for _, id := range svc.TrackingIDs {
				addCallNames(names, id.Pattern)
			}
		}
		return names
	})
}

// perIndex returns what build derives from ix, built once per index and kept in m.
func perIndex[T any](m *sync.Map, ix *library.Index, build func() T) T {
	if v, ok := m.Load(ix); ok {
		return v.(T)
	}
	v, _ := m.LoadOrStore(ix, build())
	return v.(T)
}

// addCallNames adds the identifiers written just before `\(` in a regex's source.
func addCallNames(names callNames, pattern string) {
	for i := 0; ; {
		j := strings.Index(pattern[i:], `\(`)
		if j < 0 {
			return
		}
		end := i + j
		i = end + 2
		start := end
		for start > 0 && isIdentByte(pattern[start-1]) {
			start--
		}
		if start > 0 && pattern[start-1] == '\\' && start < end {
			start++ // `\bym\(`: the b is an escape, not part of the name
		}
		if start < end {
			names[pattern[start:end]] = true
		}
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

func isJSSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// normalizeCalls returns text with the white space between a call name and its "(" removed and
// backquotes turned into single quotes, so that `fbq ( "init", ...)` and fbq(`init`, ...) read
// as the patterns expect; ok is false when there is nothing to change. Backquotes are turned
// only in scripts where one follows a known call closely: minified code is full of template
// literals, and re-reading every such script would cost the static pass what it gains. gaps
// are the [from, to) ranges of text removed, for origOffset.
func (names callNames) normalizeCalls(text string) (out string, gaps []int, ok bool) {
	hasBackquote := strings.IndexByte(text, '`') >= 0
	backquote := false
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '(')
		if j < 0 {
			break
		}
		p := i + j
		i = p + 1
		if p == 0 {
			continue
		}
		spaced := isJSSpace(text[p-1])
		if !spaced && (!hasBackquote || backquote || !isIdentByte(text[p-1])) {
			continue
		}
		ws := p
		for ws > 0 && isJSSpace(text[ws-1]) {
			ws--
		}
		start := ws
		for start > 0 && isIdentByte(text[start-1]) {
			start--
		}
		if start == ws || !names[text[start:ws]] {
			continue
		}
		if spaced {
			gaps = append(gaps, ws, p)
		}
		if hasBackquote && !backquote {
			backquote = strings.IndexByte(text[p:min(p+callWindow, len(text))], '`') >= 0
		}
	}
	if len(gaps) == 0 && !backquote {
		return "", nil, false
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for k := 0; k < len(gaps); k += 2 {
		b.WriteString(text[last:gaps[k]])
		last = gaps[k+1]
	}
	b.WriteString(text[last:])
	out = b.String()
	if backquote {
		out = strings.ReplaceAll(out, "`", "'")
	}
	return out, gaps, true
}

// callWindow is how far after a known call's "(" a backquote counts as quoting its arguments.
const callWindow = 64

// origOffset maps an offset of normalizeCalls' output back to its input.
func origOffset(gaps []int, off int) int {
	for k := 0; k < len(gaps); k += 2 {
		if gaps[k] > off {
			break
		}
		off += gaps[k+1] - gaps[k]
	}
	return off
}

// scanConcatenatedHosts calls fn with the string literals of script text that start with a
// dot, a host name and a path, and are concatenated to something before them:
// `'https://' + shortname + '.disqus.com/embed.js'` yields ".disqus.com/embed.js". lit is the
// literal without quotes, span the source from the expression's first literal or operand to the
// literal's end.
func scanConcatenatedHosts(text string, fn func(lit string, start, end int)) {
	for _, q := range [...]string{`'.`, `".`, "`."} {
		for i := 0; i < len(text); {
			j := strings.Index(text[i:], q)
			if j < 0 {
				break
			}
			open := i + j
			i = open + 2
			k := open - 1
			for k >= 0 && isJSSpace(text[k]) {
				k--
			}
			if k < 0 || text[k] != '+' {
				continue
			}
			end := open + 2
			dot := false
			for end < len(text) && isHostByte(text[end]) && text[end] != ':' {
				dot = dot || text[end] == '.'
				end++
			}
			if !dot || end >= len(text) || text[end] != '/' {
				continue // a URL has a path after the host: ".disqus.com/embed.js"
			}
			for end < len(text) && text[end] != q[0] && isURLByte(text[end], false) {
				end++
			}
			if end >= len(text) || text[end] != q[0] {
				continue
			}
			// The expression starts at the previous opening quote on the line, if any.
			start := open
			if ls := strings.LastIndexAny(text[:open], "=(\n;,"); ls >= 0 {
				start = ls + 1
			}
			fn(text[open+1:end], start, end+1)
			i = end + 1
		}
	}
}

// exprSnippet is the source of a concatenation, white space collapsed, at most ~100 bytes.
func exprSnippet(text string, start, end int) string {
	if end-start > 100 {
		start = end - 100
		for start < end && !utf8.RuneStart(text[start]) {
			start++
		}
	}
	return collapseSpace(text[start:end])
}
