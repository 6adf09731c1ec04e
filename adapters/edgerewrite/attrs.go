package edgerewrite

import (
	"bufio"
	"slices"
)

// The tokenizer gives a tag's attributes lower-cased, unescaped and copied, but not where they
// are in the tag: to change one attribute and copy the rest of the tag byte for byte, the
// rewriter reads the tag's raw bytes itself, as the HTML standard's tokenizer reads
// attributes (13.2.5.32 to 13.2.5.39), for the few tags it looks at.

// span is an attribute in a raw tag: its name, and its value without quotes (valStart ==
// valEnd when it has none); end is where the attribute ends (after a closing quote).
type span struct {
	start, nameEnd, valStart, valEnd, end int
}

func (s *span) value(raw []byte) string { return string(raw[s.valStart:s.valEnd]) }

// attrs are a tag's attributes in order, and where its name ends.
type attrs struct {
	nameEnd int
	list    []span
}

// get returns the attribute named name (ASCII lower case), the first when repeated (as the
// browser keeps it), nil when absent.
func (a *attrs) get(raw []byte, name string) *span {
	for i := range a.list {
		s := &a.list[i]
		if s.nameEnd-s.start == len(name) && asciiEq(raw[s.start:s.nameEnd], name) {
			return s
		}
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// tagName returns the name of the tag raw ("<name ...>" or "</name>").
func tagName(raw []byte) []byte {
	i := 1
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	j := i
	for j < len(raw) && !isSpace(raw[j]) && raw[j] != '/' && raw[j] != '>' {
		j++
	}
	return raw[i:j]
}

// parseAttrs reads the attributes of the start tag raw into list[:0].
func parseAttrs(raw []byte, list []span) attrs {
	a := attrs{list: list[:0]}
	i := 1 + len(tagName(raw))
	a.nameEnd = i
	n := len(raw)
	if n > 0 && raw[n-1] == '>' {
		n--
	}
	for i < n {
		for i < n && (isSpace(raw[i]) || raw[i] == '/') {
			i++
		}
		if i >= n {
			break
		}
		s := span{start: i}
		// A name runs to a space, '/', '>' or '='; a leading '=' is part of it.
		i++
		for i < n && !isSpace(raw[i]) && raw[i] != '/' && raw[i] != '=' {
			i++
		}
		s.nameEnd = i
		j := i
		for j < n && isSpace(raw[j]) {
			j++
		}
		if j < n && raw[j] == '=' {
			j++
			for j < n && isSpace(raw[j]) {
				j++
			}
			if j < n && (raw[j] == '"' || raw[j] == '\'') {
				q := raw[j]
				j++
				s.valStart = j
				for j < n && raw[j] != q {
					j++
				}
				s.valEnd = j
				if j < n {
					j++
				}
			} else {
				s.valStart = j
				for j < n && !isSpace(raw[j]) {
					j++
				}
				s.valEnd = j
			}
			i = j
		} else {
			s.valStart, s.valEnd = s.nameEnd, s.nameEnd
		}
		s.end = i
		a.list = append(a.list, s)
	}
	return a
}

// asciiEq reports whether b, ASCII case folded, is lower (lower case).
func asciiEq(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// asciiFold reports whether a and b are equal, ASCII case folded (as the tokenizer folds
// attribute names: no other letter).
func asciiFold(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// edits are changes to a raw tag, written with everything else copied as it is.
type edits struct {
	raw []byte
	ops []op
}

// op replaces raw[at:end] with text.
type op struct {
	at, end int
	text    string
}

func (e *edits) insert(at int, text string) { e.ops = append(e.ops, op{at, at, text}) }

// rename renames the attribute s; the same attribute repeated after it, which the browser
// ignores, is removed, lest it take s's place.
func (e *edits) rename(a attrs, s *span, name string) {
	e.ops = append(e.ops, op{s.start, s.nameEnd, name})
	old := e.raw[s.start:s.nameEnd]
	for i := range a.list {
		if d := &a.list[i]; d.start > s.start && asciiFold(e.raw[d.start:d.nameEnd], old) {
			e.remove(d)
		}
	}
}
func (e *edits) remove(s *span) { e.ops = append(e.ops, op{s.start, s.end, ""}) }
func (e *edits) removeAll(a attrs, names ...string) {
	for i := range a.list {
		s := &a.list[i]
		for _, n := range names {
			if s.nameEnd-s.start == len(n) && asciiEq(e.raw[s.start:s.nameEnd], n) {
				e.remove(s)
			}
		}
	}
}

func (e *edits) write(w *bufio.Writer) {
	slices.SortStableFunc(e.ops, func(x, y op) int { return x.at - y.at })
	at := 0
	for _, o := range e.ops {
		if o.at < at { // overlapping (an attribute removed twice): once is enough
			continue
		}
		w.Write(e.raw[at:o.at])
		w.WriteString(o.text)
		at = o.end
	}
	w.Write(e.raw[at:])
}
