// Package tcstring decodes IAB TC strings (TCF v2.x) for core (core.TCStringDecoder) with
// LiveRamp's decoder, github.com/LiveRamp/iabconsent (MIT), whose TCF v2 part is kept in
// internal/iabconsent (internal/iabconsent/SOURCE.md says what was kept and changed).
package tcstring

import (
	"slices"
	"strings"

	"github.com/consentd/consentd/adapters/tcstring/internal/iabconsent"
	"github.com/consentd/consentd/core/tcf"

	"github.com/consentd/consentd/core"
)

// Decoder decodes TC strings.
type Decoder struct{}

var _ tcf.TCStringDecoder = Decoder{}

// DecodeTCString implements core.TCStringDecoder. Besides what the decoder refuses, it refuses
// what it would let through: a string of another version, a segment that is not base64url, and
// vendor ranges that run backwards.
func (Decoder) DecodeTCString(s string) (*tcf.TCString, error) {
	if s == "" || strings.TrimSpace(s) != s {
		return nil, core.Errorf(core.CodeInvalid, "tcString: empty or padded with spaces")
	}
	if v := iabconsent.TCFVersionFromTCString(s); v != iabconsent.V2 {
		return nil, core.Errorf(core.CodeInvalid, "tcString: not a TC string of TCF v2")
	}
	p, err := iabconsent.ParseV2(s)
	if err != nil {
		return nil, core.Wrap(core.CodeInvalid, err, "tcString: not a valid TC string: "+err.Error())
	}
	out := &tcf.TCString{
		Version: p.Version, Created: p.Created.UTC(), LastUpdated: p.LastUpdated.UTC(), CMPID: p.CMPID, CMPVersion: p.CMPVersion,
		ConsentScreen: p.ConsentScreen, ConsentLanguage: p.ConsentLanguage, VendorListVersion: p.VendorListVersion,
		TCFPolicyVersion: p.TCFPolicyVersion, IsServiceSpecific: p.IsServiceSpecific, PublisherCC: p.PublisherCC,
		SpecialFeatures: set(p.SpecialFeaturesOptIn), PurposesConsent: set(p.PurposesConsent), PurposesLI: set(p.PurposesLITransparency),
	}
	if out.VendorsConsent, err = vendors(p.IsConsentRangeEncoding, p.ConsentedVendors, p.ConsentedVendorsRange); err != nil {
		return nil, err
	}
	if out.VendorsLI, err = vendors(p.IsInterestsRangeEncoding, p.InterestsVendors, p.InterestsVendorsRange); err != nil {
		return nil, err
	}
	if d := p.OOBDisclosedVendors; d != nil {
		if out.VendorsDisclosed, err = vendors(d.IsRangeEncoding, d.Vendors, d.VendorEntries); err != nil {
			return nil, err
		}
		if out.VendorsDisclosed == nil {
			out.VendorsDisclosed = []int{}
		}
	}
	byKey := map[[2]int]int{}
	for _, e := range p.PubRestrictionEntries {
		ids, err := vendors(true, nil, e.RestrictionsRange)
		if err != nil {
			return nil, err
		}
		k := [2]int{e.PurposeID, int(e.RestrictionType)}
		i, ok := byKey[k]
		if !ok {
			i = len(out.PublisherRestrictions)
			byKey[k] = i
			out.PublisherRestrictions = append(out.PublisherRestrictions, tcf.PublisherRestriction{PurposeID: e.PurposeID, RestrictionType: int(e.RestrictionType)})
		}
		r := &out.PublisherRestrictions[i]
		r.VendorIDs = append(r.VendorIDs, ids...)
		slices.Sort(r.VendorIDs)
		r.VendorIDs = slices.Compact(r.VendorIDs)
	}
	return out, nil
}

func set(m map[int]bool) []int {
	var out []int
	for id, on := range m {
		if on {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// maxVendorRange bounds a range entry: vendor IDs are 16 bits.
const maxVendorRange = 1 << 16

func vendors(isRange bool, bits map[int]bool, ranges []*iabconsent.RangeEntry) ([]int, error) {
	if !isRange {
		return set(bits), nil
	}
	// Ranges are merged before they are expanded, so that overlapping ones (a hostile string
	// can hold thousands of ranges of 65,535 IDs each) cost no more than the IDs they name.
	spans := make([][2]int, 0, len(ranges))
	for _, r := range ranges {
		if r.StartVendorID < 1 || r.EndVendorID < r.StartVendorID || r.EndVendorID >= maxVendorRange {
			return nil, core.Errorf(core.CodeInvalid, "tcString: a vendor range runs from %d to %d", r.StartVendorID, r.EndVendorID)
		}
		spans = append(spans, [2]int{r.StartVendorID, r.EndVendorID})
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var out []int
	next := 0 // the lowest ID not yet listed
	for _, sp := range spans {
		for id := max(sp[0], next); id <= sp[1]; id++ {
			out = append(out, id)
		}
		next = max(next, sp[1]+1)
	}
	return out, nil
}
