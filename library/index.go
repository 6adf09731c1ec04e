package library

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
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
