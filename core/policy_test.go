package core_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/library"
)

func policyCats(slugs ...string) []*banner.Category {
	var out []*banner.Category
	for i, s := range slugs {
		out = append(out, &banner.Category{Slug: s, IsRequired: s == library.CategoryEssential, SortOrder: i})
	}
	return out
}

// TestDecidePolicy: the table of what the runtime does, by banner settings and jurisdiction.
func TestDecidePolicy(t *testing.T) {
	t.Parallel()
	std := policyCats(library.CategoryEssential, library.CategoryStatistics, library.CategoryMarketing)
	type want struct {
		initial    map[string]bool
		ask        bool
		gpcOff     []string // nil: GPC changes nothing
		dnsWithout []string
		unheld     bool
		storefront map[string][]string
	}
	cases := []struct {
		name string
		b    banner.Banner
		cats []*banner.Category
		jur  string
		want want
	}{
		{"opt_in gdpr", banner.Banner{DefaultBehavior: banner.BehaviorOptIn}, std, core.JurisdictionGDPR,
			want{initial: map[string]bool{"essential": true, "statistics": false, "marketing": false}, ask: true, dnsWithout: []string{}}},
		{"opt_out none", banner.Banner{DefaultBehavior: banner.BehaviorOptOut}, std, core.JurisdictionNone,
			want{initial: map[string]bool{"essential": true, "statistics": true, "marketing": true}, ask: true, dnsWithout: []string{}}},
		{"no_banner gdpr", banner.Banner{DefaultBehavior: banner.BehaviorNoBanner}, std, core.JurisdictionGDPR,
			want{initial: map[string]bool{"essential": true, "statistics": true, "marketing": true}, ask: false, dnsWithout: []string{}}},
		{"opt_in ccpa", banner.Banner{DefaultBehavior: banner.BehaviorOptIn}, std, core.JurisdictionCCPA,
			want{initial: map[string]bool{"essential": true, "statistics": false, "marketing": false}, ask: true,
				gpcOff: []string{"marketing"}, dnsWithout: []string{"marketing"}}},
		{"ccpa without marketing", banner.Banner{DefaultBehavior: banner.BehaviorOptOut}, policyCats("essential", "statistics"), core.JurisdictionCCPA,
			want{initial: map[string]bool{"essential": true, "statistics": true}, ask: true, gpcOff: []string{}, dnsWithout: []string{"marketing"}}},
		{"ccpa with marketing required", banner.Banner{DefaultBehavior: banner.BehaviorOptIn},
			[]*banner.Category{{Slug: "marketing", IsRequired: true}}, core.JurisdictionCCPA,
			want{initial: map[string]bool{"marketing": true}, ask: true, gpcOff: []string{}, dnsWithout: []string{"marketing"}}},
		{"gcmExcludeVendor", banner.Banner{DefaultBehavior: banner.BehaviorOptIn, GCMExcludeVendor: true}, std, core.JurisdictionGDPR,
			want{initial: map[string]bool{"essential": true, "statistics": false, "marketing": false}, ask: true, dnsWithout: []string{}, unheld: true}},
		{"storefront with functional", banner.Banner{DefaultBehavior: banner.BehaviorOptIn, StorefrontIntegration: true},
			policyCats("essential", "functional", "statistics", "marketing"), core.JurisdictionNone,
			want{initial: map[string]bool{"essential": true, "functional": false, "statistics": false, "marketing": false}, ask: true, dnsWithout: []string{},
				storefront: map[string][]string{"analytics": {"statistics"}, "marketing": {"marketing"}, "preferences": {"functional"}, "sale_of_data": {"marketing"}}}},
		{"storefront without preferences", banner.Banner{DefaultBehavior: banner.BehaviorOptIn, StorefrontIntegration: true}, std, core.JurisdictionNone,
			want{initial: map[string]bool{"essential": true, "statistics": false, "marketing": false}, ask: true, dnsWithout: []string{},
				storefront: map[string][]string{"analytics": {"statistics"}, "marketing": {"marketing"}, "preferences": {}, "sale_of_data": {"marketing"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := banner.DecidePolicy(&c.b, c.cats, banner.VisitorRule{Jurisdiction: c.jur})
			initial := map[string]bool{}
			for slug, cp := range p.Categories {
				initial[slug] = cp.Initial
				if cp.Required && !cp.Initial {
					t.Errorf("%s: required but initially off", slug)
				}
			}
			if !reflect.DeepEqual(initial, c.want.initial) {
				t.Errorf("initial states %v, want %v", initial, c.want.initial)
			}
			if p.Ask != c.want.ask {
				t.Errorf("ask %t, want %t", p.Ask, c.want.ask)
			}
			switch {
			case c.want.gpcOff == nil && (p.GPC.Honored || p.GPC.DoNotSell || len(p.GPC.Off) > 0):
				t.Errorf("GPC %+v, want nothing", p.GPC)
			case c.want.gpcOff != nil && (!p.GPC.Honored || !slices.Equal(p.GPC.Off, c.want.gpcOff) || !p.GPC.DoNotSell):
				t.Errorf("GPC %+v, want honored, off %v and doNotSell", p.GPC, c.want.gpcOff)
			}
			if !slices.Equal(p.DoNotSellWithout, c.want.dnsWithout) {
				t.Errorf("doNotSellWithout %v, want %v", p.DoNotSellWithout, c.want.dnsWithout)
			}
			if got := len(p.UnheldHosts) > 0; got != c.want.unheld || (got && !slices.Equal(p.UnheldHosts, library.GoogleTagHosts())) {
				t.Errorf("unheld hosts %v", p.UnheldHosts)
			}
			if c.want.storefront == nil {
				c.want.storefront = map[string][]string{}
			}
			if !reflect.DeepEqual(map[string][]string(p.Storefront), c.want.storefront) {
				t.Errorf("storefront %v, want %v", p.Storefront, c.want.storefront)
			}
			if !reflect.DeepEqual(p.Vendors, banner.VendorConsents()) {
				t.Errorf("vendors %+v", p.Vendors)
			}
			// The JSON has no nulls.
			b, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			for k, v := range m {
				if v == nil {
					t.Errorf("%s is null in %s", k, b)
				}
			}
		})
	}
}

// TestPolicyApply: a decision as the policy makes it, with and without a GPC signal.
func TestPolicyApply(t *testing.T) {
	t.Parallel()
	std := policyCats("essential", "statistics", "marketing")
	b := &banner.Banner{DefaultBehavior: banner.BehaviorOptIn}
	ccpa := banner.DecidePolicy(b, std, banner.VisitorRule{Jurisdiction: core.JurisdictionCCPA})
	gdpr := banner.DecidePolicy(b, std, banner.VisitorRule{Jurisdiction: core.JurisdictionGDPR})
	all := map[string]bool{"essential": false, "statistics": true, "marketing": true}
	cases := []struct {
		name      string
		p         *banner.Policy
		chosen    map[string]bool
		gpc       bool
		want      map[string]bool
		doNotSell bool
	}{
		{"gdpr all", gdpr, all, false, map[string]bool{"essential": true, "statistics": true, "marketing": true}, false},
		{"gdpr gpc changes nothing", gdpr, all, true, map[string]bool{"essential": true, "statistics": true, "marketing": true}, false},
		{"gdpr nothing", gdpr, nil, false, map[string]bool{"essential": true, "statistics": false, "marketing": false}, false},
		{"ccpa all", ccpa, all, false, map[string]bool{"essential": true, "statistics": true, "marketing": true}, false},
		{"ccpa gpc", ccpa, all, true, map[string]bool{"essential": true, "statistics": true, "marketing": false}, true},
		{"ccpa refused marketing", ccpa, map[string]bool{"statistics": true}, false, map[string]bool{"essential": true, "statistics": true, "marketing": false}, true},
	}
	for _, c := range cases {
		got := c.p.Apply(c.chosen, c.gpc)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if dns := c.p.DoNotSell(got, c.gpc); dns != c.doNotSell {
			t.Errorf("%s: doNotSell %t, want %t", c.name, dns, c.doNotSell)
		}
	}
	grants := gdpr.Vendors[0].Signals.Grants(map[string]bool{"statistics": true})
	want := map[string]bool{"ad_storage": false, "ad_user_data": false, "ad_personalization": false, "analytics_storage": true,
		"functionality_storage": true, "security_storage": true}
	if !reflect.DeepEqual(grants, want) {
		t.Errorf("consent mode grants %v, want %v", grants, want)
	}
	ps := banner.DecidePolicies(b, std)
	if !ps.GPCMayTurnOff("marketing") || ps.GPCMayTurnOff("statistics") {
		t.Error("GPCMayTurnOff: only marketing")
	}
	if ps.For(banner.VisitorRule{Jurisdiction: "mars"}) != ps[core.JurisdictionNone] {
		t.Error("an unknown jurisdiction gets the policy of none")
	}
}

// TestPublicConfigWithBanner: a draft banner gets the policy it decides; the configuration it
// was copied from keeps its own.
func TestPublicConfigWithBanner(t *testing.T) {
	t.Parallel()
	cats := policyCats("essential", "statistics", "marketing")
	stored := &banner.Banner{DefaultBehavior: banner.BehaviorOptIn}
	cfg := &banner.PublicConfig{Jurisdiction: core.JurisdictionCCPA, Banner: stored,
		Policy: banner.DecidePolicy(stored, cats, banner.VisitorRule{Jurisdiction: core.JurisdictionCCPA})}
	for _, c := range cats {
		cfg.Categories = append(cfg.Categories, banner.PublicCategory{Category: c})
	}
	draft := cfg.WithBanner(&banner.Banner{DefaultBehavior: banner.BehaviorNoBanner})
	if draft.Policy.Ask || !draft.Policy.Categories["marketing"].Initial || !draft.Policy.GPC.Honored {
		t.Errorf("draft policy %+v", draft.Policy)
	}
	if !cfg.Policy.Ask || cfg.Policy.Categories["marketing"].Initial || cfg.Banner != stored {
		t.Errorf("the original configuration changed: %+v", cfg.Policy)
	}
}

// TestVendorConsents: the vendors' signals and calls as their documentation writes them, each
// signal needing the categories of what it stores.
func TestVendorConsents(t *testing.T) {
	t.Parallel()
	type call struct {
		call, kind, queue string
		def, upd          []string
		grants            map[string]bool // with statistics allowed, marketing refused
		set               map[string]bool
	}
	want := map[string]call{
		banner.VendorGoogleConsentMode: {"gtag", "function", "dataLayer", []string{"consent", "default"}, []string{"consent", "update"},
			map[string]bool{"ad_storage": false, "ad_user_data": false, "ad_personalization": false, "analytics_storage": true,
				"functionality_storage": true, "security_storage": true}, map[string]bool{"ads_data_redaction": false}},
		banner.VendorMicrosoftUET: {"uetq", "queue", "", []string{"consent", "default"}, []string{"consent", "update"},
			map[string]bool{"ad_storage": false}, map[string]bool{}},
		banner.VendorMicrosoftClarity: {"clarity", "function", "", []string{"consentv2"}, []string{"consentv2"},
			map[string]bool{"ad_Storage": false, "analytics_Storage": true}, map[string]bool{}},
	}
	vs := banner.VendorConsents()
	if len(vs) != len(want) {
		t.Fatalf("%d vendors, want %d", len(vs), len(want))
	}
	al := map[string]bool{"essential": true, "statistics": true}
	for _, v := range vs {
		w, ok := want[v.Vendor]
		if !ok {
			t.Errorf("unexpected vendor %q", v.Vendor)
			continue
		}
		got := call{v.Call, v.Kind, v.Queue, v.Default, v.Update, v.Signals.Grants(al), v.Set.Grants(al)}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s: %+v, want %+v", v.Vendor, got, w)
		}
		if v.Signals == nil {
			t.Errorf("%s: no signals", v.Vendor)
		}
	}
}
