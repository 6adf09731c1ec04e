package app

import (
	"encoding/json"
	"testing"
)

// TestRegionRulesOverHTTP is the server side of #26's browser test: with the rules, a
// visitor from France gets the opt-in policy (gdpr), one from Japan no banner (none), one from
// California (region header) the opt-out policy with a Do Not Sell control, and with Sec-GPC: 1
// marketing off and recorded so, with the region and the rule that applied.
func TestRegionRulesOverHTTP(t *testing.T) {
	t.Parallel()
	s := newGeoServer(t, func(c *Config) { c.CountryHeader, c.RegionHeader = "CF-IPCountry", "CF-Region-Code" })
	s.do("PATCH", "/sites/"+s.siteID+"/banner", `{"regionRules":[{"regions":["EU","EEA","GB","CH"],"defaultBehavior":"opt_in"},`+
		`{"regions":["US-CA"],"defaultBehavior":"opt_out"},{"regions":["*"],"defaultBehavior":"no_banner"}]}`)
	type policy struct {
		Ask        bool `json:"ask"`
		Categories map[string]struct {
			Initial bool `json:"initial"`
		} `json:"categories"`
		GPC struct {
			Honored bool     `json:"honored"`
			Off     []string `json:"off"`
		} `json:"gpc"`
		DoNotSellLink bool `json:"doNotSellLink"`
	}
	for _, tc := range []struct {
		name                   string
		header                 []string
		jurisdiction, rule     string
		ask, marketingOn, link bool
	}{
		{"France", []string{"CF-IPCountry", "FR"}, "gdpr", "regionRules[0]", true, false, false},
		{"Japan", []string{"CF-IPCountry", "JP"}, "none", "regionRules[2]", false, true, false},
		{"California", []string{"CF-IPCountry", "US", "CF-Region-Code", "CA"}, "ccpa", "regionRules[1]", true, true, true},
	} {
		_, b := s.do("GET", "/public/"+s.projectKey+"/config", "", tc.header...)
		var cfg struct {
			Jurisdiction, Rule string
			Policy             policy
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.Jurisdiction != tc.jurisdiction || cfg.Rule != tc.rule || cfg.Policy.Ask != tc.ask ||
			cfg.Policy.Categories["marketing"].Initial != tc.marketingOn || cfg.Policy.DoNotSellLink != tc.link {
			t.Errorf("%s: config %+v", tc.name, cfg)
		}
	}
	ca := []string{"CF-IPCountry", "US", "CF-Region-Code", "CA", "Sec-GPC", "1"}
	s.do("POST", "/public/"+s.projectKey+"/consent", `{"visitorId":"gpc-ca","categories":{"statistics":true,"marketing":true},"consentVersion":1,"action":"accept_all"}`, ca...)
	_, b := s.do("GET", "/sites/"+s.siteID+"/consent-records?visitorId=gpc-ca", "")
	var recs struct {
		Records []struct {
			CategoriesConsented  map[string]bool
			DoNotSell, GPCSignal bool
			Region, RegionRule   string
			Jurisdiction         string
		}
	}
	if err := json.Unmarshal(b, &recs); err != nil || len(recs.Records) != 1 {
		t.Fatalf("records %s (%v)", b, err)
	}
	r := recs.Records[0]
	if r.CategoriesConsented["marketing"] || !r.CategoriesConsented["statistics"] || !r.DoNotSell || !r.GPCSignal ||
		r.Region != "US-CA" || r.RegionRule != "regionRules[1]" || r.Jurisdiction != "ccpa" {
		t.Errorf("California with GPC: %+v", r)
	}
}
