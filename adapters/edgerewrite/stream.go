package edgerewrite

import (
	"bufio"
	"io"
	"sync"
)

// The rewriter's input and output: pooled buffers, and the flushes that keep a page
// streaming.

// buffers are a page's reader, writer and scanner buffers (192 KB), reused from page to page:
// allocating them for every page made garbage that a busy edge's collector then paid for
// while pages were waiting for their first byte.
type buffers struct {
	in         *bufio.Reader
	out        *bufio.Writer
	buf, spare []byte
}

var buffersPool = sync.Pool{New: func() any {
	return &buffers{in: bufio.NewReaderSize(nil, 32<<10), out: bufio.NewWriterSize(nil, 32<<10),
		buf: make([]byte, 0, scanBuf), spare: make([]byte, 0, scanBuf)}
}}

// release returns b to the pool, without what it refers to; a scanner buffer that grew (a
// construct longer than it) is not kept.
func (b *buffers) release() {
	b.in.Reset(nil)
	b.out.Reset(nil)
	if cap(b.buf) != scanBuf || cap(b.spare) != scanBuf {
		return
	}
	buffersPool.Put(b)
}

// flushingReader flushes the output before a read from its source that would wait for more
// input, so that what is rewritten reaches the visitor while the rest of the page is on its
// way; and, for the page's first earlyFlush bytes, before every read (the tokenizer reads a
// few KB at a time), so that its head goes out at once.
type flushingReader struct {
	r       *bufio.Reader
	out     *bufio.Writer
	w       io.Writer
	flushed int
}

// earlyFlush is how much of a page's start goes out as soon as it is rewritten.
const earlyFlush = 16 << 10

func (f *flushingReader) Read(p []byte) (int, error) {
	if n := f.out.Buffered(); n > 0 && (f.r.Buffered() == 0 || f.flushed < earlyFlush) {
		if err := f.flush(); err != nil {
			return 0, err
		}
	}
	return f.r.Read(p)
}

func (f *flushingReader) flush() error {
	f.flushed += f.out.Buffered()
	return flushAll(f.out, f.w)
}

// firstFlush is how much of the rewritten page goes out at once, without waiting for the rest
// of what was read with it: the time to the first byte is one construct's, not one read's.
const firstFlush = 1 << 10

// flushAll writes out's buffer to w and flushes w when it can be.
func flushAll(out *bufio.Writer, w io.Writer) error {
	if err := out.Flush(); err != nil {
		return err
	}
	switch f := w.(type) {
	case interface{ Flush() error }:
		return f.Flush()
	case interface{ Flush() }:
		f.Flush()
	}
	return nil
}
