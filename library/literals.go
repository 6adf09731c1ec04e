package library

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxWindow bounds how far from its literal a tracking-ID match may extend.
const maxWindow = 256

// maxAnchorRange is the widest range of candidate starts before a literal that is tested start by
// start; a wider one gets a window.
const maxAnchorRange = 16

// maxNeighbours caps the byte sets checked on each side of a literal occurrence.
const maxNeighbours = 8

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
