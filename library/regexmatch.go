package library

import (
	"regexp/syntax"
)

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
