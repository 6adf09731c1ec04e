package scan

import (
	"strconv"
	"time"

	"github.com/consentd/consentd/core/tcf"
)

// TCFComplianceInput is what the TCF rules read besides the banner: the deployment's CMP ID, the
// GVL in use and Google's Additional Consent provider list in use (each nil when none is
// loaded).
type TCFComplianceInput struct {
	CMPID int
	GVL   *tcf.GVL
	AC    *tcf.ACProviderList
}

// tcfRules are the rules of a site with TCF on (docs/tcf.md): consent.tcf-cmp-id,
// consent.tcf-gvl-age, consent.tcf-vendor-deleted and consent.tcf-atp-removed. They pass on a site with TCF off, and
// when the input carries no TCF deployment (`consentd verify`, which sees only what the
// runtime is served).
func (e *evaluation) tcfRules(in *ComplianceInput) {
	e.check("consent.tcf-cmp-id", "consent.tcf-gvl-age", "consent.tcf-vendor-deleted", "consent.tcf-no-vendor")
	b := in.Banner
	field := func(name, value string) Evidence { return Evidence{Field: strp(name), Value: strp(value)} }
	// consent.tcf-no-vendor: TCF on with neither a vendor nor an Additional Consent provider
	// (saved before PatchBanner refused it): the layer names 0 partners and no purpose.
	if b.TCF.Enabled && len(b.TCF.VendorIDs) == 0 && len(b.TCF.GoogleATPIDs) == 0 {
		e.add("consent.tcf-no-vendor", "", map[string]string{}, field("tcf.vendorIds", "[]"))
	}
	if !b.TCF.Enabled || in.TCF == nil {
		e.check("consent.tcf-atp-removed")
		return
	}

	// consent.tcf-cmp-id: the TC strings carry the deployment's CMP ID; without one the
	// runtime cannot make a valid string (and TCF could not have been turned on: the setting
	// was removed since).
	if in.TCF.CMPID == 0 {
		e.add("consent.tcf-cmp-id", "", map[string]string{}, field("tcf.enabled", "true"))
	}

	// consent.tcf-gvl-age: a CMP uses the latest GVL; the IAB publishes one a week and
	// consentd refreshes it (TCF.RefreshGVL), so a list older than MaxGVLAge means the
	// refresh is failing or a file is stale.
	g := in.TCF.GVL
	switch {
	case g == nil:
		e.add("consent.tcf-gvl-age", "", map[string]string{"found": "no Global Vendor List is loaded"}, field("tcf.enabled", "true"))
	case e.now.Sub(g.LastUpdated) > tcf.MaxGVLAge:
		days := strconv.Itoa(int(e.now.Sub(g.LastUpdated) / (24 * time.Hour)))
		e.add("consent.tcf-gvl-age", "", map[string]string{"found": "the Global Vendor List in use is version " + strconv.Itoa(g.VendorListVersion) +
			" of " + g.LastUpdated.UTC().Format(time.DateOnly) + ", " + days + " days old"}, field("gvl.vendorListVersion", strconv.Itoa(g.VendorListVersion)))
	}

	// consent.tcf-atp-removed: every Google Additional Consent provider the site picked is
	// still on Google's list in use. Without a list it is not judged (left unchecked, so the
	// report does not count it as passed) unless the site picked no provider.
	if ac := in.TCF.AC; ac != nil || len(b.TCF.GoogleATPIDs) == 0 {
		e.check("consent.tcf-atp-removed")
		for i, id := range b.TCF.GoogleATPIDs {
			if !ac.Has(id) {
				e.add("consent.tcf-atp-removed", "", map[string]string{"provider": strconv.Itoa(id)},
					field("tcf.googleAtpIds["+strconv.Itoa(i)+"]", strconv.Itoa(id)))
			}
		}
	}

	// consent.tcf-vendor-deleted: every vendor the site selected is still in the GVL in use;
	// a deleted one stays listed with a deletedDate for a while, then disappears.
	if g == nil {
		return
	}
	for i, id := range b.TCF.VendorIDs {
		ev := field("tcf.vendorIds["+strconv.Itoa(i)+"]", strconv.Itoa(id))
		v, ok := g.Vendors[id]
		switch {
		case !ok:
			e.add("consent.tcf-vendor-deleted", "", map[string]string{"vendor": strconv.Itoa(id),
				"found": "is no longer in the Global Vendor List version " + strconv.Itoa(g.VendorListVersion)}, ev)
		case v.DeletedDate != nil:
			e.add("consent.tcf-vendor-deleted", "", map[string]string{"vendor": strconv.Itoa(id) + " (" + v.Name + ")",
				"found": "was deleted from the Global Vendor List on " + v.DeletedDate.UTC().Format(time.DateOnly)}, ev)
		}
	}
}
