package library

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// byteSet is a set of bytes.
type byteSet [4]uint64

func (b *byteSet) has(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }

func (b *byteSet) add(c byte) { b[c>>6] |= 1 << (c & 63) }

func (b *byteSet) union(o *byteSet) {
	for i := range b {
		b[i] |= o[i]
	}
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
