package library

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Index is the compiled match index over a set of services: it recognises script and resource
// URLs, tracking IDs and cookie names. It is built once and is safe for concurrent use.
//
// Its cost per lookup does not grow with the number of services: URLs are looked up by host
// suffix in a map (a handful of map probes per URL), tracking-ID regexes only run where the
// literal they require (such as "GTM-" or "fbq('init'") was found by one pass of an Aho-Corasick
// automaton with the bytes around it fitting, and then mostly at the few positions where a match
// can start, and cookie names are looked up in maps by exact name and by prefix.
type Index struct {
	services []*Service // sorted by slug
	bySlug   map[string]*Service

	pats  []indexedPattern
	hosts map[string]*hostPatterns

	idRegexes   []idRegex
	unanchored  []int32 // idRegexes without a required literal: run on every text
	idLiterals  *acMatcher
	literalUses [][]litUse // literal index → where it sits in the idRegexes requiring it

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
	maxLen int // upper bound of a match's length in bytes, capped at maxWindow
	capped bool
	// head are the sets of the first bytes of every match.
	head []byteSet
	// anchored is "^(?s:.)(?:re)" and anchored0 "^(?:re)", set when every match starts at a
	// bounded distance before one of the regex's literals: they test a candidate start (with the
	// byte before it for \b) instead of scanning a window.
	anchored, anchored0 *regexp.Regexp
	// simple, when set, matches at a candidate start by hand instead of anchored.
	simple *simpleRE
}

// litUse says where a literal of the prefilter sits in the matches of one tracking-ID regex.
type litUse struct {
	reg int32
	// minPre and maxPre bound the distance in bytes from the match start to the literal;
	// maxPre < 0 when unbounded.
	minPre, maxPre int
	// before are the sets of the bytes right before the literal (nearest first), after those of
	// the bytes right after it: an occurrence whose neighbours fall outside them is no match.
	before, after []byteSet
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
			r, uses := analyzeIDRegex(re, t.Pattern)
			r.svc = si
			ix.idRegexes = append(ix.idRegexes, r)
			if len(uses) == 0 {
				ix.unanchored = append(ix.unanchored, ri)
				continue
			}
			for _, u := range uses {
				lit := strings.ToLower(u.lit)
				li, ok := litIndex[lit]
				if !ok {
					li = int32(len(literals))
					litIndex[lit] = li
					literals = append(literals, lit)
					ix.literalUses = append(ix.literalUses, nil)
				}
				lu := u.litUse
				lu.reg = ri
				ix.literalUses[li] = append(ix.literalUses[li], lu)
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
	} else {
		s = strings.TrimPrefix(s, "//")
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
// particular order (callers sort). One pass of an Aho-Corasick automaton finds the literals the
// regexes require (ASCII case-insensitively); an occurrence whose neighbouring bytes cannot be
// those of a match is dropped at once; a regex whose matches start within a few bytes of a known
// distance before its literal is tested at those candidate starts only, and any other regex runs
// on the window around the occurrence. The cost is one linear pass plus a few short regex runs,
// whatever the number of services.
func (ix *Index) FindTrackingIDs(text string, yield func(IDMatch)) {
	if len(ix.idRegexes) == 0 || text == "" {
		return
	}
	type window struct {
		reg    int32
		lo, hi int
	}
	type candidate struct {
		reg int32
		at  int
	}
	var wstack [4]window
	wins := wstack[:0]
	var cstack [8]candidate
	cands := cstack[:0]
	var fstack [4]int32
	full := append(fstack[:0], ix.unanchored...)
	if m := ix.idLiterals; m != nil {
		// The automaton's loop, inlined: a callback would move the stack buffers to the heap.
		st := int32(0)
		for i := 0; i < len(text); i++ {
			st = m.delta[st+int32(m.class[text[i]])]
			if st < m.outStart {
				continue
			}
			end := i + 1
			for _, lit := range m.out[int(st)/m.nclass] {
				begin := end - len(m.literals[lit])
				uses := ix.literalUses[lit]
				for k := range uses {
					u := &uses[k]
					if !u.neighbours(text, begin, end) {
						continue
					}
					if len(wins)+len(cands) > 4096 {
						// Pathological text: run the regex once over all of it.
						if !containsInt32(full, u.reg) {
							full = append(full, u.reg)
						}
						continue
					}
					r := &ix.idRegexes[u.reg]
					if r.anchored != nil {
						for at := max(begin-u.maxPre, 0); at <= begin-u.minPre; at++ {
							if matchSets(r.head, text, at) {
								cands = append(cands, candidate{u.reg, at})
							}
						}
						continue
					}
					pre := r.maxLen
					if u.maxPre >= 0 {
						pre = min(pre, u.maxPre)
					}
					lo, hi := max(begin-pre-1, 0), min(begin-u.minPre+r.maxLen+1, len(text))
					if hi <= lo {
						continue // a match would exceed the length bound
					}
					if n := len(wins); n > 0 && wins[n-1].reg == u.reg && lo <= wins[n-1].hi && hi >= wins[n-1].lo {
						wins[n-1].lo, wins[n-1].hi = min(wins[n-1].lo, lo), max(wins[n-1].hi, hi)
						continue
					}
					wins = append(wins, window{u.reg, lo, hi})
				}
			}
		}
	}
	if len(wins) == 0 && len(full) == 0 && len(cands) == 0 {
		return
	}
	if len(cands) > 0 {
		if len(cands) > 1 {
			slices.SortFunc(cands, func(a, b candidate) int {
				if a.reg != b.reg {
					return int(a.reg - b.reg)
				}
				return a.at - b.at
			})
		}
		// Candidates in order, each skipped when it lies inside the previous match of its regex:
		// the matches of FindAll, non-overlapping, leftmost first.
		prevReg, prevEnd := int32(-1), 0
		for i, c := range cands {
			if (i > 0 && cands[i-1] == c) || containsInt32(full, c.reg) {
				continue
			}
			if c.reg != prevReg {
				prevReg, prevEnd = c.reg, 0
			}
			if c.at < prevEnd {
				continue
			}
			if end, ok := ix.runAnchored(&ix.idRegexes[c.reg], text, c.at, yield); ok {
				prevEnd = end
			}
		}
	}
	if len(wins) == 0 && len(full) == 0 {
		return
	}
	slices.SortFunc(wins, func(a, b window) int {
		if a.reg != b.reg {
			return int(a.reg - b.reg)
		}
		return a.lo - b.lo
	})
	slices.Sort(full)
	for _, ri := range full {
		r := &ix.idRegexes[ri]
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			ix.emit(r, text, 0, m, yield)
		}
	}
	for wi := 0; wi < len(wins); {
		w := wins[wi]
		for wi++; wi < len(wins) && wins[wi].reg == w.reg && wins[wi].lo <= w.hi; wi++ {
			w.hi = max(w.hi, wins[wi].hi) // union of overlapping windows
		}
		if containsInt32(full, w.reg) {
			continue
		}
		r := &ix.idRegexes[w.reg]
		for _, m := range r.re.FindAllStringSubmatchIndex(text[w.lo:w.hi], -1) {
			// A match touching a window edge that is not the text's edge may be an artefact of
			// the cut (\b, ^, $); every real match lies strictly inside its window.
			if (m[0] == 0 && w.lo > 0) || (m[1] == w.hi-w.lo && w.hi < len(text)) {
				continue
			}
			ix.emit(r, text, w.lo, m, yield)
		}
	}
}

// emit yields the first non-empty capture group of a match found at offset base of text.
func (ix *Index) emit(r *idRegex, text string, base int, m []int, yield func(IDMatch)) {
	for g := 2; g+1 < len(m); g += 2 {
		if m[g] >= 0 && m[g+1] > m[g] {
			yield(IDMatch{Service: ix.services[r.svc], ID: text[base+m[g] : base+m[g+1]], Start: base + m[0], End: base + m[1]})
			return
		}
	}
}

// runAnchored tests for a match of r starting at the candidate position at, and returns its end.
func (ix *Index) runAnchored(r *idRegex, text string, at int, yield func(IDMatch)) (int, bool) {
	// One byte past the longest match keeps the context of \b and $.
	hi := min(at+r.maxLen+1, len(text))
	if r.simple != nil {
		var caps [2 * maxSimpleCaps]int
		budget := simpleBudget
		end, ok := r.simple.match(text[:hi], 0, at, caps[:], &budget)
		if budget >= 0 {
			if !ok || (r.capped && end == hi && hi < len(text)) {
				return 0, false
			}
			for g := 0; g < r.simple.ncap; g++ {
				if caps[2*g+1] > caps[2*g] {
					yield(IDMatch{Service: ix.services[r.svc], ID: text[caps[2*g]:caps[2*g+1]], Start: at, End: end})
					break
				}
			}
			return end, true
		}
		// Too many ways to try: leave it to the regexp package.
	}
	re, lo := r.anchored, at-1
	if at == 0 {
		re, lo = r.anchored0, 0
	}
	m := re.FindStringSubmatchIndex(text[lo:hi])
	if m == nil || (r.capped && m[1] == hi-lo && hi < len(text)) {
		return 0, false
	}
	m[0] = at - lo
	ix.emit(r, text, lo, m, yield)
	return lo + m[1], true
}

// neighbours reports whether the bytes around a literal occurrence text[begin:end] fit u.
func (u *litUse) neighbours(text string, begin, end int) bool {
	if end+len(u.after) > len(text) || begin < len(u.before) {
		return false
	}
	for k := range u.after {
		if !u.after[k].has(text[end+k]) {
			return false
		}
	}
	for k := range u.before {
		if !u.before[k].has(text[begin-1-k]) {
			return false
		}
	}
	return true
}

// matchSets reports whether the bytes of text from at on belong to sets, in order.
func matchSets(sets []byteSet, text string, at int) bool {
	if at+len(sets) > len(text) {
		return false
	}
	for k := range sets {
		if !sets[k].has(text[at+k]) {
			return false
		}
	}
	return true
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

// simpleRE is a regex matched by hand at a given start: a sequence of ASCII bytes and classes,
// each repeated between min and max times, captures around parts of the sequence, word
// boundaries and text edges. Most tracking-ID regexes are of this shape ("\b(G-[A-Z0-9]{6,12})\b",
// "fbq\(\s*['"]init['"]\s*,\s*['"]?(\d{15,16})"); a Go regexp call costs far more than trying
// them directly. Matching tries the repetitions in the order a backtracking matcher does
// (greedy: most first), which is the order whose first success leftmost-first semantics report.
type simpleRE struct {
	steps []simpleStep
	ncap  int
}

type simpleStep struct {
	op       uint8
	set      byteSet
	min, max int // repetitions of set; max -1 when unbounded
	lazy     bool
	cap      int // capture group - 1 of stepOpen and stepClose
}

const (
	stepSet = iota
	stepOpen
	stepClose
	stepWordBoundary
	stepNoWordBoundary
	stepBeginText
	stepEndText
)

// maxSimpleCaps bounds the capture groups of a simpleRE; simpleBudget bounds the repetition
// counts tried at one start before the regexp package takes over.
const (
	maxSimpleCaps = 4
	simpleBudget  = 2000
)

// compileSimple returns the simpleRE of pattern, or nil when it has another shape.
func compileSimple(pattern string) *simpleRE {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	s := &simpleRE{}
	if !s.add(re) || s.ncap == 0 || s.ncap > maxSimpleCaps {
		return nil
	}
	return s
}

func (s *simpleRE) add(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			sets, ok := runeSets(r, re.Flags&syntax.FoldCase != 0)
			if !ok || len(sets) != 1 {
				return false
			}
			s.steps = append(s.steps, simpleStep{op: stepSet, set: sets[0], min: 1, max: 1})
		}
		return true
	case syntax.OpCharClass:
		set, ok := classSet(re.Rune)
		if ok {
			s.steps = append(s.steps, simpleStep{op: stepSet, set: set, min: 1, max: 1})
		}
		return ok
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		one := &simpleRE{}
		if !one.add(re.Sub[0]) || len(one.steps) != 1 || one.steps[0].op != stepSet || one.steps[0].max != 1 {
			return false
		}
		st := one.steps[0]
		switch re.Op {
		case syntax.OpStar:
			st.min, st.max = 0, -1
		case syntax.OpPlus:
			st.min, st.max = 1, -1
		case syntax.OpQuest:
			st.min, st.max = 0, 1
		default:
			st.min, st.max = re.Min, re.Max
		}
		st.lazy = re.Flags&syntax.NonGreedy != 0
		s.steps = append(s.steps, st)
		return true
	case syntax.OpCapture:
		g := re.Cap - 1
		s.ncap = max(s.ncap, re.Cap)
		if g < 0 || g >= maxSimpleCaps {
			return false
		}
		s.steps = append(s.steps, simpleStep{op: stepOpen, cap: g})
		if !s.add(re.Sub[0]) {
			return false
		}
		s.steps = append(s.steps, simpleStep{op: stepClose, cap: g})
		return true
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !s.add(sub) {
				return false
			}
		}
		return true
	case syntax.OpWordBoundary:
		s.steps = append(s.steps, simpleStep{op: stepWordBoundary})
		return true
	case syntax.OpNoWordBoundary:
		s.steps = append(s.steps, simpleStep{op: stepNoWordBoundary})
		return true
	case syntax.OpBeginText:
		s.steps = append(s.steps, simpleStep{op: stepBeginText})
		return true
	case syntax.OpEndText:
		s.steps = append(s.steps, simpleStep{op: stepEndText})
		return true
	}
	return false
}

// match matches the steps from i on at position p of text and returns the end of the match;
// caps receives the capture offsets. budget is decremented per repetition count tried and goes
// negative when the search gave up (ok is then meaningless).
func (s *simpleRE) match(text string, i, p int, caps []int, budget *int) (end int, ok bool) {
	for ; i < len(s.steps); i++ {
		st := &s.steps[i]
		switch st.op {
		case stepSet:
			if st.max == 1 && st.min == 1 {
				if p >= len(text) || !st.set.has(text[p]) {
					return 0, false
				}
				p++
				continue
			}
			n := 0
			for (st.max < 0 || n < st.max) && p+n < len(text) && st.set.has(text[p+n]) {
				n++
			}
			if n < st.min {
				return 0, false
			}
			if i == len(s.steps)-1 && !st.lazy {
				return p + n, true
			}
			for k := range n - st.min + 1 {
				if *budget--; *budget < 0 {
					return 0, false
				}
				c := n - k
				if st.lazy {
					c = st.min + k
				}
				if e, ok := s.match(text, i+1, p+c, caps, budget); ok {
					return e, true
				}
			}
			return 0, false
		case stepOpen:
			caps[2*st.cap] = p
		case stepClose:
			caps[2*st.cap+1] = p
		case stepWordBoundary, stepNoWordBoundary:
			b := isWordByte(text, p-1) != isWordByte(text, p)
			if b != (st.op == stepWordBoundary) {
				return 0, false
			}
		case stepBeginText:
			if p != 0 {
				return 0, false
			}
		case stepEndText:
			if p != len(text) {
				return 0, false
			}
		}
	}
	return p, true
}

// isWordByte reports whether text[i] is an ASCII word character, as \b sees it (false outside
// text).
func isWordByte(text string, i int) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	c := text[i]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// maxWindow bounds how far from its literal a tracking-ID match may extend.
const maxWindow = 256

// maxAnchorRange is the widest range of candidate starts before a literal that is tested start by
// start; a wider one gets a window.
const maxAnchorRange = 16

// maxNeighbours caps the byte sets checked on each side of a literal occurrence.
const maxNeighbours = 8

// byteSet is a set of bytes.
type byteSet [4]uint64

func (b *byteSet) has(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }

func (b *byteSet) add(c byte) { b[c>>6] |= 1 << (c & 63) }

func (b *byteSet) union(o *byteSet) {
	for i := range b {
		b[i] |= o[i]
	}
}

// litCand is a literal that matches of a regex node contain, with what the node says about its
// surroundings.
type litCand struct {
	lit string
	litUse
	// follow and precede are the nodes after and before the literal, nearest first; closedAfter
	// and closedBefore are set when what lies beyond them is not known (the literal sits in the
	// body of a repetition).
	follow, precede           []*syntax.Regexp
	closedAfter, closedBefore bool
}

// analyzeIDRegex derives from a tracking-ID pattern the prefilter literals (one of which every
// match contains, with their place in the match and their neighbouring bytes), the bound of a
// match's length and, when every literal sits at a bounded distance from the match start, the
// anchored forms of the regex.
func analyzeIDRegex(re *regexp.Regexp, pattern string) (idRegex, []litCand) {
	r := idRegex{re: re, maxLen: maxWindow, capped: true}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return r, nil
	}
	tree = tree.Simplify()
	if n := maxMatchLen(tree); n >= 0 && n <= maxWindow {
		r.maxLen, r.capped = n, false
	}
	r.head = sideSets([]*syntax.Regexp{tree}, false)
	cands := literalCands(tree)
	anchored := len(cands) > 0
	for i := range cands {
		c := &cands[i]
		c.after = sideSets(c.follow, false)
		c.before = sideSets(c.precede, true)
		if !c.bounded() {
			anchored = false
		}
	}
	if anchored {
		a, err1 := regexp.Compile(`^(?s:.)(?:` + pattern + `)`)
		a0, err2 := regexp.Compile(`^(?:` + pattern + `)`)
		if err1 == nil && err2 == nil {
			r.anchored, r.anchored0 = a, a0
			r.simple = compileSimple(pattern)
		}
	}
	return r, cands
}

func (c *litCand) bounded() bool { return c.maxPre >= 0 && c.maxPre-c.minPre <= maxAnchorRange }

// candScore rates a literal set as a prefilter, higher is better: long literals are rare, checked
// neighbours drop most false occurrences at once, and a bounded place in the match spares a window.
func candScore(set []litCand) int {
	if len(set) == 0 {
		return -1
	}
	best := -1
	for i := range set {
		c := &set[i]
		s := 2*len(c.lit) + min(len(sideSets(c.follow, false))+len(sideSets(c.precede, true)), maxNeighbours)
		if c.bounded() {
			s += 5
		}
		if best < 0 || s < best {
			best = s
		}
	}
	return best
}

// literalCands returns literals one of which every match of re contains, or nil: for an
// alternation such as (?:ttq\.load\(|sdkid=), one for each branch.
func literalCands(re *syntax.Regexp) []litCand {
	switch re.Op {
	case syntax.OpLiteral:
		if l := literalOf(re); l != "" {
			return []litCand{{lit: l}}
		}
	case syntax.OpCapture:
		return literalCands(re.Sub[0])
	case syntax.OpPlus, syntax.OpRepeat:
		if re.Op == syntax.OpRepeat && re.Min < 1 {
			return nil
		}
		// The first iteration holds the literal at its offset; what follows it there is either
		// another iteration or the rest.
		set := literalCands(re.Sub[0])
		for i := range set {
			set[i].closedAfter = true
		}
		return set
	case syntax.OpAlternate:
		var out []litCand
		for _, sub := range re.Sub {
			set := literalCands(sub)
			if len(set) == 0 {
				return nil
			}
			out = append(out, set...)
		}
		return out
	case syntax.OpConcat:
		return concatCands(re.Sub)
	}
	return nil
}

func concatCands(subs []*syntax.Regexp) []litCand {
	n := len(subs)
	pmin, pmax := make([]int, n+1), make([]int, n+1)
	for i, sub := range subs {
		lo, hi := lenRange(sub)
		pmin[i+1] = pmin[i] + lo
		if hi < 0 || pmax[i] < 0 {
			pmax[i+1] = -1
		} else {
			pmax[i+1] = pmax[i] + hi
		}
	}
	reversed := func(s []*syntax.Regexp) []*syntax.Regexp {
		out := make([]*syntax.Regexp, len(s))
		for i, x := range s {
			out[len(s)-1-i] = x
		}
		return out
	}
	var best []litCand
	bestScore := -1
	consider := func(set []litCand) {
		if sc := candScore(set); sc > bestScore {
			best, bestScore = set, sc
		}
	}
	for i := 0; i < n; {
		if isZeroWidth(subs[i]) {
			i++
			continue
		}
		if pureLiteral(subs[i]) != "" {
			run, j := "", i
			for ; j < n && (isZeroWidth(subs[j]) || pureLiteral(subs[j]) != ""); j++ {
				run += pureLiteral(subs[j])
			}
			consider([]litCand{{lit: run, litUse: litUse{minPre: pmin[i], maxPre: pmax[i]},
				follow: subs[j:], precede: reversed(subs[:i])}})
			i = j
			continue
		}
		set := literalCands(subs[i])
		for k := range set {
			c := &set[k]
			c.minPre += pmin[i]
			if c.maxPre < 0 || pmax[i] < 0 {
				c.maxPre = -1
			} else {
				c.maxPre += pmax[i]
			}
			if !c.closedAfter {
				c.follow = append(c.follow[:len(c.follow):len(c.follow)], subs[i+1:]...)
			}
			if !c.closedBefore {
				c.precede = append(c.precede[:len(c.precede):len(c.precede)], reversed(subs[:i])...)
			}
		}
		if len(set) > 0 {
			consider(set)
		}
		i++
	}
	return best
}

// lenRange returns the least and greatest length in bytes of a match of re, max -1 when
// unbounded.
func lenRange(re *syntax.Regexp) (lo, hi int) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			a, b := runeLenRange(r, re.Flags&syntax.FoldCase != 0)
			lo, hi = lo+a, hi+b
		}
		return lo, hi
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0, 0
		}
		lo = utf8.RuneLen(re.Rune[0])
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= utf8.RuneError && utf8.RuneError <= re.Rune[i+1] {
				lo = 1 // an invalid byte reads as U+FFFD
			}
		}
		return max(lo, 1), max(utf8.RuneLen(re.Rune[len(re.Rune)-1]), 1)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, utf8.UTFMax
	case syntax.OpCapture:
		return lenRange(re.Sub[0])
	case syntax.OpStar:
		return 0, -1
	case syntax.OpPlus:
		lo, _ = lenRange(re.Sub[0])
		return lo, -1
	case syntax.OpQuest:
		_, hi = lenRange(re.Sub[0])
		return 0, hi
	case syntax.OpRepeat:
		a, b := lenRange(re.Sub[0])
		if re.Max < 0 || b < 0 {
			return re.Min * a, -1
		}
		return re.Min * a, re.Max * b
	case syntax.OpConcat, syntax.OpAlternate:
		for i, sub := range re.Sub {
			a, b := lenRange(sub)
			if re.Op == syntax.OpConcat {
				lo += a
				if hi >= 0 && b >= 0 {
					hi += b
				} else {
					hi = -1
				}
			} else if i == 0 {
				lo, hi = a, b
			} else {
				lo = min(lo, a)
				if hi >= 0 && b >= 0 {
					hi = max(hi, b)
				} else {
					hi = -1
				}
			}
		}
		return lo, hi
	}
	return 0, 0 // zero-width assertions, empty match, no match
}

// runeLenRange is the length in bytes of the text a literal rune matches.
func runeLenRange(r rune, fold bool) (lo, hi int) {
	if r == utf8.RuneError {
		lo, hi = 1, 3 // an invalid byte reads as U+FFFD
	} else {
		n := utf8.RuneLen(r)
		lo, hi = n, n
	}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			n := utf8.RuneLen(f)
			lo, hi = min(lo, n), max(hi, n)
		}
	}
	return lo, hi
}

// sideSets returns the sets of the bytes next to a literal: nodes are those beside it, nearest
// first, and before is true on the side before it (each node is then read from its end). The
// sequence follows fixed-width nodes, then ends with the set of the possible next bytes when the
// remaining nodes cannot all match empty.
func sideSets(nodes []*syntax.Regexp, before bool) []byteSet {
	var out []byteSet
	for i, node := range nodes {
		s, complete := edgeSets(node, maxNeighbours-len(out), before)
		out = append(out, s...)
		if len(out) >= maxNeighbours {
			return out[:maxNeighbours]
		}
		if complete {
			continue
		}
		if len(s) == 0 {
			var set byteSet
			for _, rest := range nodes[i:] {
				f, nullable, ok := firstSet(rest, before)
				if !ok {
					return out
				}
				set.union(&f)
				if !nullable {
					return append(out, set)
				}
			}
		}
		return out
	}
	return out
}

// edgeSets returns the sets of the first (or, with fromEnd, the last, nearest the end first) bytes
// of every match of re, at most limit; complete is true when re always matches exactly that many
// bytes.
func edgeSets(re *syntax.Regexp, limit int, fromEnd bool) (sets []byteSet, complete bool) {
	if limit <= 0 {
		return nil, false
	}
	switch re.Op {
	case syntax.OpLiteral:
		runes := re.Rune
		for i := range runes {
			r := runes[i]
			if fromEnd {
				r = runes[len(runes)-1-i]
			}
			rs, ok := runeSets(r, re.Flags&syntax.FoldCase != 0)
			if !ok {
				return sets, false
			}
			if fromEnd {
				for j := len(rs) - 1; j >= 0; j-- {
					sets = append(sets, rs[j])
				}
			} else {
				sets = append(sets, rs...)
			}
			if len(sets) >= limit {
				return sets[:limit], false
			}
		}
		return sets, true
	case syntax.OpCharClass:
		set, ok := classSet(re.Rune)
		if !ok {
			return nil, false
		}
		return []byteSet{set}, true
	case syntax.OpCapture:
		return edgeSets(re.Sub[0], limit, fromEnd)
	case syntax.OpConcat:
		for i := range re.Sub {
			sub := re.Sub[i]
			if fromEnd {
				sub = re.Sub[len(re.Sub)-1-i]
			}
			s, ok := edgeSets(sub, limit-len(sets), fromEnd)
			sets = append(sets, s...)
			if !ok || len(sets) >= limit {
				return sets, false
			}
		}
		return sets, true
	case syntax.OpPlus:
		s, _ := edgeSets(re.Sub[0], limit, fromEnd)
		return s, false
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			s, ok := edgeSets(re.Sub[0], limit-len(sets), fromEnd)
			sets = append(sets, s...)
			if !ok || len(sets) >= limit {
				return sets, false
			}
		}
		return sets, re.Min == re.Max
	case syntax.OpAlternate:
		complete = true
		for i, sub := range re.Sub {
			s, ok := edgeSets(sub, limit, fromEnd)
			if i == 0 {
				sets, complete = append([]byteSet(nil), s...), ok
				continue
			}
			if !ok || len(s) != len(sets) {
				complete = false
			}
			sets = sets[:min(len(sets), len(s))]
			for k := range sets {
				sets[k].union(&s[k])
			}
		}
		return sets, complete
	}
	if isZeroWidth(re) {
		return nil, true
	}
	return nil, false // stars, questions, any character
}

// firstSet returns the set of the bytes a match of re can begin (fromEnd: end) with, whether re
// can match the empty string, and ok false when any byte may come first.
func firstSet(re *syntax.Regexp, fromEnd bool) (set byteSet, nullable, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return set, true, true
		}
		r := re.Rune[0]
		if fromEnd {
			r = re.Rune[len(re.Rune)-1]
		}
		rs, ok := runeSets(r, re.Flags&syntax.FoldCase != 0)
		if !ok {
			return set, false, false
		}
		if fromEnd {
			return rs[len(rs)-1], false, true
		}
		return rs[0], false, true
	case syntax.OpCharClass:
		set, ok := classSet(re.Rune)
		return set, false, ok
	case syntax.OpCapture:
		return firstSet(re.Sub[0], fromEnd)
	case syntax.OpStar, syntax.OpQuest:
		set, _, ok := firstSet(re.Sub[0], fromEnd)
		return set, true, ok
	case syntax.OpPlus:
		return firstSet(re.Sub[0], fromEnd)
	case syntax.OpRepeat:
		set, nullable, ok := firstSet(re.Sub[0], fromEnd)
		return set, nullable || re.Min == 0, ok
	case syntax.OpConcat:
		for i := range re.Sub {
			sub := re.Sub[i]
			if fromEnd {
				sub = re.Sub[len(re.Sub)-1-i]
			}
			f, n, ok := firstSet(sub, fromEnd)
			if !ok {
				return set, false, false
			}
			set.union(&f)
			if !n {
				return set, false, true
			}
		}
		return set, true, true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			f, n, ok := firstSet(sub, fromEnd)
			if !ok {
				return set, false, false
			}
			set.union(&f)
			nullable = nullable || n
		}
		return set, nullable, true
	}
	if isZeroWidth(re) {
		return set, true, true
	}
	return set, false, re.Op == syntax.OpNoMatch
}

// runeSets returns the sets of the bytes of a literal rune's UTF-8 encoding; ok is false when
// the rune may be matched by texts of other lengths (case folding across ASCII, U+FFFD).
func runeSets(r rune, fold bool) (sets []byteSet, ok bool) {
	if r == utf8.RuneError {
		return nil, false
	}
	if fold {
		var s byteSet
		for f := r; ; {
			if f >= utf8.RuneSelf {
				return nil, false
			}
			s.add(byte(f))
			if f = unicode.SimpleFold(f); f == r {
				break
			}
		}
		return []byteSet{s}, true
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	sets = make([]byteSet, n)
	for i := 0; i < n; i++ {
		sets[i].add(buf[i])
	}
	return sets, true
}

// classSet returns the set of an ASCII character class; ok is false when it holds other runes.
func classSet(ranges []rune) (set byteSet, ok bool) {
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1] >= utf8.RuneSelf {
			return set, false
		}
		for c := ranges[i]; c <= ranges[i+1]; c++ {
			set.add(byte(c))
		}
	}
	return set, true
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
// States are numbered breadth-first, those where a literal ends last: the shallow states where a
// scan spends nearly all its time share a few cache lines, a transition is the next state's row
// offset (one add and one load per byte), and "a literal ends here" is a comparison off that
// chain.
type acMatcher struct {
	class    [256]uint8
	nclass   int
	delta    []int32   // row offset (state*nclass) + class → next row offset
	outStart int32     // row offsets from here on are states where literals end
	out      [][]int32 // state → literals ending here (including via failure links)
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
	// Breadth-first order: the new state numbers, failure links and the dense transition table
	// (in trie numbers first).
	order := []int32{0}
	for i := 0; i < len(order); i++ {
		s := order[i]
		for c := 0; c < n; c++ {
			if nx, ok := nodes[s].next[uint8(c)]; ok {
				order = append(order, nx)
			}
		}
	}
	delta := make([]int32, len(nodes)*n)
	fail := make([]int32, len(nodes))
	for _, s := range order {
		if s != 0 {
			nodes[s].out = append(nodes[s].out, nodes[fail[s]].out...)
		}
		for c := 0; c < n; c++ {
			nx, ok := nodes[s].next[uint8(c)]
			switch {
			case ok && s == 0:
				delta[c] = nx
			case ok:
				fail[nx] = delta[int(fail[s])*n+c]
				delta[int(s)*n+c] = nx
			case s != 0:
				delta[int(s)*n+c] = delta[int(fail[s])*n+c]
			}
		}
	}
	// Renumber: states without output in breadth-first order, then those with output.
	var final []int32
	for _, s := range order {
		if len(nodes[s].out) == 0 {
			final = append(final, s)
		}
	}
	m.outStart = int32(len(final) * n)
	for _, s := range order {
		if len(nodes[s].out) > 0 {
			final = append(final, s)
		}
	}
	renum := make([]int32, len(nodes))
	for i, s := range final {
		renum[s] = int32(i)
	}
	m.delta = make([]int32, len(nodes)*n)
	m.out = make([][]int32, len(nodes))
	for _, s := range final {
		row := int(renum[s]) * n
		m.out[renum[s]] = nodes[s].out
		for c := 0; c < n; c++ {
			m.delta[row+c] = renum[delta[int(s)*n+c]] * int32(n)
		}
	}
	return m
}

// scan calls hit for each literal occurrence in text (a literal may be reported many times).
// FindTrackingIDs runs the same loop inline.
func (m *acMatcher) scan(text string, hit func(lit int32, end int)) {
	st := int32(0)
	for i := 0; i < len(text); i++ {
		st = m.delta[st+int32(m.class[text[i]])]
		if st >= m.outStart {
			for _, l := range m.out[int(st)/m.nclass] {
				hit(l, i+1)
			}
		}
	}
}
