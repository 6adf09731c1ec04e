package bannerjs_test

import (
	"slices"
	"testing"
)

// TestTCStringVectors holds the test decoder (tcfdecode_test.go) to the test vectors the IAB's
// reference library publishes with their expected values (iabtcf-es,
// modules/core/test/ReportedIssues.test.ts and modules/cmpapi/test/ReportedIssues.test.ts), and
// to the example of the IAB's format specification, so that its reading of the runtime's
// strings can be trusted.
func TestTCStringVectors(t *testing.T) {
	t.Parallel()
	// Issue 201: "unable to decode valid TCF2 String": version 2, a publisher restriction of
	// purpose 1, type 1 (require consent) for vendors 7, 20, 71, 122, 140 and 183.
	m, err := decodeTC(vector201)
	if err != nil {
		t.Fatalf("vector 201: %v", err)
	}
	if m.Version != 2 || !slices.Equal(m.Restrictions["1/1"], []int{7, 20, 71, 122, 140, 183}) {
		t.Errorf("vector 201: version %d, restriction 1/1 %v", m.Version, m.Restrictions["1/1"])
	}
	// Issue 142: "it should throw an error if the bitfield length does not match the maxId".
	if _, err := decodeTC(vector142); err == nil {
		t.Error("vector 142 decoded; the reference library refuses it")
	}
	// Issue 220 (cmpapi): a valid core string with a publisher TC segment.
	if m, err := decodeTC("CO5dPi4O5dPx2B7DvCENA2CgAAAAAAAAAAAAGewAAM8gAAAA.YAAAAAAAAAAA"); err != nil || m.Version != 2 || !m.HasPublisher {
		t.Errorf("vector 220: %+v, %v", m, err)
	}
	// The format specification's example of the three segments, with the values the IAB's
	// decoder (@iabtechlabtcf/core 1.5.21) reads from it.
	m, err = decodeTC("CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.IDKQA4AAgAKAGQAygAAA.YAAAAAAAAAAA")
	if err != nil {
		t.Fatalf("specification example: %v", err)
	}
	if !m.HasDisclosed || !m.HasPublisher || !m.IsServiceSpecific || m.ConsentLanguage != "EN" || m.CMPID != 880 ||
		m.VendorListVersion != 48 || m.PolicyVersion != 2 || !slices.Equal(m.Disclosed, []int{1, 2, 3, 4, 5, 100, 404}) {
		t.Errorf("specification example: %+v", m)
	}
}

const (
	vector201 = "CO4VGswO4VGswAfZCBDEAzCsAP_AAH_AAAigGUNf_X9fb2vj-_599_t0eY1f9_63t-wzjheMs-8NyZ-X_J4Wv2MyvB34JqQKGRgkunLBAQdtHGncTQgBwIlViTLMY02MjzNKJrJEilsbe2dYGH9vn8XT_ZKZ70-_v__7v3___33_5Ayhr_6_r7e18f3_Pvv9ujzGr_v_W9v2GccLxln3huTPy_5PC1-xmV4O_BNSBQyMEl05YICDto407iaEAOBEqsSZZjGmxkeZpRNZIkUtjb2zrAw_t8_i6f7JTPen39___d-___--__ICgKAOAAcAA4AFAAjgB6AEYALcGACAW0AtoJAHAAOAAcACgARwA9ACMAFuFABALaAW0GgDgAHAAOABQAI4AegBGAC3DgAgFtALaEQBwADgAHAAoAEcAPQAjABbiQAQC2gFtCoA4ABwADgAUACOAHoARgAtxYAIBbQC2hkAcAA4ABwAKABHAD0AIwAW40AEAtoBbQ6AOAAcAA4AFAAjgB6AEYALceACAW0AtohAHAAOAAcACgARwA9ACMAFuRABALaAW0SgDgAHAAOABQAI4AegBGAC3JgAgFtALaKQBwADgAHAAoAEcAPQAjABblQAQC2gFtA"
	vector142 = "CLSYjTaOngnCIAOABBENAXCMAGOAABBAAA7IA5n-m7fP6_3fbqVv6E__PoA5Aqff3aJx8tv_1967rfnQEQoAIAAQCrwkAEABAcACABIMACAAuApEVABABUSABgBCAVSAtIoACACIArYQAHACgAFgAVwBJgDcAI7AWgMAAgBiKgAgBMgFfKQAQBRkQAQA4AFiBAAoA-AEVAJlAVgAtYcACAJcAr4eABAK8OgBgFzAOmAqwgABAWyA.IFukWSQh"
)
