package library

import (
	"regexp"
	"slices"
)

// IDMatch is a tracking ID found in a text.
type IDMatch struct {
	// Service is the service whose tracking-ID pattern matched.
	Service *Service
	// ID is the captured ID.
	ID string
	// Start and End delimit the whole regex match in the text.
	Start, End int
}

// idRegex is a service's tracking-ID pattern with what the analysis of its syntax found, so that
// FindTrackingIDs can run it at a few candidate starts or in a short window, not over the text.
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
