package coretest

import (
	"testing"

	"github.com/consentd/consentd/core"
)

// testBannerGPP: a banner's GPP settings are stored and read back whole; a new banner's are off
// in the MSPA's opt-out mode.
func testBannerGPP(t *testing.T, s core.Store) {
	f := seed(t, s)
	b, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if b.GPP != (core.GPPSettings{MSPAMode: core.MSPAModeOptOut}) {
		t.Fatalf("a new banner's gpp = %#v, want off, mode opt-out", b.GPP)
	}
	gpp := core.GPPSettings{Enabled: true, MSPACoveredTransaction: true, MSPAMode: core.MSPAModeServiceProvider}
	b.GPP = gpp
	must(t, s.UpdateBanner(ctx, b))
	got, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if got.GPP != gpp {
		t.Fatalf("gpp round trip: got %+v, want %+v", got.GPP, gpp)
	}
}
