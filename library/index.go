package library

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
)

// Index is the compiled match index over a set of services: it recognises script and resource
// URLs, tracking IDs and cookie names. It is built once and is safe for concurrent use.
//
// Its cost per lookup does not grow with the number of services: URLs are looked up by host
// suffix in a map (a handful of map probes per URL), tracking-ID regexes only run on a text in
// which the literal they require (such as "GTM-" or "fbq('init'") was found by one pass of an
// Aho-Corasick automaton, and cookie names are looked up in maps by exact name and by prefix.
type Index struct {
	services []*Service // sorted by slug
	bySlug   map[string]*Service

	pats  []indexedPattern
	hosts map[string]*hostPatterns

	idRegexes   []idRegex
	unanchored  []int32 // idRegexes without a required literal: run on every text
	idLiterals  *acMatcher
	literalRegs [][]int32 // literal index → idRegexes requiring it

	cookieExact   map[string][]int32
	cookiePrefix  map[string][]int32
	prefixLens    []int // distinct prefix lengths, longest first
	cookieRegexes []cookieRegex
}

// PatternKind says which list of a service a URL pattern comes from.
type PatternKind string

// Pattern kinds.
const (
	KindScript   PatternKind = "script"
	KindResource PatternKind = "resource"
)

// URLMatch is the service a URL belongs to and the pattern that recognised it.
type URLMatch struct {
	// Service is the matched service.
	Service *Service
	// Pattern is the pattern as written in the service entry.
	Pattern string
	// Kind says whether the pattern is one of the service's scripts or resources.
	Kind PatternKind
}

// IDMatch is a tracking ID found in a text.
type IDMatch struct {
	// Service is the service whose tracking-ID pattern matched.
	Service *Service
	// ID is the captured ID.
	ID string
	// Start and End delimit the whole regex match in the text.
	Start, End int
}

// CookieMatch is the service a cookie name belongs to.
type CookieMatch struct {
	// Service is the matched service.
	Service *Service
	// Cookie is the service's cookie entry that matched.
	Cookie Cookie
}

type indexedPattern struct {
	p     Pattern
	svc   int32
	kind  PatternKind
	score int // specificity: higher wins
}

type hostPatterns struct {
	exact patternBucket // patterns whose host equals the key
	wild  patternBucket // "*.key" patterns
}

// patternBucket holds the patterns of one host, those whose path starts with a complete literal
// segment ("/v17/pixel") keyed by it, so that a shared host (a CDN) with thousands of patterns
// still costs one probe.
type patternBucket struct {
	any   []int32
	bySeg map[string][]int32
}

func (b *patternBucket) add(pi int32, p Pattern) {
	if seg, ok := firstSegment(p.Path); ok && !strings.ContainsAny(seg, "*?[\\") {
		if b.bySeg == nil {
			b.bySeg = map[string][]int32{}
		}
		b.bySeg[seg] = append(b.bySeg[seg], pi)
		return
	}
	b.any = append(b.any, pi)
}

// firstSegment returns the first segment of a path when a '/' follows it.
func firstSegment(p string) (string, bool) {
	if len(p) < 2 || p[0] != '/' {
		return "", false
	}
	i := strings.IndexByte(p[1:], '/')
	if i < 0 {
		return "", false
	}
	return p[1 : 1+i], true
}

type idRegex struct {
	re     *regexp.Regexp
	svc    int32
	maxLen int // upper bound of a match's length, -1 when unbounded
	// leads is true when every match starts with the required literal (after zero-width
	// assertions), so a window can start one byte before the literal.
	leads bool
	// anchored is "^(?s:.)(?:re)" and anchored0 "^(?:re)": with leads, they test one position
	// (with the byte before it for \b) instead of scanning a window.
	anchored, anchored0 *regexp.Regexp
}

type cookieRegex struct {
	re  *regexp.Regexp
	svc int32
	c   Cookie
}

// NewIndex compiles the patterns, tracking-ID regexes and cookie names of services. The services
// are not copied and must not be modified afterwards. An invalid pattern or regex is an error
// naming the service.
func NewIndex(services []*Service) (*Index, error) {
	svcs := make([]*Service, 0, len(services))
	for _, s := range services {
		if s != nil {
			svcs = append(svcs, s)
		}
	}
	sort.SliceStable(svcs, func(i, j int) bool { return svcs[i].Slug < svcs[j].Slug })
	ix := &Index{
		services:     svcs,
		bySlug:       make(map[string]*Service, len(svcs)),
		hosts:        make(map[string]*hostPatterns),
		cookieExact:  make(map[string][]int32),
		cookiePrefix: make(map[string][]int32),
	}
	var literals []string
	litIndex := map[string]int32{}
	lens := map[int]bool{}
	for i, s := range svcs {
		si := int32(i)
		if _, dup := ix.bySlug[s.Slug]; dup {
			return nil, fmt.Errorf("library index: service %q listed twice", s.Slug)
		}
		ix.bySlug[s.Slug] = s
		for _, list := range []struct {
			raws []string
			kind PatternKind
		}{{s.Scripts, KindScript}, {s.Resources, KindResource}} {
			for _, raw := range list.raws {
				p, err := ParsePattern(raw)
				if err != nil {
					return nil, fmt.Errorf("library index: service %q: %w", s.Slug, err)
				}
				pi := int32(len(ix.pats))
				ix.pats = append(ix.pats, indexedPattern{p: p, svc: si, kind: list.kind, score: specificity(p)})
				hp := ix.hosts[p.Host]
				if hp == nil {
					hp = &hostPatterns{}
					ix.hosts[p.Host] = hp
				}
				if p.Subdomains {
					hp.wild.add(pi, p)
				} else {
					hp.exact.add(pi, p)
				}
			}
		}
		for _, t := range s.TrackingIDs {
			re, err := regexp.Compile(t.Pattern)
			if err != nil {
				return nil, fmt.Errorf("library index: service %q: tracking ID pattern %q: %w", s.Slug, t.Pattern, err)
			}
			if re.NumSubexp() < 1 {
				return nil, fmt.Errorf("library index: service %q: tracking ID pattern %q has no capture group", s.Slug, t.Pattern)
			}
			ri := int32(len(ix.idRegexes))
			lits := literalSet(t.Pattern)
			maxLen, leads := regexShape(t.Pattern, lits)
			r := idRegex{re: re, svc: si, maxLen: maxLen, leads: leads}
			if leads {
				r.anchored = regexp.MustCompile(`^(?s:.)(?:` + t.Pattern + `)`)
				r.anchored0 = regexp.MustCompile(`^(?:` + t.Pattern + `)`)
			}
			ix.idRegexes = append(ix.idRegexes, r)
			if len(lits) == 0 {
				ix.unanchored = append(ix.unanchored, ri)
				continue
			}
			for _, lit := range lits {
				li, ok := litIndex[lit]
				if !ok {
					li = int32(len(literals))
					litIndex[lit] = li
					literals = append(literals, lit)
					ix.literalRegs = append(ix.literalRegs, nil)
				}
				ix.literalRegs[li] = append(ix.literalRegs[li], ri)
			}
		}
		for _, c := range s.Cookies {
			switch c.Match {
			case MatchPrefix:
				ix.cookiePrefix[c.Name] = append(ix.cookiePrefix[c.Name], si)
				lens[len(c.Name)] = true
			case MatchRegex:
				re, err := regexp.Compile(c.Name)
				if err != nil {
					return nil, fmt.Errorf("library index: service %q: cookie pattern %q: %w", s.Slug, c.Name, err)
				}
				ix.cookieRegexes = append(ix.cookieRegexes, cookieRegex{re: re, svc: si, c: c})
			default:
				ix.cookieExact[c.Name] = append(ix.cookieExact[c.Name], si)
			}
		}
	}
	for n := range lens {
		ix.prefixLens = append(ix.prefixLens, n)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ix.prefixLens)))
	ix.idLiterals = newACMatcher(literals)
	return ix, nil
}

// specificity orders patterns matching one URL: a query condition beats none, then a longer
// path, then a longer host, then an exact host over a wildcard.
func specificity(p Pattern) int {
	s := 0
	if p.Param != "" {
		s += 1 << 24
	}
	s += (len(p.Path) - strings.Count(p.Path, "*")) << 12
	s += len(p.Host) << 1
	if !p.Subdomains {
		s++
	}
	return s
}

// Services returns the indexed services in slug order. The slice must not be modified.
func (ix *Index) Services() []*Service { return ix.services }

// Service returns the indexed service with the given slug, or nil.
func (ix *Index) Service(slug string) *Service { return ix.bySlug[slug] }

// Len returns the number of indexed services.
func (ix *Index) Len() int { return len(ix.services) }

// MatchURL returns the service whose script or resource pattern matches raw most specifically
// (see README.md for the pattern language). raw may be absolute, scheme-relative ("//host/x") or
// scheme-less ("host/x"). It does not allocate when nothing matches.
func (ix *Index) MatchURL(raw string) (URLMatch, bool) {
	host, escPath, query, ok := splitURL(raw)
	if !ok {
		return URLMatch{}, false
	}
	var buf [256]byte
	if len(host) > len(buf) {
		return URLMatch{}, false
	}
	lower := buf[:len(host)]
	for i := 0; i < len(host); i++ {
		c := host[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	if n := len(lower); n > 0 && lower[n-1] == '.' {
		lower = lower[:n-1]
	}
	best := -1
	seg, hasSeg := firstSegment(escPath)
	try := func(b *patternBucket) {
		lists := [2][]int32{b.any, nil}
		if hasSeg && b.bySeg != nil {
			lists[1] = b.bySeg[seg]
		}
		for _, list := range lists {
			for _, pi := range list {
				ip := &ix.pats[pi]
				if best >= 0 && ip.score <= ix.pats[best].score {
					continue
				}
				if matchPathQuery(&ip.p, escPath, query) {
					best = int(pi)
				}
			}
		}
	}
	for first := true; len(lower) > 0; first = false {
		if hp := ix.hosts[string(lower)]; hp != nil {
			if first {
				try(&hp.exact)
			}
			try(&hp.wild)
		}
		dot := -1
		for i, c := range lower {
			if c == '.' {
				dot = i
				break
			}
		}
		if dot < 0 {
			break
		}
		lower = lower[dot+1:]
	}
	if best < 0 {
		return URLMatch{}, false
	}
	ip := &ix.pats[best]
	return URLMatch{Service: ix.services[ip.svc], Pattern: ip.p.Raw, Kind: ip.kind}, true
}

// splitURL cuts a URL into host, escaped path ("/" when empty) and raw query without allocating.
func splitURL(raw string) (host, escPath, query string, ok bool) {
	s := strings.TrimSpace(raw)
	if i := strings.Index(s, "://"); i >= 0 && i < 16 {
		s = s[i+3:]
	} else if strings.HasPrefix(s, "//") {
		s = s[2:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	end := strings.IndexAny(s, "/?")
	if end < 0 {
		end = len(s)
	}
	host, rest := s[:end], s[end:]
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host = host[:i]
	}
	if host == "" {
		return "", "", "", false
	}
	escPath = rest
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		escPath, query = rest[:i], rest[i+1:]
	}
	if escPath == "" {
		escPath = "/"
	}
	return host, escPath, query, true
}

func matchPathQuery(p *Pattern, escPath, query string) bool {
	if p.Path != "" {
		if p.Glob {
			if ok, _ := path.Match(p.Path, escPath); !ok {
				return false
			}
		} else if !strings.HasPrefix(escPath, p.Path) {
			return false
		}
	}
	if p.Param == "" {
		return true
	}
	for query != "" {
		var kv string
		kv, query, _ = strings.Cut(query, "&")
		k, v, _ := strings.Cut(kv, "=")
		if strings.ContainsAny(k, "%+") {
			var err error
			if k, err = url.QueryUnescape(k); err != nil {
				continue
			}
		}
		if k != p.Param {
			continue
		}
		if strings.ContainsAny(v, "%+") {
			var err error
			if v, err = url.QueryUnescape(v); err != nil {
				continue
			}
		}
		if strings.HasPrefix(v, p.ParamPrefix) {
			return true
		}
	}
	return false
}

// FindTrackingIDs calls yield for every tracking ID of an indexed service found in text, in no
// particular order (callers sort). A regex runs only when the literal it requires
// occurs in text (case-insensitively), and a regex whose matches have a bounded length runs only
// on the window around each occurrence of its literal, so the cost is one linear pass plus a few
// short regex runs, whatever the number of services.
func (ix *Index) FindTrackingIDs(text string, yield func(IDMatch)) {
	if len(ix.idRegexes) == 0 || text == "" {
		return
	}
	type window struct {
		reg    int32
		lo, hi int
	}
	var wstack [32]window
	wins := wstack[:0]
	var fstack [8]int32
	full := append(fstack[:0], ix.unanchored...)
	if ix.idLiterals != nil {
		ix.idLiterals.scan(text, func(lit int32, end int) {
			start := end - len(ix.idLiterals.literals[lit])
			for _, ri := range ix.literalRegs[lit] {
				r := &ix.idRegexes[ri]
				if len(wins) > 4096 {
					if !containsInt32(full, ri) {
						full = append(full, ri)
					}
					continue
				}
				if r.leads {
					ix.runAnchored(r, text, start, yield)
					continue
				}
				lo, hi := max(start-r.maxLen-1, 0), min(end+r.maxLen+1, len(text))
				if n := len(wins); n > 0 && wins[n-1].reg == ri && lo <= wins[n-1].hi {
					wins[n-1].hi = max(wins[n-1].hi, hi)
					continue
				}
				wins = append(wins, window{ri, lo, hi})
			}
		})
	}
	if len(wins) == 0 && len(full) == 0 {
		return
	}
	sort.Slice(wins, func(i, j int) bool {
		if wins[i].reg != wins[j].reg {
			return wins[i].reg < wins[j].reg
		}
		return wins[i].lo < wins[j].lo
	})
	sort.Slice(full, func(i, j int) bool { return full[i] < full[j] })
	emit := func(r *idRegex, base int, m []int) {
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 && m[g+1] > m[g] {
				yield(IDMatch{Service: ix.services[r.svc], ID: text[base+m[g] : base+m[g+1]], Start: base + m[0], End: base + m[1]})
				return
			}
		}
	}
	wi := 0
	for ri := int32(0); ri < int32(len(ix.idRegexes)); ri++ {
		r := &ix.idRegexes[ri]
		if containsInt32(full, ri) {
			for wi < len(wins) && wins[wi].reg == ri {
				wi++
			}
			for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
				emit(r, 0, m)
			}
			continue
		}
		for wi < len(wins) && wins[wi].reg == ri {
			w := wins[wi]
			for wi++; wi < len(wins) && wins[wi].reg == ri && wins[wi].lo <= w.hi; wi++ {
				w.hi = max(w.hi, wins[wi].hi) // union of overlapping windows
			}
			for _, m := range r.re.FindAllStringSubmatchIndex(text[w.lo:w.hi], -1) {
				// A match touching a window edge that is not the text's edge may be an artefact of
				// the cut (\b, ^, $); every real match lies strictly inside its window.
				if (m[0] == 0 && w.lo > 0) || (m[1] == w.hi-w.lo && w.hi < len(text)) {
					continue
				}
				emit(r, w.lo, m)
			}
		}
	}
}

// runAnchored tests the match of a leading-literal regex at the literal found at start.
func (ix *Index) runAnchored(r *idRegex, text string, start int, yield func(IDMatch)) {
	re, lo := r.anchored, start-1
	if start == 0 {
		re, lo = r.anchored0, 0
	}
	m := re.FindStringSubmatchIndex(text[lo:min(start+r.maxLen+1, len(text))])
	if m == nil {
		return
	}
	for g := 2; g+1 < len(m); g += 2 {
		if m[g] >= 0 && m[g+1] > m[g] {
			yield(IDMatch{Service: ix.services[r.svc], ID: text[lo+m[g] : lo+m[g+1]], Start: start, End: lo + m[1]})
			return
		}
	}
}

func containsInt32(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// maxMatchLen returns an upper bound of the length in bytes of a match of re, or -1 when matches
// can be arbitrarily long.
func maxMatchLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return 4 * len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 4
	case syntax.OpCapture, syntax.OpQuest:
		return maxMatchLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		n := maxMatchLen(re.Sub[0])
		if re.Max < 0 || n < 0 {
			return -1
		}
		return re.Max * n
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, sub := range re.Sub {
			n := maxMatchLen(sub)
			if n < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				total += n
			} else {
				total = max(total, n)
			}
		}
		return total
	}
	if isZeroWidth(re) {
		return 0
	}
	return -1
}

// MatchCookie returns the service whose cookie list names the cookie: an exact name first, then
// the longest prefix, then a regular expression; ties go to the service first in slug order.
func (ix *Index) MatchCookie(name string) (CookieMatch, bool) {
	if svcs := ix.cookieExact[name]; len(svcs) > 0 {
		return ix.cookieMatch(svcs[0], name, MatchExact), true
	}
	for _, n := range ix.prefixLens {
		if n > len(name) {
			continue
		}
		if svcs := ix.cookiePrefix[name[:n]]; len(svcs) > 0 {
			return ix.cookieMatch(svcs[0], name[:n], MatchPrefix), true
		}
	}
	for _, cr := range ix.cookieRegexes {
		if cr.re.MatchString(name) {
			return CookieMatch{Service: ix.services[cr.svc], Cookie: cr.c}, true
		}
	}
	return CookieMatch{}, false
}

func (ix *Index) cookieMatch(svc int32, name, kind string) CookieMatch {
	s := ix.services[svc]
	for _, c := range s.Cookies {
		if c.Name == name && (c.Match == kind || (kind == MatchExact && c.Match == "")) {
			return CookieMatch{Service: s, Cookie: c}
		}
	}
	return CookieMatch{Service: s}
}

// maxWindow bounds how far from its literal a tracking-ID match may extend.
const maxWindow = 256

// regexShape returns an upper bound of a match's length (capped at maxWindow) and whether every
// match begins with one of lits, each of which can begin a match.
func regexShape(pattern string, lits []string) (maxLen int, leads bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return -1, false
	}
	re = re.Simplify()
	maxLen = maxMatchLen(re)
	if maxLen < 0 || maxLen > maxWindow {
		// Unbounded (\s*, .+): matches are looked for within maxWindow bytes of the literal;
		// a tracking-ID snippet longer than that is not something vendors write.
		maxLen = maxWindow
	}
	lead := leadingSet(re)
	if len(lead) == 0 || len(lead) != len(lits) {
		return maxLen, false
	}
	seen := map[string]bool{}
	for _, l := range lead {
		seen[strings.ToLower(l)] = true
	}
	for _, l := range lits {
		if !seen[l] {
			return maxLen, false
		}
	}
	return maxLen, len(seen) == len(lits)
}

// leadingSet returns the literals one of which every match starts with (after zero-width
// assertions), or nil.
func leadingSet(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := leadingSet(sub)
			if len(l) == 0 {
				return nil
			}
			out = append(out, l...)
		}
		return out
	case syntax.OpCapture:
		return leadingSet(re.Sub[0])
	case syntax.OpConcat:
		run := ""
		for i, sub := range re.Sub {
			if isZeroWidth(sub) && run == "" {
				continue
			}
			if l := pureLiteral(sub); l != "" {
				run += l
				continue
			}
			if run != "" {
				return []string{run}
			}
			if i < len(re.Sub) && sub.Op != syntax.OpLiteral {
				return leadingSet(sub)
			}
		}
		if run != "" {
			return []string{run}
		}
	}
	if l := leadingLiteral(re); l != "" {
		return []string{l}
	}
	return nil
}

// leadingLiteral returns the fixed text every match of re starts with, skipping zero-width
// assertions, or "".
func leadingLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		return literalOf(re)
	case syntax.OpCapture:
		return leadingLiteral(re.Sub[0])
	case syntax.OpConcat:
		s := ""
		for _, sub := range re.Sub {
			if isZeroWidth(sub) {
				if s != "" {
					return s
				}
				continue
			}
			if l := pureLiteral(sub); l != "" {
				s += l
				continue
			}
			if s == "" {
				return leadingLiteral(sub)
			}
			return s
		}
		return s
	}
	return ""
}

// literalSet returns literals one of which every match of pattern contains (lower-cased), or
// nil: for an alternation such as (?:ttq\.load\(|sdkid=), the set of its branches' literals.
func literalSet(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	set := litSet(re.Simplify())
	for i := range set {
		set[i] = strings.ToLower(set[i])
	}
	return set
}

func litSet(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if l := literalOf(re); l != "" {
			return []string{l}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return litSet(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return litSet(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			s := litSet(sub)
			if len(s) == 0 {
				return nil
			}
			out = append(out, s...)
		}
		return out
	case syntax.OpConcat:
		var best []string
		score := func(set []string) int {
			if len(set) == 0 {
				return -1
			}
			m := len(set[0])
			for _, l := range set {
				m = min(m, len(l))
			}
			return m
		}
		run := ""
		consider := func(set []string) {
			if score(set) > score(best) {
				best = set
			}
		}
		for _, sub := range re.Sub {
			if isZeroWidth(sub) {
				continue
			}
			if l := pureLiteral(sub); l != "" {
				run += l
				continue
			}
			if run != "" {
				consider([]string{run})
				run = ""
			}
			consider(litSet(sub))
		}
		if run != "" {
			consider([]string{run})
		}
		return best
	}
	return nil
}

// RequiredLiteral returns the longest literal string every match of the Go regular expression
// pattern must contain, lower-cased (ASCII), or "" when there is none or it cannot be told. The
// index uses it as a prefilter: a regex runs only on texts containing its literal.
func RequiredLiteral(pattern string) string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return ""
	}
	lit := requiredLiteral(re.Simplify())
	return strings.ToLower(lit)
}

func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		return literalOf(re)
	case syntax.OpCapture:
		return requiredLiteral(re.Sub[0])
	case syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, run := "", ""
		for _, sub := range re.Sub {
			switch {
			case isZeroWidth(sub):
				continue
			case pureLiteral(sub) != "":
				run += pureLiteral(sub)
			default:
				if len(run) > len(best) {
					best = run
				}
				run = ""
				if l := requiredLiteral(sub); len(l) > len(best) {
					best = l
				}
				continue
			}
			if len(run) > len(best) {
				best = run
			}
		}
		if len(run) > len(best) {
			best = run
		}
		return best
	}
	return ""
}

// pureLiteral returns the text of a node that matches exactly one fixed string, or "".
func pureLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		return literalOf(re)
	case syntax.OpCapture:
		return pureLiteral(re.Sub[0])
	case syntax.OpConcat:
		s := ""
		for _, sub := range re.Sub {
			if isZeroWidth(sub) {
				continue
			}
			l := pureLiteral(sub)
			if l == "" {
				return ""
			}
			s += l
		}
		return s
	}
	return ""
}

// literalOf returns a literal node's text; a case-folded literal with non-ASCII letters gives ""
// because the prefilter folds ASCII only.
func literalOf(re *syntax.Regexp) string {
	s := string(re.Rune)
	if re.Flags&syntax.FoldCase != 0 {
		for _, r := range s {
			if r >= 0x80 {
				return ""
			}
		}
	}
	return s
}

func isZeroWidth(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	return false
}

// acMatcher finds which of a set of literals occur in a text, ASCII case-insensitively, in one
// pass: an Aho-Corasick automaton compiled to a dense DFA over byte classes (the bytes that occur
// in some literal each get a class, all others share class 0), so a step is two array loads.
type acMatcher struct {
	class    [256]uint8
	nclass   int
	delta    []int32   // state*nclass + class → next state
	out      [][]int32 // state → literals ending here (including via failure links)
	hasOut   []bool
	literals []string
}

func foldByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func newACMatcher(literals []string) *acMatcher {
	if len(literals) == 0 {
		return nil
	}
	m := &acMatcher{literals: literals}
	n := 1
	for _, l := range literals {
		for i := 0; i < len(l); i++ {
			c := foldByte(l[i])
			if m.class[c] == 0 {
				if n == 255 {
					continue // more than 254 distinct bytes: extra ones share class 0 below
				}
				m.class[c] = uint8(n)
				n++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	m.nclass = n
	// Build the trie.
	type node struct {
		next map[uint8]int32
		out  []int32
	}
	nodes := []node{{next: map[uint8]int32{}}}
	for li, l := range literals {
		s := int32(0)
		for i := 0; i < len(l); i++ {
			c := m.class[l[i]]
			nx, ok := nodes[s].next[c]
			if !ok {
				nx = int32(len(nodes))
				nodes = append(nodes, node{next: map[uint8]int32{}})
				nodes[s].next[c] = nx
			}
			s = nx
		}
		nodes[s].out = append(nodes[s].out, int32(li))
	}
	// Breadth-first: failure links and the dense transition table.
	m.delta = make([]int32, len(nodes)*n)
	fail := make([]int32, len(nodes))
	queue := []int32{}
	for c := 0; c < n; c++ {
		if nx, ok := nodes[0].next[uint8(c)]; ok {
			m.delta[c] = nx
			queue = append(queue, nx)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		nodes[s].out = append(nodes[s].out, nodes[fail[s]].out...)
		for c := 0; c < n; c++ {
			if nx, ok := nodes[s].next[uint8(c)]; ok {
				fail[nx] = m.delta[int(fail[s])*n+c]
				m.delta[int(s)*n+c] = nx
				queue = append(queue, nx)
			} else {
				m.delta[int(s)*n+c] = m.delta[int(fail[s])*n+c]
			}
		}
	}
	m.out = make([][]int32, len(nodes))
	m.hasOut = make([]bool, len(nodes))
	for i := range nodes {
		m.out[i] = nodes[i].out
		m.hasOut[i] = len(nodes[i].out) > 0
	}
	return m
}

// scan calls hit for each literal occurrence in text (a literal may be reported many times).
func (m *acMatcher) scan(text string, hit func(lit int32, end int)) {
	s := int32(0)
	n := int32(m.nclass)
	delta, class, hasOut := m.delta, &m.class, m.hasOut
	for i := 0; i < len(text); i++ {
		s = delta[s*n+int32(class[text[i]])]
		if hasOut[s] {
			for _, l := range m.out[s] {
				hit(l, i+1)
			}
		}
	}
}
