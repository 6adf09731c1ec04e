package banner_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// An independent TC string decoder, written from the IAB's "Consent string and vendor list
// formats v2" for the tests only: it shares nothing with the runtime's encoder (tcfstring.js),
// and TestTCStringVectors holds it to the values the IAB's reference library (iabtcf-es)
// publishes for its test vectors. (The well-kept Go decoders, LiveRamp/iabconsent and
// prebid/go-gdpr, cannot be fetched from this project's module proxy; @iabtechlabtcf/core, the
// IAB's own decoder, checks the same strings in the browser tests.)

// tcModel is a decoded TC string.
type tcModel struct {
	Version, CMPID, CMPVersion, ConsentScreen int
	Created, LastUpdated                      time.Time
	ConsentLanguage, PublisherCC              string
	VendorListVersion, PolicyVersion          int
	IsServiceSpecific, UseNonStandardTexts    bool
	PurposeOneTreatment                       bool
	SpecialFeatures, Purposes, PurposesLI     []int
	Vendors, VendorsLI                        []int
	// Restrictions maps "purpose/type" to its vendors.
	Restrictions map[string][]int
	// Segments present besides the core one, and their contents.
	HasDisclosed, HasPublisher  bool
	Disclosed                   []int
	PubPurposes, PubPurposesLI  []int
	NumCustomPurposes           int
	CustomPurposes, CustomPurLI []int
}

type bitReader struct {
	b   []byte
	pos int
	err error
}

func (r *bitReader) int(n int) int {
	v := 0
	for i := 0; i < n; i++ {
		if r.pos >= len(r.b)*8 {
			r.err = errors.New("tc string: truncated")
			return 0
		}
		bit := (r.b[r.pos/8] >> (7 - r.pos%8)) & 1
		v = v<<1 | int(bit)
		r.pos++
	}
	return v
}

func (r *bitReader) flag() bool { return r.int(1) == 1 }

func (r *bitReader) letters() string {
	a, b := r.int(6), r.int(6)
	return string(rune('A'+a)) + string(rune('A'+b))
}

func (r *bitReader) set(n int) []int {
	var out []int
	for i := 1; i <= n; i++ {
		if r.flag() {
			out = append(out, i)
		}
	}
	return out
}

func (r *bitReader) ranges() []int {
	var out []int
	n := r.int(12)
	for i := 0; i < n && r.err == nil; i++ {
		isRange := r.flag()
		start := r.int(16)
		end := start
		if isRange {
			end = r.int(16)
		}
		if end < start {
			r.err = fmt.Errorf("tc string: range %d-%d", start, end)
			return nil
		}
		for v := start; v <= end; v++ {
			out = append(out, v)
		}
	}
	return out
}

// vendors reads a vendor section (MaxVendorId, IsRangeEncoding, bit field or ranges).
func (r *bitReader) vendors() []int {
	max := r.int(16)
	if r.flag() {
		vs := r.ranges()
		for _, v := range vs {
			if v > max {
				r.err = fmt.Errorf("tc string: vendor %d above MaxVendorId %d", v, max)
			}
		}
		return vs
	}
	return r.set(max)
}

func decodeSegment(s string) (*bitReader, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, fmt.Errorf("tc string: %w", err)
	}
	return &bitReader{b: b}, nil
}

// decodeTC decodes a TC string v2 (core segment, then any disclosed vendors and publisher TC
// segments). A segment whose bits run out, or bytes left over beyond a segment's padding, is
// an error, as in the reference library.
func decodeTC(s string) (*tcModel, error) {
	parts := strings.Split(s, ".")
	r, err := decodeSegment(parts[0])
	if err != nil {
		return nil, err
	}
	m := &tcModel{Restrictions: map[string][]int{}}
	m.Version = r.int(6)
	if m.Version != 2 {
		return nil, fmt.Errorf("tc string: version %d", m.Version)
	}
	ds := func(v int) time.Time { return time.UnixMilli(int64(v) * 100).UTC() }
	m.Created, m.LastUpdated = ds(r.int(36)), ds(r.int(36))
	m.CMPID, m.CMPVersion, m.ConsentScreen = r.int(12), r.int(12), r.int(6)
	m.ConsentLanguage = r.letters()
	m.VendorListVersion, m.PolicyVersion = r.int(12), r.int(6)
	m.IsServiceSpecific, m.UseNonStandardTexts = r.flag(), r.flag()
	m.SpecialFeatures, m.Purposes, m.PurposesLI = r.set(12), r.set(24), r.set(24)
	m.PurposeOneTreatment = r.flag()
	m.PublisherCC = r.letters()
	m.Vendors = r.vendors()
	m.VendorsLI = r.vendors()
	n := r.int(12)
	for i := 0; i < n && r.err == nil; i++ {
		purpose, typ := r.int(6), r.int(2)
		key := fmt.Sprintf("%d/%d", purpose, typ)
		// A vendor may be listed twice under one restriction: the set counts.
		m.Restrictions[key] = slices.Compact(slices.Sorted(slices.Values(append(m.Restrictions[key], r.ranges()...))))
	}
	if err := r.end(); err != nil {
		return nil, err
	}
	for _, seg := range parts[1:] {
		r, err := decodeSegment(seg)
		if err != nil {
			return nil, err
		}
		switch typ := r.int(3); typ {
		case 1:
			m.HasDisclosed = true
			m.Disclosed = r.vendors()
		case 2: // AllowedVendors: deprecated with global scope, read and ignored
			r.vendors()
		case 3:
			m.HasPublisher = true
			m.PubPurposes, m.PubPurposesLI = r.set(24), r.set(24)
			m.NumCustomPurposes = r.int(6)
			m.CustomPurposes, m.CustomPurLI = r.set(m.NumCustomPurposes), r.set(m.NumCustomPurposes)
		default:
			return nil, fmt.Errorf("tc string: segment type %d", typ)
		}
		if err := r.end(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// end fails on a read past the data (a field longer than encoded, as the bit field of a wrong
// MaxVendorId).
func (r *bitReader) end() error {
	return r.err
}
