package edgerewrite

import (
	"bytes"
	"io"

	xhtml "golang.org/x/net/html"
)

// Why a scanner in front of the tokenizer: golang.org/x/net/html's Tokenizer reads a byte at a
// time through a method call and an error check, which on a page full of tags caps the
// rewriter at about 40 MB/s of CPU time (BenchmarkRewrite; the tokenizer alone costs as much).
// The only faster maintained HTML lexer (tdewolff/parse) reads the whole page into memory
// first, which a streaming edge cannot. So the scanner below takes the plain parts of a page
// with bytes.IndexByte and slice loops, the same way the tokenizer reads them: text, start and
// end tags (the tokenizer's readTag, readTagName, readTagAttrKey and readTagAttrVal, ported
// rule for rule, so that a tag ends where the tokenizer ends it) and the raw text of style,
// textarea, title, xmp, iframe, noembed, noframes, noscript and plaintext (readRawOrRCDATA).
// What has rules of its own is handed to the tokenizer, which reads it and gives back what it
// read ahead (Tokenizer.Buffered): scripts (with the script data escape states), comments,
// doctypes and bogus comments (<!, <?, </ and no letter). FuzzScannerAgreesWithTokenizer
// checks that both paths write the same bytes.

// scanner feeds a rewriter from src.
type scanner struct {
	rw  *rewriter
	src io.Reader
	// buf[off:] is read and not yet handled; spare is the other buffer, which handoff copies
	// into.
	buf, spare []byte
	off        int
	eof        bool
	err        error
}

const scanBuf = 64 << 10

// stream rewrites everything src has.
func (rw *rewriter) stream(src io.Reader) error {
	b := rw.bufs
	s := &scanner{rw: rw, src: src, buf: b.buf[:0], spare: b.spare[:0]}
	err := s.run()
	// The buffers (swapped by handoffs, or grown) go back to the pool as they are now.
	b.buf, b.spare = s.buf[:0], s.spare[:0]
	return err
}

// fragment rewrites the markup b, which is whole (the content of a <noscript>), in place
// without copying it.
func (rw *rewriter) fragment(b []byte) error {
	s := scanner{rw: rw, src: eof{}, buf: b[:len(b):len(b)], eof: true}
	return s.run()
}

// eof is a reader at its end.
type eof struct{}

func (eof) Read([]byte) (int, error) { return 0, io.EOF }

// run rewrites everything the scanner's source has.
func (s *scanner) run() error {
	rw := s.rw
	// last is true for one more pass over a construct cut off by the end of the input, now
	// that the end is known (raw text then runs to it).
	last := false
	for {
		if rw.early != nil && rw.out.Buffered() >= firstFlush {
			if err := rw.early.flush(); err != nil {
				return err
			}
			rw.early = nil
		}
		if s.off >= len(s.buf) && !s.more() {
			return s.err
		}
		b := s.buf[s.off:]
		i := bytes.IndexByte(b, '<')
		if i < 0 {
			rw.out.Write(b)
			s.off = len(s.buf)
			continue
		}
		if i > 0 {
			rw.out.Write(b[:i])
			s.off += i
			b = b[i:]
		}
		n, handoff := s.construct(b)
		switch {
		case handoff:
			if err := s.handoff(); err != nil {
				return err
			}
		case n < 0: // cut off: more input, else the rest goes out as it is
			if s.more() {
				continue
			}
			if s.err == nil && !last {
				last = true
				continue
			}
			rw.out.Write(s.buf[s.off:])
			s.off = len(s.buf)
			return s.err
		default:
			last = false
			s.off += n
		}
	}
}

// more reads more input behind what is not handled yet; false at the end of the input (or on
// an error, kept in err).
func (s *scanner) more() bool {
	if s.eof {
		return false
	}
	// Room is made only when the buffer is full: what is handled moves out, then the buffer
	// grows (a construct longer than it).
	if len(s.buf) == cap(s.buf) && s.off > 0 {
		n := copy(s.buf, s.buf[s.off:])
		s.buf, s.off = s.buf[:n], 0
	}
	if len(s.buf) == cap(s.buf) {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)[:len(s.buf)]
	}
	n, err := s.src.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	if err != nil {
		s.eof = true
		if err != io.EOF {
			s.err = err
		}
		return n > 0
	}
	return true
}

// construct handles what starts at b[0] == '<': it returns how many bytes it handled, -1 when b
// ends before what it starts does, or handoff for what the tokenizer reads.
func (s *scanner) construct(b []byte) (n int, handoff bool) {
	if len(b) < 2 {
		return -1, false
	}
	c := b[1]
	switch {
	case isLetter(c):
		end := tagEnd(b, 1)
		if end < 0 {
			return -1, false
		}
		name := tagName(b[:end])
		if asciiEq(name, "script") {
			return s.script(b, end)
		}
		raw := rawTextOf(name)
		if raw == "" {
			if !s.rw.tag(b[:end], true) {
				s.rw.out.Write(b[:end])
			}
			return end, false
		}
		// A raw text element: its content runs to its end tag, which must be in the buffer.
		content := b[end:]
		stop, found := len(content), false
		if raw != "plaintext" {
			stop, found = rawEnd(content, raw)
		}
		if !found && !s.eof {
			return -1, false
		}
		if !s.rw.tag(b[:end], true) {
			s.rw.out.Write(b[:end])
		}
		s.rw.noscript = false
		if raw == "noscript" {
			// The content of <noscript> is markup where scripting is off: its images and
			// frames are held too.
			if err := s.rw.fragment(content[:stop]); err != nil {
				s.err = err
			}
		} else {
			s.rw.out.Write(content[:stop])
		}
		return end + stop, false
	case c == '/':
		if len(b) < 3 {
			return -1, false
		}
		if !isLetter(b[2]) {
			return 0, true
		}
		end := tagEnd(b, 2)
		if end < 0 {
			return -1, false
		}
		s.rw.out.Write(b[:end])
		return end, false
	case c == '!' || c == '?':
		return 0, true
	}
	s.rw.out.Write(b[:1])
	return 1, false
}

// script handles a script whose start tag is b[:end], as the tokenizer reads it (a start tag,
// its text, its end tag) when that is plain: the tag is not self-closing and its text, which
// runs to the first "</script" followed by a space, '/' or '>', has no "<!--" (the script data
// escape states, which only the tokenizer follows, start there). Anything else is handed off.
func (s *scanner) script(b []byte, end int) (n int, handoff bool) {
	if b[end-2] == '/' {
		return 0, true
	}
	content := b[end:]
	stop, found := rawEnd(content, "script")
	if !found {
		if !s.eof {
			return -1, false
		}
		return 0, true
	}
	if bytes.Contains(content[:stop], []byte("<!--")) {
		return 0, true
	}
	close := tagEnd(content[stop:], 2)
	if close < 0 {
		if !s.eof {
			return -1, false
		}
		return 0, true
	}
	// (token fails only on a <noscript>'s content, which these are not)
	_ = s.rw.token(xhtml.StartTagToken, b[:end])
	if stop > 0 {
		_ = s.rw.token(xhtml.TextToken, content[:stop])
	}
	_ = s.rw.token(xhtml.EndTagToken, content[stop:stop+close])
	return end + stop + close, false
}

// handoff lets the tokenizer read the construct at buf[off:], and takes back what it read
// ahead (Tokenizer.Buffered) without copying while that is still in buf.
func (s *scanner) handoff() error {
	avail := len(s.buf) - s.off
	f := &feed{buf: s.buf[s.off:], src: s.src, eof: s.eof}
	z := xhtml.NewTokenizer(f)
	err := s.rw.runOne(z)
	rest := z.Buffered()
	if !f.fromSrc {
		s.off += avail - len(f.buf) - len(rest)
	} else {
		// The tokenizer read past buf: what it has left is all there is.
		next := append(s.spare[:0], rest...)
		s.spare, s.buf, s.off = s.buf[:0], next, 0
	}
	s.eof = s.eof || f.eof
	if f.err != nil && s.err == nil {
		s.err = f.err
	}
	return err
}

// feed reads buf, then src.
type feed struct {
	buf []byte
	src io.Reader
	eof bool
	err error
	// fromSrc is set once something is read from src.
	fromSrc bool
}

func (f *feed) Read(p []byte) (int, error) {
	if len(f.buf) > 0 {
		n := copy(p, f.buf)
		f.buf = f.buf[n:]
		return n, nil
	}
	if f.eof {
		return 0, io.EOF
	}
	f.fromSrc = true
	n, err := f.src.Read(p)
	if err != nil {
		f.eof = true
		if err != io.EOF {
			f.err = err
		}
	}
	return n, err
}

func isLetter(c byte) bool { u := c &^ 0x20; return 'A' <= u && u <= 'Z' }

func isWS(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' }

// tagEnd returns the end of the tag starting at b[0] == '<' whose name starts at b[i] (the
// tokenizer's readTag), -1 when b ends first.
func tagEnd(b []byte, i int) int {
	// readTagName
	for i++; ; i++ {
		if i >= len(b) {
			return -1
		}
		if c := b[i]; isWS(c) {
			i++
			break
		} else if c == '/' || c == '>' {
			break
		}
	}
	skip := func() bool {
		for i < len(b) && isWS(b[i]) {
			i++
		}
		return i < len(b)
	}
	if !skip() {
		return -1
	}
	for {
		c := b[i]
		i++
		if c == '>' {
			return i
		}
		i--
		// readTagAttrKey
		start := i
		for {
			if i >= len(b) {
				return -1
			}
			c := b[i]
			i++
			if c == '=' && start+1 == i {
				continue
			}
			if c == '=' || isWS(c) || c == '/' || c == '>' {
				i--
				break
			}
		}
		// readTagAttrVal
		if !skip() {
			return -1
		}
		c = b[i]
		i++
		if c == '=' {
			if !skip() {
				return -1
			}
			q := b[i]
			i++
			switch q {
			case '>':
				i--
			case '\'', '"':
				j := bytes.IndexByte(b[i:], q)
				if j < 0 {
					return -1
				}
				i += j + 1
			default:
			unquoted:
				for {
					if i >= len(b) {
						return -1
					}
					switch b[i] {
					case ' ', '\n', '\r', '\t', '\f':
						i++
						break unquoted
					case '>':
						break unquoted
					}
					i++
				}
			}
		} else if c != '/' {
			i--
		}
		if !skip() {
			return -1
		}
	}
}

// rawTextOf returns, lower-cased, the name of an element whose content the tokenizer reads as
// raw text (script aside), "" for another.
func rawTextOf(name []byte) string {
	for _, r := range [...]string{"style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext"} {
		if asciiEq(name, r) {
			return r
		}
	}
	return ""
}

// rawEnd returns where the raw text b of element name ends: at "</name" followed by a space,
// '/' or '>' (the tokenizer's readRawEndTag); found is false when b ends first.
func rawEnd(b []byte, name string) (int, bool) {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("</"))
		if j < 0 {
			return len(b), false
		}
		i += j
		k := i + 2
		if k+len(name) >= len(b) {
			return len(b), false
		}
		if asciiEq(b[k:k+len(name)], name) {
			switch b[k+len(name)] {
			case ' ', '\n', '\r', '\t', '\f', '/', '>':
				return i, true
			}
		}
		i += 2
	}
}
