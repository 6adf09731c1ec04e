package extract

import "golang.org/x/net/html"

// tagAttrs reads the attributes of the current start tag. When its keys and values hold no
// '&', '\r' or NUL, the tokenizer would return the keys lower-cased and the values verbatim: they
// are then cut from the raw bytes as html.Tokenizer's readTag cuts them, without the two copies
// per attribute TagAttr makes. Otherwise TagAttr decodes them.
type tagAttrs struct {
	z    *html.Tokenizer
	raw  []byte
	fast bool
	more bool
	list [32]rawAttr
	n, i int
	key  []byte
}

// rawAttr is an attribute as offsets into a tag's raw bytes.
type rawAttr struct{ k0, k1, v0, v1 int }

func (a *tagAttrs) reset(z *html.Tokenizer) {
	a.z, a.raw, a.more, a.i, a.n = z, z.Raw(), true, 0, 0
	a.n, a.fast = parseRawAttrs(a.raw, a.list[:])
}

// next returns the next attribute's lower-case key and value; both are valid until the next call.
func (a *tagAttrs) next() (key, val []byte, ok bool) {
	if a.fast {
		if a.i >= a.n {
			return nil, nil, false
		}
		r := a.list[a.i]
		a.i++
		a.key = append(a.key[:0], a.raw[r.k0:r.k1]...)
		for j, c := range a.key {
			if 'A' <= c && c <= 'Z' {
				a.key[j] = c + 'a' - 'A'
			}
		}
		return a.key, a.raw[r.v0:r.v1], true
	}
	if !a.more {
		return nil, nil, false
	}
	key, val, a.more = a.z.TagAttr()
	return key, val, key != nil
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

// parseRawAttrs cuts the raw bytes of a start tag ("<a href=x>") into attributes exactly as
// html.Tokenizer's readTag, readTagAttrKey and readTagAttrVal do, dropping empty and repeated
// keys. ok is false when there are more than len(out), or when a key or value holds a byte
// TagAttr would rewrite ('&', '\r', NUL).
func parseRawAttrs(raw []byte, out []rawAttr) (n int, ok bool) {
	i := 1
	for i < len(raw) { // the tag name
		c := raw[i]
		i++
		if isHTMLSpace(c) {
			break
		}
		if c == '/' || c == '>' {
			i--
			break
		}
	}
	skip := func() {
		for i < len(raw) && isHTMLSpace(raw[i]) {
			i++
		}
	}
	skip()
	for i < len(raw) && raw[i] != '>' {
		// The key: an '=' first is part of it.
		k0 := i
		for i < len(raw) {
			c := raw[i]
			i++
			if c == '=' && i == k0+1 {
				continue
			}
			if c == '=' || c == '/' || c == '>' || isHTMLSpace(c) {
				i--
				break
			}
		}
		k1 := i
		// The value.
		v0, v1 := i, i
		skip()
		if i < len(raw) {
			c := raw[i]
			i++
			switch {
			case c == '/':
			case c != '=':
				i--
			default:
				skip()
				if i < len(raw) {
					q := raw[i]
					i++
					switch q {
					case '>':
						i--
					case '\'', '"':
						v0 = i
						for i < len(raw) && raw[i] != q {
							i++
						}
						v1 = i
						if i < len(raw) {
							i++
						}
					default:
						v0 = i - 1
						for i < len(raw) && raw[i] != '>' && !isHTMLSpace(raw[i]) {
							i++
						}
						v1 = i
						if i < len(raw) && raw[i] != '>' {
							i++
						}
					}
				}
			}
		}
		if rewritten(raw[k0:k1]) || rewritten(raw[v0:v1]) {
			return n, false
		}
		if k1 > k0 && !repeatedKey(raw, out[:n], k0, k1) {
			if n == len(out) {
				return n, false
			}
			out[n] = rawAttr{k0, k1, v0, v1}
			n++
		}
		skip()
	}
	return n, true
}

// rewritten reports whether b holds a byte TagAttr would rewrite: a character reference, a
// carriage return or a NUL.
func rewritten(b []byte) bool {
	for _, c := range b {
		if c == '&' || c == '\r' || c == 0 {
			return true
		}
	}
	return false
}

// repeatedKey reports whether raw[k0:k1] names an attribute already in list (ASCII
// case-insensitively); the tokenizer keeps the first.
func repeatedKey(raw []byte, list []rawAttr, k0, k1 int) bool {
	for _, r := range list {
		if r.k1-r.k0 != k1-k0 {
			continue
		}
		same := true
		for j := 0; j < k1-k0; j++ {
			if foldASCII(raw[r.k0+j]) != foldASCII(raw[k0+j]) {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}

func foldASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
