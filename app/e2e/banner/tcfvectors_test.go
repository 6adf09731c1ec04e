package banner_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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

// tcVector is one of testdata/tcstring-vectors.json: a TC string of the runtime's encoder for
// the input beside it (tcString's argument), which tcfstring.test.mjs holds the encoder to.
type tcVector struct {
	Name  string `json:"name"`
	Input struct {
		Created         int64  `json:"created"`
		CMPID           int    `json:"cmpId"`
		CMPVersion      int    `json:"cmpVersion"`
		Screen          int    `json:"screen"`
		Lang            string `json:"lang"`
		PublisherCC     string `json:"publisherCC"`
		GVLVersion      int    `json:"gvlVersion"`
		PolicyVersion   int    `json:"policyVersion"`
		SpecialFeatures []int  `json:"specialFeatures"`
		Purposes        []int  `json:"purposes"`
		PurposesLI      []int  `json:"purposesLI"`
		Vendors         []int  `json:"vendors"`
		VendorsLI       []int  `json:"vendorsLI"`
		Disclosed       []int  `json:"disclosed"`
		PubPurposes     []int  `json:"pubPurposes"`
		PubPurposesLI   []int  `json:"pubPurposesLI"`
		ConsentOnly     []int  `json:"consentOnly"`
		Restrictions    []struct {
			PurposeID       int   `json:"purposeId"`
			RestrictionType int   `json:"restrictionType"`
			VendorIDs       []int `json:"vendorIds"`
		} `json:"restrictions"`
	} `json:"input"`
	TC string `json:"tc"`
}

// TestTCStringVectorFile: each TC string of testdata/tcstring-vectors.json, read by the test
// decoder (which TestTCStringVectors holds to the IAB's vectors), carries its input: so the
// vectors the node unit test compares the encoder's output with are right, and a change of the
// encoder that changes its output needs vectors that pass here too.
func TestTCStringVectorFile(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(runtimeSources, "testdata", "tcstring-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Vectors []tcVector }
	if err := json.Unmarshal(raw, &file); err != nil || len(file.Vectors) < 5 {
		t.Fatalf("%d vectors: %v", len(file.Vectors), err)
	}
	// set is ids as a TC string holds them: ascending, once each, without those in not.
	set := func(ids []int, not ...int) []int {
		out := []int{}
		for _, i := range ids {
			if i > 0 && !slices.Contains(out, i) && !slices.Contains(not, i) {
				out = append(out, i)
			}
		}
		slices.Sort(out)
		return out
	}
	nz := func(s []int) []int {
		if s == nil {
			return []int{}
		}
		return s
	}
	for _, v := range file.Vectors {
		in := v.Input
		m, err := decodeTC(v.TC)
		if err != nil {
			t.Errorf("%s: %q: %v", v.Name, v.TC, err)
			continue
		}
		day := time.UnixMilli(in.Created).UTC().Truncate(24 * time.Hour)
		restrictions := map[string][]int{}
		for _, r := range in.Restrictions {
			if len(r.VendorIDs) > 0 {
				restrictions[fmt.Sprintf("%d/%d", r.PurposeID, r.RestrictionType)] = set(r.VendorIDs)
			}
		}
		if m.Version != 2 || !m.Created.Equal(day) || !m.LastUpdated.Equal(day) || m.CMPID != in.CMPID || m.CMPVersion != in.CMPVersion ||
			m.ConsentScreen != in.Screen || m.ConsentLanguage != strings.ToUpper(in.Lang) || m.PublisherCC != in.PublisherCC ||
			m.VendorListVersion != in.GVLVersion || m.PolicyVersion != in.PolicyVersion || !m.IsServiceSpecific || m.UseNonStandardTexts ||
			m.PurposeOneTreatment || !m.HasDisclosed || !m.HasPublisher || m.NumCustomPurposes != 0 {
			t.Errorf("%s: header %+v, want %+v", v.Name, m, in)
		}
		for _, c := range []struct {
			what      string
			got, want []int
		}{
			{"special features", m.SpecialFeatures, set(in.SpecialFeatures)},
			{"purposes", m.Purposes, set(in.Purposes)},
			{"purposes LI", m.PurposesLI, set(in.PurposesLI, in.ConsentOnly...)},
			{"vendors", m.Vendors, set(in.Vendors)},
			{"vendors LI", m.VendorsLI, set(in.VendorsLI)},
			{"disclosed", m.Disclosed, set(in.Disclosed)},
			{"publisher purposes", m.PubPurposes, set(in.PubPurposes)},
			{"publisher purposes LI", m.PubPurposesLI, set(in.PubPurposesLI, in.ConsentOnly...)},
		} {
			if !slices.Equal(nz(c.got), c.want) {
				t.Errorf("%s: %s %v, want %v", v.Name, c.what, c.got, c.want)
			}
		}
		if len(m.Restrictions) != len(restrictions) {
			t.Errorf("%s: restrictions %v, want %v", v.Name, m.Restrictions, restrictions)
		}
		for k, want := range restrictions {
			if !slices.Equal(m.Restrictions[k], want) {
				t.Errorf("%s: restriction %s %v, want %v", v.Name, k, m.Restrictions[k], want)
			}
		}
	}
}
