package banner_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/consentd/consentd/adapters/tcstring"
	"github.com/consentd/consentd/core/tcf"
)

// tcEncodeScript runs the runtime's encoder (tcfstring.js, as the module has it) in node on
// each case of the JSON array in argv and prints the TC strings. It runs in runtimeSources.
const tcEncodeScript = `
import { tcString } from './tcfstring.js';
const consentOnly = JSON.parse(process.argv[process.argv.length - 2]);
const cases = JSON.parse(process.argv[process.argv.length - 1]);
console.log(JSON.stringify(cases.map((c) => tcString(Object.assign({created: Date.UTC(2026, 10, 26, 17, 3), cmpId: 4095,
  cmpVersion: 7, screen: 1, lang: 'fr', gvlVersion: 17, policyVersion: 5, specialFeatures: [], purposes: [], purposesLI: [],
  publisherCC: 'DE', vendors: [], vendorsLI: [], disclosed: [], restrictions: [], pubPurposes: [], pubPurposesLI: [], consentOnly}, c)))));
`

// runtimeSources is the folder of the runtime's modules (adapters/httpapi/bannerjs), for
// node to import them from, and of their test vectors.
var runtimeSources = filepath.Join("..", "..", "..", "adapters", "httpapi", "bannerjs")

// gvlFile is the IAB Global Vendor List the TCF tests serve (testdata/tcf).
var gvlFile = filepath.Join("..", "..", "..", "testdata", "tcf", "vendor-list-v17.json")

// TestTCStringEncoder runs the runtime's encoder on the cases a site can produce (no vendor at
// all, long runs that range encoding wins, sparse and dense sets, publisher restrictions,
// legitimate interest asked for purposes where it is not allowed) and decodes each string with
// the IAB's decoder, LiveRamp's (adapters/tcstring) and the tests' own: all read back what was
// encoded.
func TestTCStringEncoder(t *testing.T) {
	t.Parallel()
	dec := tcfDecoder(t)
	run := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	type tcCase struct {
		Purposes     []int            `json:"purposes,omitempty"`
		PurposesLI   []int            `json:"purposesLI,omitempty"`
		Vendors      []int            `json:"vendors,omitempty"`
		VendorsLI    []int            `json:"vendorsLI,omitempty"`
		Disclosed    []int            `json:"disclosed,omitempty"`
		Restrictions []map[string]any `json:"restrictions,omitempty"`
	}
	cases := []tcCase{
		{},
		{Purposes: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, Vendors: run(600), Disclosed: run(600)},
		{Vendors: []int{2, 900}, VendorsLI: []int{900}, Disclosed: []int{2, 900, 1200}},
		{Purposes: []int{1}, Vendors: []int{1, 3, 5, 7, 9, 11, 13, 15}, Disclosed: []int{1, 3, 5, 7, 9, 11, 13, 15}},
		{PurposesLI: []int{1, 2, 3, 4, 5, 6, 7, 10}, Vendors: []int{755}, Disclosed: []int{755, 28},
			Restrictions: []map[string]any{{"purposeId": 2, "restrictionType": 1, "vendorIds": []int{28, 755}}, {"purposeId": 7, "restrictionType": 0, "vendorIds": []int{28}}}},
	}
	raw, _ := json.Marshal(cases)
	var out, errb bytes.Buffer
	only, _ := json.Marshal(tcf.ConsentOnlyPurposes())
	cmd := exec.Command("node", "--input-type=module", "-e", tcEncodeScript, "--", string(only), string(raw))
	cmd.Dir = runtimeSources
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\n%s", err, errb.String())
	}
	var strs []string
	if err := json.Unmarshal(out.Bytes(), &strs); err != nil || len(strs) != len(cases) {
		t.Fatalf("encoder output %q: %v", out.String(), err)
	}
	for i, c := range cases {
		own, err := decodeTC(strs[i])
		if err != nil {
			t.Errorf("case %d: %q: %v", i, strs[i], err)
			continue
		}
		iab := dec.decode(t, strs[i])
		lr, err := tcstring.Decoder{}.DecodeTCString(strs[i])
		if err != nil {
			t.Errorf("case %d: LiveRamp/iabconsent: %q: %v", i, strs[i], err)
			continue
		}
		wantLI := []int{}
		for _, p := range c.PurposesLI {
			if !slices.Contains(tcf.ConsentOnlyPurposes(), p) {
				wantLI = append(wantLI, p)
			}
		}
		for _, d := range []struct {
			by              string
			p, pl, v, disc  []int
			cmp, ver, gvl   int
			serviceSpecific bool
		}{
			{"@iabtechlabtcf/core", iab.Purposes, iab.PurposesLI, iab.Vendors, iab.Disclosed, iab.CmpID, iab.CmpVersion, iab.VendorListVersion, iab.IsServiceSpecific},
			{"the Go decoder", nz(own.Purposes), nz(own.PurposesLI), nz(own.Vendors), nz(own.Disclosed), own.CMPID, own.CMPVersion, own.VendorListVersion, own.IsServiceSpecific},
			{"LiveRamp/iabconsent", nz(lr.PurposesConsent), nz(lr.PurposesLI), nz(lr.VendorsConsent), nz(lr.VendorsDisclosed), lr.CMPID, lr.CMPVersion, lr.VendorListVersion, lr.IsServiceSpecific},
		} {
			if !slices.Equal(d.p, nz(c.Purposes)) || !slices.Equal(d.pl, wantLI) || !slices.Equal(d.v, nz(c.Vendors)) || !slices.Equal(d.disc, slices.Sorted(slices.Values(nz(c.Disclosed)))) ||
				d.cmp != 4095 || d.ver != 7 || d.gvl != 17 || !d.serviceSpecific {
				t.Errorf("case %d read by %s: purposes %v LI %v vendors %d %v disclosed %v, cmp %d v%d gvl %d", i, d.by, d.p, d.pl, len(d.v), head(d.v), d.disc, d.cmp, d.ver, d.gvl)
			}
		}
		if !slices.Equal(nz(own.VendorsLI), nz(c.VendorsLI)) || own.ConsentLanguage != "FR" || own.PublisherCC != "DE" || own.PolicyVersion != 5 ||
			own.Created != own.LastUpdated || own.Created.Format("2006-01-02T15:04:05") != "2026-11-26T00:00:00" {
			t.Errorf("case %d: vendors LI %v, language %s, publisher %s, policy %d, created %v, updated %v", i, own.VendorsLI, own.ConsentLanguage, own.PublisherCC, own.PolicyVersion, own.Created, own.LastUpdated)
		}
		for _, r := range c.Restrictions {
			key := jsonNum(r["purposeId"]) + "/" + jsonNum(r["restrictionType"])
			if !slices.Equal(own.Restrictions[key], r["vendorIds"].([]int)) {
				t.Errorf("case %d: restriction %s = %v, want %v", i, key, own.Restrictions[key], r["vendorIds"])
			}
		}
	}
	// Range encoding wins on long runs: 600 vendors in a few bytes.
	if len(strs[1]) > 120 {
		t.Errorf("600 consecutive vendors take %d characters: %s", len(strs[1]), strs[1])
	}
}

func head(v []int) []int {
	if len(v) > 8 {
		return v[:8]
	}
	return v
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
