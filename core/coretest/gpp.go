package coretest

import (
	"testing"
	"time"

	"github.com/consentd/consentd/core/consent"
	gpppkg "github.com/consentd/consentd/core/gpp"
	"github.com/consentd/consentd/core/usecases"
)

// testBannerGPP: a banner's GPP settings are stored and read back whole; a new banner's are off
// in the MSPA's opt-out mode, both approaches; a banner's reaskAfterRejectDays round-trips
// (unset, then set).
func testBannerGPP(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	b, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if b.GPP != (gpppkg.GPPSettings{MSPAMode: gpppkg.MSPAModeOptOut, Approach: gpppkg.ApproachBoth}) {
		t.Fatalf("a new banner's gpp = %#v, want off, mode opt-out, approach both", b.GPP)
	}
	if b.ReaskAfterRejectDays != nil {
		t.Fatalf("a new banner's reaskAfterRejectDays = %d, want unset", *b.ReaskAfterRejectDays)
	}
	gpp := gpppkg.GPPSettings{Enabled: true, MSPACoveredTransaction: true, MSPAMode: gpppkg.MSPAModeServiceProvider, Approach: gpppkg.ApproachState}
	b.GPP = gpp
	days := 200
	b.ReaskAfterRejectDays = &days
	must(t, s.UpdateBanner(ctx, b))
	got, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if got.GPP != gpp {
		t.Fatalf("gpp round trip: got %+v, want %+v", got.GPP, gpp)
	}
	if got.ReaskAfterRejectDays == nil || *got.ReaskAfterRejectDays != 200 {
		t.Fatalf("reaskAfterRejectDays round trip: got %v, want 200", got.ReaskAfterRejectDays)
	}
}

// testConsentGPP: a record's GPP string is stored, listed and exported as written, its hash
// (consentd-record-v4) still matching; a record without one lists it empty.
func testConsentGPP(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	r := consentAt(f.site.ID, at, "v-gpp")
	r.GPPString = "DBABLA~BVQVAAAAAgA.QA"
	byID, plain := storeBesidePlain(t, s, r)
	if g := byID[r.ID]; g == nil || g.GPPString != r.GPPString || consent.ConsentRecordHash(g) != r.RecordHash {
		t.Fatalf("record with a GPP string round trip: %+v", g)
	}
	if g := byID[plain.ID]; g == nil || g.GPPString != "" {
		t.Fatalf("record without a GPP string round trip: %+v", g)
	}
}

// storeBesidePlain seals r and stores it with a plain record of its site a second later, then
// reads the site's records back by ID through EachConsentRecord (the export's path).
func storeBesidePlain(t *testing.T, s usecases.Store, r *consent.ConsentRecord) (map[string]*consent.ConsentRecord, *consent.ConsentRecord) {
	t.Helper()
	consent.SealConsentRecord(r)
	plain := consentAt(r.SiteID, r.CreatedAt.Add(time.Second), "v-plain")
	must(t, s.CreateConsentRecord(ctx, r))
	must(t, s.CreateConsentRecord(ctx, plain))
	byID := map[string]*consent.ConsentRecord{}
	must(t, s.EachConsentRecord(ctx, consent.ConsentQuery{SiteID: r.SiteID}, func(g *consent.ConsentRecord) error {
		byID[g.ID] = g
		return nil
	}))
	return byID, plain
}
