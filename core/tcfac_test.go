package core_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/scan"
	tcfpkg "github.com/consentd/consentd/core/tcf"
)

// fixtureAC reads the recorded copy of Google's Additional Consent provider list
// (testdata/tcf/additional-consent-providers.csv, 27 providers; SOURCE.md there).
func fixtureAC(t testing.TB) *tcfpkg.ACProviderList {
	t.Helper()
	data, err := os.ReadFile("../testdata/tcf/additional-consent-providers.csv")
	if err != nil {
		t.Fatal(err)
	}
	l, err := tcfpkg.ParseACProviders(data)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestParseACProviders: Google's CSV reads whole with names and policies; a file of another
// form is refused saying why.
func TestParseACProviders(t *testing.T) {
	l := fixtureAC(t)
	if len(l.Providers) != 27 || l.Providers[89] != (tcfpkg.ACProvider{ID: 89, Name: "Facebook", PolicyURL: "https://www.facebook.com/about/privacy/update"}) ||
		l.Providers[2822].Name != "Adjust GmbH" || !l.Has(39) || l.Has(2) {
		t.Fatalf("providers: %d, 89 = %+v, 2822 = %+v", len(l.Providers), l.Providers[89], l.Providers[2822])
	}
	for in, want := range map[string]string{
		"id,name\n1,x\n": "not a CSV of provider id",
		"\"Provider ID\",\"Provider Name\",\"Policy URL\",\"Domains\"\n":                  "has no providers",
		"provider_id,provider_name,policy_url,domains\nx,A,https://a.example,a.example\n": "line 2: \"x\" is not a provider ID",
		"provider_id,provider_name,policy_url,domains\n1,A,,\n1,B,,\n":                    "line 3: provider 1 is listed twice",
		"provider_id,provider_name,policy_url,domains\n1, ,,\n":                           "provider 1 has no name",
		"provider_id,name,policy_url,domains\n1,A,,\n":                                    "column 2 is \"name\"",
	} {
		if _, err := tcfpkg.ParseACProviders([]byte(in)); core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseACProviders(%q) = %v, want %q", in, err, want)
		}
	}
	// A policy that is not an http(s) URL is not kept: it would be a link in the publisher's page.
	if l, err := tcfpkg.ParseACProviders([]byte("provider_id,provider_name,policy_url,domains\n1,A,javascript:alert(1),a.example\n2,B,https://b.example/p,b.example\n")); err != nil ||
		l.Providers[1].PolicyURL != "" || l.Providers[1].Name != "A" || l.Providers[2].PolicyURL != "https://b.example/p" {
		t.Errorf("policy URLs: %v, %+v", err, l)
	}
	// Google's other header spelling and a byte-order mark read the same.
	if l, err := tcfpkg.ParseACProviders([]byte("\ufeffProvider ID,Provider Name,Policy URL,Domains\n7,Seven,https://7.example,7.example\n")); err != nil || l.Providers[7].Name != "Seven" {
		t.Errorf("header \"Provider ID\": %v", err)
	}
}

// TestTCFGoogleProviders: with Google's list loaded, a provider not on it is a 400 naming the
// field, the layers' configuration names the site's providers with their policies, and one
// Google removes later is flagged by consent.tcf-atp-removed; without a list, IDs are checked
// for their form only and shown by ID.
func TestTCFGoogleProviders(t *testing.T) {
	lists := &gvlLists{gvl: fixtureGVL(t), ac: fixtureAC(t)}
	m := newTCFCore(t, lists, tcfpkg.TCFDeployment{CMPID: 300, CMPVersion: 2})
	org, s := mustSite(t, m)
	patch := func(atps ...int) error {
		_, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{TCF: &tcfpkg.TCFSettings{Enabled: true, VendorIDs: []int{755}, GoogleATPIDs: atps}})
		return err
	}
	if err := patch(89, 9999); core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), "tcf.googleAtpIds[1]: unknown provider 9999 (not in Google's Additional Consent provider list") {
		t.Fatalf("a provider not on Google's list: %v", err)
	}
	if err := patch(89, 2822); err != nil {
		t.Fatal(err)
	}
	cfg, err := m.PublicBanner.TCFConfig(ctx, s.ProjectKey, "en")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.GoogleATPs) != 2 || cfg.GoogleATPs[89].Name != "Facebook" || cfg.GoogleATPs[2822].PolicyURL != "https://www.adjust.com/terms/gdpr/" {
		t.Fatalf("Google providers in the configuration: %+v", cfg.GoogleATPs)
	}
	// rules is how many rules of consent.tcf-atp-removed's family the report counts as checked.
	rules := func() int {
		rep, err := m.Compliance.Report(ctx, org, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Summary {
			if f.Family == scan.ComplianceRules["consent.tcf-atp-removed"].Family {
				return f.Rules
			}
		}
		return 0
	}
	findings := func() []string {
		rep, err := m.Compliance.Report(ctx, org, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range rep.Findings {
			if f.RuleID == "consent.tcf-atp-removed" {
				if f.Severity != scan.SeverityError || f.Evidence.Field == nil || *f.Evidence.Field != "tcf.googleAtpIds[1]" {
					t.Errorf("finding %+v", f)
				}
				out = append(out, f.Detail)
			}
		}
		return out
	}
	if f := findings(); len(f) != 0 {
		t.Fatalf("providers still on the list flagged: %q", f)
	}
	// Google's next list drops provider 2822.
	next := &tcfpkg.ACProviderList{Providers: map[int]tcfpkg.ACProvider{}}
	for id, p := range lists.ac.Providers {
		if id != 2822 {
			next.Providers[id] = p
		}
	}
	lists.ac = next
	if f := findings(); len(f) != 1 || !strings.Contains(f[0], "Provider 2822 of tcf.googleAtpIds is no longer on Google's Additional Consent provider list") {
		t.Fatalf("removed provider: %q", f)
	}

	// Without a list (offline, no file beside the GVL): form only, not judged, and not counted
	// as a rule checked and passed.
	withList := rules()
	lists.ac = nil
	if err := patch(89, 9999); err != nil {
		t.Fatalf("without Google's list: %v", err)
	}
	if err := patch(89, 0); core.ErrorCode(err) != core.CodeInvalid || !strings.Contains(err.Error(), "tcf.googleAtpIds[1]") {
		t.Fatalf("provider 0 without Google's list: %v", err)
	}
	if f := findings(); len(f) != 0 {
		t.Fatalf("judged without a list: %q", f)
	}
	if got := rules(); got != withList-1 {
		t.Fatalf("rules checked without Google's list: %d, want %d (one fewer than with it)", got, withList-1)
	}
}

// TestTCFConfigStacks: with tcf.useStacks the configuration names the stacks the first layer
// shows for the site's purposes and special features (ChooseStacks); without, none.
func TestTCFConfigStacks(t *testing.T) {
	m := newTCFCore(t, &gvlLists{gvl: fixtureGVL(t)}, tcfpkg.TCFDeployment{CMPID: 300, CMPVersion: 2})
	org, s := mustSite(t, m)
	for _, use := range []bool{false, true} {
		// Vendors 755, 1, 2, 6 and 8 disclose purposes 1 to 4 and 7 to 10: stack 40 is 2, 3, 4,
		// 7, 8, 9, 10; special feature 1 alone is no stack (stack 1 needs both).
		if _, err := m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{TCF: &tcfpkg.TCFSettings{Enabled: true, VendorIDs: []int{755, 1, 2, 6, 8},
			SpecialFeatures: []int{1}, UseStacks: use}}); err != nil {
			t.Fatal(err)
		}
		cfg, err := m.PublicBanner.TCFConfig(ctx, s.ProjectKey, "en")
		if err != nil {
			t.Fatal(err)
		}
		want := []int{}
		if use {
			want = []int{40}
		}
		if !slices.Equal(cfg.FirstLayerStacks, want) {
			t.Errorf("useStacks %v: first layer stacks %v, want %v", use, cfg.FirstLayerStacks, want)
		}
	}
}
