package bannerjs

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"reflect"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/coretest"
	"github.com/consentd/consentd/library"
)

// policyCase is one row of the policy module's table: a policy the server decided, a decision
// (chosen categories) and whether the visitor sends a GPC signal.
type policyCase struct {
	Name   string          `json:"name"`
	Policy *banner.Policy  `json:"policy"`
	Chosen map[string]bool `json:"chosen"`
	GPC    bool            `json:"gpc"`
}

// policyResult is what the runtime does for a row: every function of policy.js.
type policyResult struct {
	Initial    map[string]bool              `json:"initial"`
	Fixed      map[string]bool              `json:"fixed"`
	Effective  map[string]bool              `json:"effective"`
	DoNotSell  bool                         `json:"doNotSell"`
	Vendors    map[string]map[string]string `json:"vendors"` // vendor -> signal -> granted|denied
	Set        map[string]map[string]bool   `json:"set"`     // vendor -> setting -> value
	Storefront map[string]bool              `json:"storefront"`
}

// policyHarness runs policy.js's functions on the rows read from stdin.
const policyHarness = `
import { readFileSync } from 'node:fs';
import { effective, states, granted, initial, fixed, dontSell } from './policy.js';
var rows = JSON.parse(readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(rows.map(function (r) {
  var P = r.policy, al = effective(P, r.chosen, r.gpc), vs = {}, set = {};
  P.vendors.forEach(function (v) {
    vs[v.vendor] = states(v.signals, al);
    var s = set[v.vendor] = granted(v.set, al);
    for (var k in s) s[k] = !s[k];
  });
  return { initial: initial(P), fixed: fixed(P, r.gpc), effective: al, doNotSell: !!dontSell(P, al, r.gpc),
    vendors: vs, set: set, storefront: granted(P.storefront, al) };
})));
`

// runPolicyModule runs the runtime's policy module in node on rows. Without node the test is
// skipped, loudly, except under CI=true, where it fails.
func runPolicyModule(t *testing.T, rows []policyCase) []policyResult {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		coretest.Missing(t, "node is not installed, so the runtime's policy module (policy.js) is not tested (install Node.js 18+)")
	}
	in, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--input-type=module", "-e", policyHarness)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var res []policyResult
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(rows) {
		t.Fatalf("node answered %d results for %d rows (%v): %.300s", len(res), len(rows), err, out)
	}
	return res
}

// TestPolicyModuleTable: the runtime's policy module on a table with the expected values
// written out.
func TestPolicyModuleTable(t *testing.T) {
	t.Parallel()
	std := []*banner.Category{{Slug: library.CategoryEssential, IsRequired: true}, {Slug: library.CategoryStatistics, SortOrder: 1},
		{Slug: library.CategoryMarketing, SortOrder: 2}}
	optIn, optOut := &banner.Banner{DefaultBehavior: banner.BehaviorOptIn}, &banner.Banner{DefaultBehavior: banner.BehaviorOptOut, StorefrontIntegration: true}
	ccpa, gdpr := banner.VisitorRule{Jurisdiction: core.JurisdictionCCPA}, banner.VisitorRule{Jurisdiction: core.JurisdictionGDPR}
	all := map[string]bool{"essential": true, "statistics": true, "marketing": true}
	rows := []policyCase{
		{"gdpr opt_in, nothing chosen", banner.DecidePolicy(optIn, std, gdpr), map[string]bool{}, false},
		{"ccpa, all chosen, GPC", banner.DecidePolicy(optIn, std, ccpa), all, true},
		{"ccpa opt_out storefront, statistics refused", banner.DecidePolicy(optOut, std, ccpa), map[string]bool{"marketing": true}, false},
	}
	want := []policyResult{
		{Initial: map[string]bool{"essential": true, "statistics": false, "marketing": false}, Fixed: map[string]bool{"essential": true},
			Effective: map[string]bool{"essential": true, "statistics": false, "marketing": false}, DoNotSell: false,
			Vendors: vendorStates("denied", "denied"), Set: redacted(true), Storefront: map[string]bool{}},
		{Initial: map[string]bool{"essential": true, "statistics": false, "marketing": false}, Fixed: map[string]bool{"essential": true, "marketing": false},
			Effective: map[string]bool{"essential": true, "statistics": true, "marketing": false}, DoNotSell: true,
			Vendors: vendorStates("denied", "granted"), Set: redacted(true), Storefront: map[string]bool{}},
		{Initial: map[string]bool{"essential": true, "statistics": true, "marketing": true}, Fixed: map[string]bool{"essential": true},
			Effective: map[string]bool{"essential": true, "statistics": false, "marketing": true}, DoNotSell: false,
			Vendors: vendorStates("granted", "denied"), Set: redacted(false),
			Storefront: map[string]bool{"analytics": false, "marketing": true, "preferences": true, "sale_of_data": true}},
	}
	got := runPolicyModule(t, rows)
	for i, r := range rows {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s:\n got %+v\nwant %+v", r.Name, got[i], want[i])
		}
	}
}

// vendorStates is what every vendor is told when ads (marketing) and analytics (statistics)
// are as given, written out from the vendors' documentation.
func vendorStates(ads, analytics string) map[string]map[string]string {
	return map[string]map[string]string{
		"google_consent_mode": {"ad_storage": ads, "ad_user_data": ads, "ad_personalization": ads,
			"analytics_storage": analytics, "functionality_storage": "granted", "security_storage": "granted"},
		"microsoft_uet":     {"ad_storage": ads},
		"microsoft_clarity": {"ad_Storage": ads, "analytics_Storage": analytics},
	}
}

// redacted is the vendors' settings when Google's ads data redaction is on or off.
func redacted(on bool) map[string]map[string]bool {
	return map[string]map[string]bool{"google_consent_mode": {"ads_data_redaction": on}, "microsoft_uet": {}, "microsoft_clarity": {}}
}

// TestPolicyModuleAgreesWithCore: over every banner setting, category set, jurisdiction,
// decision and GPC signal, the runtime's policy module applies a policy exactly as core's
// Policy methods do (RecordConsent's Apply, DoNotSell, the signals' Grants).
func TestPolicyModuleAgreesWithCore(t *testing.T) {
	t.Parallel()
	cat := func(slug string, required bool) *banner.Category {
		return &banner.Category{Slug: slug, IsRequired: required}
	}
	catSets := [][]*banner.Category{
		{cat("essential", true), cat("statistics", false), cat("marketing", false)},
		{cat("essential", true), cat("functional", false), cat("statistics", false), cat("marketing", false)},
		{cat("essential", true), cat("preferences", false), cat("statistics", false)},
		{cat("marketing", true), cat("statistics", false)},
	}
	var rows []policyCase
	for _, behavior := range banner.DefaultBehaviors() {
		for _, flags := range [][2]bool{{false, false}, {true, false}, {false, true}} {
			b := &banner.Banner{DefaultBehavior: behavior, GCMExcludeVendor: flags[0], StorefrontIntegration: flags[1]}
			for _, cats := range catSets {
				for _, j := range core.Jurisdictions() {
					p := banner.DecidePolicy(b, cats, banner.VisitorRule{Jurisdiction: j})
					for _, chosen := range []map[string]bool{{}, {"statistics": true}, {"marketing": true, "functional": true},
						{"essential": false, "statistics": true, "marketing": true, "functional": true, "preferences": true}} {
						for _, gpc := range []bool{false, true} {
							rows = append(rows, policyCase{Name: behavior + "/" + j, Policy: p, Chosen: chosen, GPC: gpc})
						}
					}
				}
			}
		}
	}
	got := runPolicyModule(t, rows)
	for i, r := range rows {
		p := r.Policy
		eff := p.Apply(r.Chosen, r.GPC)
		want := policyResult{Initial: map[string]bool{}, Fixed: p.Fixed(r.GPC), Effective: eff, DoNotSell: p.DoNotSell(eff, r.GPC),
			Vendors: map[string]map[string]string{}, Set: map[string]map[string]bool{}, Storefront: p.Storefront.Grants(eff)}
		for slug, c := range p.Categories {
			want.Initial[slug] = c.Initial
		}
		for _, v := range p.Vendors {
			want.Vendors[v.Vendor], want.Set[v.Vendor] = map[string]string{}, map[string]bool{}
			for sig, ok := range v.Signals.Grants(eff) {
				want.Vendors[v.Vendor][sig] = map[bool]string{true: "granted", false: "denied"}[ok]
			}
			for k, ok := range v.Set.Grants(eff) {
				want.Set[v.Vendor][k] = !ok
			}
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("%s, chosen %v, gpc %t:\n runtime %+v\n    core %+v", r.Name, r.Chosen, r.GPC, got[i], want)
		}
	}
	t.Logf("%d rows agree", len(rows))
}
