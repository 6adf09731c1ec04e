package banner_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// A GPP string decoder for the tests only, written from the IAB's specifications (GPP Consent
// String Specification: header, Fibonacci ranges, the base64url alphabet; the US National
// Privacy Technical Specification version 1 and 2; the California, Virginia, Colorado, Utah
// and Connecticut sections version 1), independently of core's tables and of the runtime's
// encoder: its layouts are restated here from the specifications. No Go GPP decoder can be
// fetched here: prebid/go-gpp is not served by the module proxy (403) and reads only usnat's
// version 1 layout. TestGPPVectors holds it to the published vectors of the IAB's reference
// library (iabgpp-es) and of the specification.

type gppBits struct {
	b   []byte
	pos int
	err error
}

func newGPPBits(s string) *gppBits {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	r := &gppBits{}
	for _, c := range s {
		v := strings.IndexRune(alphabet, c)
		if v < 0 {
			r.err = fmt.Errorf("%q is not base64url", c)
			return r
		}
		for i := 5; i >= 0; i-- {
			r.b = append(r.b, byte(v>>i)&1)
		}
	}
	return r
}

func (r *gppBits) int(n int) int {
	if r.err != nil || r.pos+n > len(r.b) {
		r.err = fmt.Errorf("short of bits at %d", r.pos)
		return 0
	}
	v := 0
	for _, b := range r.b[r.pos : r.pos+n] {
		v = v<<1 | int(b)
	}
	r.pos += n
	return v
}

// fib reads a Fibonacci-coded integer: bit i counts F(i+2) (1, 2, 3, 5, ...), ended by "11".
func (r *gppBits) fib() int {
	f := []int{1, 2}
	v := 0
	for i := 0; ; i++ {
		if r.err != nil || r.pos >= len(r.b) {
			r.err = fmt.Errorf("unterminated Fibonacci code")
			return 0
		}
		bit := r.b[r.pos]
		r.pos++
		if i > 0 && bit == 1 && r.b[r.pos-2] == 1 {
			return v
		}
		for len(f) <= i {
			f = append(f, f[len(f)-1]+f[len(f)-2])
		}
		if bit == 1 {
			v += f[i]
		}
	}
}

// usLayouts: each US section's fields after Version by version; "name:n" is an N-Bitfield(2, n),
// a plain name an Int(2). gpc: the section may carry the GPC subsection.
var usLayouts = map[int]struct {
	api string
	gpc bool
	byV map[int]string
}{
	7: {"usnat", true, map[int]string{
		1: "SharingNotice SaleOptOutNotice SharingOptOutNotice TargetedAdvertisingOptOutNotice SensitiveDataProcessingOptOutNotice SensitiveDataLimitUseNotice SaleOptOut SharingOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:12 KnownChildSensitiveDataConsents:2 PersonalDataConsents MspaCoveredTransaction MspaOptOutOptionMode MspaServiceProviderMode",
		2: "SharingNotice SaleOptOutNotice SharingOptOutNotice TargetedAdvertisingOptOutNotice SensitiveDataProcessingOptOutNotice SensitiveDataLimitUseNotice SaleOptOut SharingOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:16 KnownChildSensitiveDataConsents:3 PersonalDataConsents MspaCoveredTransaction MspaOptOutOptionMode MspaServiceProviderMode",
	}},
	8:  {"usca", true, map[int]string{1: "SaleOptOutNotice SharingOptOutNotice SensitiveDataLimitUseNotice SaleOptOut SharingOptOut SensitiveDataProcessing:9 KnownChildSensitiveDataConsents:2 PersonalDataConsents MspaCoveredTransaction MspaOptOutOptionMode MspaServiceProviderMode"}},
	9:  {"usva", false, map[int]string{1: "SharingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:8 KnownChildSensitiveDataConsents MspaCoveredTransaction MspaOptOutOptionMode MspaServiceProviderMode"}},
	10: {"usco", true, map[int]string{1: "SharingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:7 KnownChildSensitiveDataConsents MspaCoveredTransaction MspaOptOutOptionMode MspaServiceProviderMode"}},
	11: {"usut", false, map[int]string{1: "SharingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SensitiveDataProcessingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:8 KnownChildSensitiveDataConsents MspaCoveredTransaction MspaOptOutOptionMode MspaServiceProviderMode"}},
	12: {"usct", true, map[int]string{1: "SharingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:8 KnownChildSensitiveDataConsents:3 MspaCoveredTransaction MspaOptOutOptionMode MspaServiceProviderMode"}},
	// The state specifications of 2024 and 2025 (Sections/US-States/*), version 1.
	13: {"usfl", false, map[int]string{1: "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:8 KnownChildSensitiveDataConsents:3 AdditionalDataProcessingConsent" + usMSPA}},
	14: {"usmt", true, map[int]string{1: "SharingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:8 KnownChildSensitiveDataConsents:3 AdditionalDataProcessingConsent" + usMSPA}},
	15: {"usor", true, map[int]string{1: "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:11 KnownChildSensitiveDataConsents:3 AdditionalDataProcessingConsent" + usMSPA}},
	16: {"ustx", true, map[int]string{1: "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:8 KnownChildSensitiveDataConsents AdditionalDataProcessingConsent" + usMSPA}},
	17: {"usde", true, map[int]string{1: "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:9 KnownChildSensitiveDataConsents:5 AdditionalDataProcessingConsent" + usMSPA}},
	18: {"usia", true, map[int]string{1: "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SensitiveDataOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:8 KnownChildSensitiveDataConsents" + usMSPA}},
	19: {"usne", true, map[int]string{1: "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:8 KnownChildSensitiveDataConsents AdditionalDataProcessingConsent" + usMSPA}},
	20: {"usnh", true, map[int]string{1: "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:8 KnownChildSensitiveDataConsents:3 AdditionalDataProcessingConsent" + usMSPA}},
	21: {"usnj", true, map[int]string{1: "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:10 KnownChildSensitiveDataConsents:5 AdditionalDataProcessingConsent" + usMSPA}},
	22: {"ustn", true, map[int]string{1: "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:8 KnownChildSensitiveDataConsents AdditionalDataProcessingConsent" + usMSPA}},
	23: {"usmn", true, map[int]string{1: "ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut SensitiveDataProcessing:8 KnownChildSensitiveDataConsents AdditionalDataProcessingConsent" + usMSPA}},
	// Maryland, Indiana, Kentucky, Rhode Island (1.0, October 2025): no Version field; the core
	// subsection begins with MspaVersion Int(6) ("0": the decoder reads no Version).
	24: {"usmd", true, map[int]string{0: "MspaVersion/6 MspaCoveredTransaction MspaMode ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut AdditionalDataProcessingConsent"}},
	25: {"usin", false, map[int]string{0: "MspaVersion/6 MspaCoveredTransaction MspaMode ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut KnownChildSensitiveDataConsents AdditionalDataProcessingConsent"}},
	26: {"usky", false, map[int]string{0: "MspaVersion/6 MspaCoveredTransaction MspaMode ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut KnownChildSensitiveDataConsents AdditionalDataProcessingConsent"}},
	27: {"usri", false, map[int]string{0: "MspaVersion/6 MspaCoveredTransaction MspaMode ProcessingNotice SaleOptOutNotice TargetedAdvertisingOptOutNotice SaleOptOut TargetedAdvertisingOptOut KnownChildSensitiveDataConsents AdditionalDataProcessingConsent"}},
}

const usMSPA = " MspaCoveredTransaction MspaOptOutOptionMode MspaServiceProviderMode"

// decodeGPPHeader returns the section IDs a GPP header lists.
func decodeGPPHeader(h string) ([]int, error) {
	r := newGPPBits(h)
	if typ, v := r.int(6), r.int(6); r.err == nil && (typ != 3 || v != 1) {
		return nil, fmt.Errorf("header type %d version %d, want 3 and 1", typ, v)
	}
	var ids []int
	n, prev := r.int(12), 0
	for range n {
		group := r.int(1)
		prev += r.fib()
		ids = append(ids, prev)
		if group == 1 {
			for range r.fib() {
				prev++
				ids = append(ids, prev)
			}
		}
	}
	return ids, r.err
}

// decodeUSSection decodes a US section (core segment, then the GPC subsection if any) into its
// fields by name: ints, []int for N-Bitfields, Gpc a bool.
func decodeUSSection(id int, s string) (map[string]any, error) {
	l, ok := usLayouts[id]
	if !ok {
		return nil, fmt.Errorf("section %d: unknown", id)
	}
	segs := strings.Split(s, ".")
	r := newGPPBits(segs[0])
	out := map[string]any{}
	v := 0
	if _, ok := l.byV[0]; !ok {
		v = r.int(6)
		out["Version"] = v
	}
	layout, ok := l.byV[v]
	if !ok {
		return nil, fmt.Errorf("%s version %d: unknown", l.api, v)
	}
	for _, f := range strings.Fields(layout) {
		name, n, isField := strings.Cut(f, ":")
		if !isField {
			name, w, wide := strings.Cut(name, "/")
			bits := 2
			if wide {
				fmt.Sscan(w, &bits)
			}
			out[name] = r.int(bits)
			continue
		}
		var count int
		fmt.Sscan(n, &count)
		vals := make([]int, count)
		for i := range vals {
			vals[i] = r.int(2)
		}
		out[name] = vals
	}
	if r.err != nil {
		return nil, fmt.Errorf("%s: %v", l.api, r.err)
	}
	for _, sub := range segs[1:] {
		g := newGPPBits(sub)
		if typ := g.int(2); typ != 1 || !l.gpc {
			return nil, fmt.Errorf("%s: subsection type %d", l.api, typ)
		}
		out["Gpc"] = g.int(1) == 1
		if g.err != nil {
			return nil, g.err
		}
	}
	return out, nil
}

// goGPPDecoded is what the tests' decoder reads of a GPP string.
func decodeGPP(s string) (gppDecoded, error) {
	parts := strings.Split(s, "~")
	ids, err := decodeGPPHeader(parts[0])
	if err != nil {
		return gppDecoded{}, err
	}
	if len(ids) != len(parts)-1 {
		return gppDecoded{}, fmt.Errorf("the header lists %d sections, the string has %d", len(ids), len(parts)-1)
	}
	d := gppDecoded{IDs: ids, Sections: map[string]map[string]any{}}
	for i, id := range ids {
		if id == 2 {
			d.TCFEUv2 = parts[i+1]
			continue
		}
		f, err := decodeUSSection(id, parts[i+1])
		if err != nil {
			return d, err
		}
		// as JSON numbers, to compare with @iabgpp/cmpapi's output
		for k, v := range f {
			if n, ok := v.(int); ok {
				f[k] = float64(n)
			}
		}
		d.Sections[usLayouts[id].api] = f
	}
	return d, nil
}

func goGPPDecode(t *testing.T, s string) gppDecoded {
	t.Helper()
	d, err := decodeGPP(s)
	if err != nil {
		t.Fatalf("the Go decoder cannot decode %q: %v", s, err)
	}
	return d
}

// TestGPPVectors decodes the published test vectors of the IAB's reference library (iabgpp-es,
// modules/cmpapi/test: GppModel.test.ts, UsNat.test.ts, UsCa.test.ts) and the GPP
// specification's header examples to their published values.
func TestGPPVectors(t *testing.T) {
	t.Parallel()
	for h, want := range map[string][]int{
		"DBABM": {2}, "DBACNY": {2, 6}, "DBABjw": {5, 6}, // the specification's header examples
		"DBABLA": {7}, "DBABMA": {2}, "DBABTA": {6}, "DBACNYA": {2, 6}, // iabgpp-es GppModel.test.ts
	} {
		ids, err := decodeGPPHeader(h)
		if err != nil || !reflect.DeepEqual(ids, want) {
			t.Errorf("header %s: %v, %v; want %v", h, ids, err, want)
		}
	}
	ones := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}
	for _, c := range []struct {
		s    string
		api  string
		want map[string]any
	}{
		// GppModel.test.ts "should decode usnat v1": v1 layout, twelve and two entries.
		{"DBABLA~BAAAVVVVUQA.QA", "usnat", map[string]any{"Version": 1, "SensitiveDataProcessing": ones(12), "KnownChildSensitiveDataConsents": []int{1, 1}}},
		// "should decode usnat v2 with v1 values"
		{"DBABLA~CAAAVVVVAFBA.QA", "usnat", map[string]any{"Version": 2,
			"SensitiveDataProcessing": append(ones(12), 0, 0, 0, 0), "KnownChildSensitiveDataConsents": []int{1, 1, 0}}},
		// "should decode usnat v2 with v2 values"
		{"DBABLA~CAAAVVVVVVRA.QA", "usnat", map[string]any{"Version": 2, "SensitiveDataProcessing": ones(16), "KnownChildSensitiveDataConsents": []int{1, 1, 1}}},
		// UsNat.test.ts "should decode CVVVkkkkkpFY.YA"
		{"DBABL~CVVVkkkkkpFY.YA", "usnat", map[string]any{"Version": 2, "SharingNotice": 1, "SaleOptOutNotice": 1, "SharingOptOutNotice": 1,
			"TargetedAdvertisingOptOutNotice": 1, "SensitiveDataProcessingOptOutNotice": 1, "SensitiveDataLimitUseNotice": 1,
			"SaleOptOut": 1, "SharingOptOut": 1, "TargetedAdvertisingOptOut": 1,
			"SensitiveDataProcessing":         []int{2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2},
			"KnownChildSensitiveDataConsents": []int{2, 1, 0}, "PersonalDataConsents": 1,
			"MspaCoveredTransaction": 1, "MspaOptOutOptionMode": 1, "MspaServiceProviderMode": 2, "Gpc": true}},
		// UsCa.test.ts "should decode BVWSSSVY.YA"
		{"DBABMA~BVWSSSVY.YA", "usca", map[string]any{"Version": 1, "SaleOptOutNotice": 1, "SharingOptOutNotice": 1, "SensitiveDataLimitUseNotice": 1,
			"SaleOptOut": 1, "SharingOptOut": 1, "SensitiveDataProcessing": []int{2, 1, 0, 2, 1, 0, 2, 1, 0},
			"KnownChildSensitiveDataConsents": []int{2, 1}, "PersonalDataConsents": 1,
			"MspaCoveredTransaction": 1, "MspaOptOutOptionMode": 1, "MspaServiceProviderMode": 2, "Gpc": true}},
	} {
		// The usca vector is a section alone in its test: put it behind a header naming 8.
		s := c.s
		if c.api == "usca" {
			s = "DBABBg~" + strings.SplitN(c.s, "~", 2)[1]
		}
		d, err := decodeGPP(s)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		got := d.Sections[c.api]
		for k, w := range c.want {
			g := got[k]
			switch w := w.(type) {
			case int:
				if g != float64(w) {
					t.Errorf("%s: %s.%s = %v, want %d", c.s, c.api, k, g, w)
				}
			default:
				if !reflect.DeepEqual(g, w) {
					t.Errorf("%s: %s.%s = %v, want %v", c.s, c.api, k, g, w)
				}
			}
		}
	}
	// The tcfeuv2 vector of GppModel.test.ts is its TC string as is.
	tc := "CPSG_8APSG_8ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.IDKQA4AAgAKAGQAygAAA.YAAAAAAAAAAA"
	if d, err := decodeGPP("DBABMA~" + tc); err != nil || d.TCFEUv2 != tc {
		t.Errorf("tcfeuv2 vector: %+v, %v", d, err)
	}
}
