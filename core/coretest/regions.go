package coretest

import (
	"reflect"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/usecases"
)

// testBannerRegionRules: a banner's regional rules come back as stored, in order, with every
// field; a new banner has none (an empty list, not null), and an empty list clears them.
func testBannerRegionRules(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	b, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if b.RegionRules == nil || len(b.RegionRules) != 0 {
		t.Fatalf("a new banner's regionRules = %#v, want an empty list", b.RegionRules)
	}
	rules := []banner.RegionRule{
		{Regions: []string{"EU", "EEA", "GB", "CH"}, DefaultBehavior: banner.BehaviorOptIn, HonorGPC: true, RejectOnFirstLayer: true},
		{Regions: []string{"US-CA", "US-CO"}, DefaultBehavior: banner.BehaviorOptOut, HonorGPC: true, DoNotSellLink: true},
		{Regions: []string{"*"}, DefaultBehavior: banner.BehaviorNoBanner},
	}
	b.RegionRules = rules
	must(t, s.UpdateBanner(ctx, b))
	got, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if !reflect.DeepEqual(got.RegionRules, rules) {
		t.Fatalf("regionRules round trip:\n got %+v\nwant %+v", got.RegionRules, rules)
	}
	got.RegionRules[0].Regions[0] = "FR" // a copy: the store's value must not change
	again, err := s.Banner(ctx, f.site.ID)
	must(t, err)
	if again.RegionRules[0].Regions[0] != "EU" {
		t.Fatal("the returned banner shares its regionRules with the store")
	}
	again.RegionRules = []banner.RegionRule{}
	must(t, s.UpdateBanner(ctx, again))
	got, err = s.Banner(ctx, f.site.ID)
	must(t, err)
	if got.RegionRules == nil || len(got.RegionRules) != 0 {
		t.Fatalf("cleared regionRules = %#v, want an empty list", got.RegionRules)
	}
}

// testConsentRegion: a record's region and regional rule are stored and listed as written,
// and a record without them lists them empty.
func testConsentRegion(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	r := consentAt(f.site.ID, at, "v-region")
	r.IPCountry, r.Region, r.RegionRule, r.Jurisdiction = "US", "US-CO", "regionRules[1]", core.JurisdictionCCPA
	plain := consentAt(f.site.ID, at.Add(time.Second), "v-plain")
	must(t, s.CreateConsentRecord(ctx, r))
	must(t, s.CreateConsentRecord(ctx, plain))
	page, _, err := s.ConsentRecords(ctx, consent.ConsentQuery{SiteID: f.site.ID, Page: 1, Limit: 10})
	must(t, err)
	byID := map[string]*consent.ConsentRecord{}
	for _, g := range page {
		byID[g.ID] = g
	}
	if g := byID[r.ID]; g == nil || g.Region != "US-CO" || g.RegionRule != "regionRules[1]" || g.IPCountry != "US" {
		t.Fatalf("record with a region round trip: %+v", g)
	}
	if g := byID[plain.ID]; g == nil || g.Region != "" || g.RegionRule != "" {
		t.Fatalf("record without a region round trip: %+v", g)
	}
}
