// Package bits reads sequences of bits: the part of github.com/rupertchen/go-bits (MIT,
// LICENSE beside this file) that the TC string decoder (../iabconsent) uses. See SOURCE.md.
package bits

import (
	"errors"
	"fmt"
)

// Block contains a sequence of 0–64 bits. If fewer than 64 bits are needed,
// the sequence is right-aligned and padded with zeros on the left. It is up
// to the caller to interpret how many bits are used.
type Block uint64

// Bitmap represents a fixed-length, sequence of bits.
type Bitmap struct {
	size  int
	store []Block
}

const bitsPerByte = 8
const bytesPerBlock = 8
const bitsPerBlock = bitsPerByte * bytesPerBlock

// NewBitmap returns a new Bitmap from a slice of bytes. Passing the output of
// a decoder is the typical way of creating a Bitmap.
func NewBitmap(bytes []byte) *Bitmap {
	var numBytes = len(bytes)
	var storeSize = sizeRequired(numBytes, bytesPerBlock)
	var s = make([]Block, 0, storeSize)

	var buf Block
	var hasPartialBuf bool
	var lastM = bytesPerBlock - 1
	for i, b := range bytes {
		var m = i % bytesPerBlock
		buf |= Block(b) << uint(bitsPerBlock-(m+1)*bitsPerByte)
		if lastM == m {
			s = append(s, buf)
			buf = 0
			hasPartialBuf = false
		} else {
			hasPartialBuf = true
		}
	}
	if hasPartialBuf {
		s = append(s, buf)
	}
	return &Bitmap{size: numBytes * bitsPerByte, store: s}
}

// sizeRequired returns the number of groups required to fit n items into
// groups of at most size g. This is equivalent to ceil(n / g).
func sizeRequired(n, g int) int {
	var s = n / g
	if 0 == (n % g) {
		return s
	}
	return s + 1
}

// Get returns a Block of bits representing the requested range of bits. The
// returned bits are right-aligned.
func (b *Bitmap) Get(index, length uint) (Block, error) {
	if index >= uint(b.size) {
		return 0, errors.New("bits: index out of range")
	}

	// I can't think of a reasonable use case for explicitly reading zero bits,
	// but returning an empty Block should be the result. Perhaps there is
	// behavior will simplify a caller's logic in some edge case.
	if length == 0 {
		return 0, nil
	}

	if length > bitsPerBlock {
		return 0, errors.New("bits: length out of range, [0-64]")
	}

	if index+length-1 >= uint(b.size) {
		return 0, errors.New("bits: length extends beyond range")
	}

	// This is the index of the internal block where the range begins.
	var storeIndex = index / bitsPerBlock

	// This is the index of the last bit relative to the internal block where
	// the range begins.
	var endBitIndex = index%bitsPerBlock + length - 1

	// Bit shift and merge the internal blocks containing the range.
	var buf Block
	if endBitIndex < bitsPerBlock {
		buf = b.store[storeIndex] >> (bitsPerBlock - endBitIndex - 1)
	} else {
		var overflow = endBitIndex - bitsPerBlock + 1
		buf = (b.store[storeIndex] << overflow) | (b.store[storeIndex+1] >> (bitsPerBlock - overflow))
	}

	var mask Block = 0xFFFFFFFFFFFFFFFF >> (bitsPerBlock - length)
	return Block(buf & mask), nil
}

// Reader provides a convenient way to read bits, up to 64 at a time.
// Successive calls to the Read* functions will read the next sequence of bits
// and advance the Reader's position. It is the responsibility of the caller to
// not read beyond the available range.
//
// Once any Read* call returns an error, all subsequent calls on any Read*
// function will error, returning the same error as the first. This gives
// callers the option to "batch" read logic and periodically check for errors
// rather than checking it after every read.
//
// The internal position is not advanced when there is an error. This is an
// intentional design decision to prevent mis-aligned reads following a read
// failure.
//
// This is *not* an implementation of io.Reader.
type Reader struct {
	position uint
	src      *Bitmap
	Err      error
}

const bitsPerBool = 1

// NewReader returns a Reader that reads from src.
func NewReader(src *Bitmap) *Reader {
	return &Reader{position: 0, src: src}
}

// ReadBits returns a Block containing the next n bits.
func (r *Reader) ReadBits(n uint) (Block, error) {
	if r.Err != nil {
		return 0, r.Err
	}

	if b, err := r.src.Get(r.position, n); err != nil {
		r.Err = fmt.Errorf("read bits (index=%d, length=%d): %w", r.position, n, err)
		return 0, r.Err
	} else {
		r.position += n
		return b, nil
	}
}

// ReadBool returns the next bit as a bool.
func (r *Reader) ReadBool() (bool, error) {
	if r.Err != nil {
		return false, r.Err
	}

	if b, err := r.ReadBits(bitsPerBool); err != nil {
		r.Err = fmt.Errorf("read bool: %w", err)
		return false, r.Err
	} else {
		return 1 == b, nil
	}
}
