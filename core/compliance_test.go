package core_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/library"
)

var reportTime = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

func complianceCatalog(t *testing.T) core.Catalog {
	t.Helper()
	cat, err := library.FromServices([]*library.Service{
		svc("stats", "statistics", false, "stats.example/s.js"),
		svc("ads", "marketing", false, "ads.example/a.js"),
		svc("pay", "essential", false, "pay.example/p.js"),
		svc("google-analytics", "statistics", true, "www.googletagmanager.com/gtag/js?id=G-"),
	})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// cleanInput is a correctly set-up site: opt-in, reject as prominent as accept, readable
// buttons, a privacy policy, the reopen button, six months, every service where it belongs.
func cleanInput() *scan.ComplianceInput {
	ess := &banner.Category{ID: "c-ess", Slug: "essential", IsRequired: true, IsDefault: true}
	st := &banner.Category{ID: "c-st", Slug: "statistics", IsDefault: true}
	mk := &banner.Category{ID: "c-mk", Slug: "marketing", IsDefault: true}
	return &scan.ComplianceInput{
		Banner: &banner.Banner{SiteID: "site-1", DefaultBehavior: "opt_in", CloseButtonBehavior: "dismiss", CookieExpirationDays: 180,
			Colors:           map[string]string{"background": "#ffffff", "text": "#111827", "acceptButton": "#1a56db", "rejectButton": "#1a56db"},
			PrivacyPolicyURL: ptr("https://shop.example/privacy"), ReopenButton: true},
		Categories: []*banner.Category{ess, st, mk},
		Services: []*banner.Service{
			{Slug: "stats", CategoryID: st.ID, Cookies: []*banner.Cookie{{Name: "_stats", Duration: "1 year"}}},
			{Slug: "ads", CategoryID: mk.ID, Cookies: []*banner.Cookie{{Name: "_ads", Duration: "90 days"}}},
			{Slug: "pay", CategoryID: ess.ID, Cookies: []*banner.Cookie{{Name: "_pay", Duration: "session"}}},
			{Slug: "google-analytics", CategoryID: st.ID, Cookies: []*banner.Cookie{{Name: "_ga", Duration: "2 years"}}},
		},
	}
}

// withRule returns the findings of rule.
func withRule(r *scan.ComplianceReport, rule string) []scan.Finding {
	var out []scan.Finding
	for _, f := range r.Findings {
		if f.RuleID == rule {
			out = append(out, f)
		}
	}
	return out
}

func noPlaceholders(t *testing.T, r *scan.ComplianceReport) {
	t.Helper()
	for _, f := range r.Findings {
		if strings.ContainsAny(f.Detail, "{}") || f.Title == "" || f.Source == "" || f.Fix == "" {
			t.Errorf("%s: unfilled finding: %+v", f.RuleID, f)
		}
	}
}

func TestConfigurationRules(t *testing.T) {
	t.Parallel()
	lib := complianceCatalog(t)
	svcIn := func(in *scan.ComplianceInput, slug, catID string) {
		for _, s := range in.Services {
			if s.Slug == slug {
				s.CategoryID = catID
			}
		}
	}
	cases := []struct {
		name     string
		change   func(in *scan.ComplianceInput)
		rule     string
		severity string // "" when the rule must not trip
	}{
		{"no banner with optional services", func(in *scan.ComplianceInput) { in.Banner.DefaultBehavior = "no_banner" }, "banner.reject-first-layer", scan.SeverityError},
		{"no banner, only essential services", func(in *scan.ComplianceInput) {
			in.Banner.DefaultBehavior = "no_banner"
			in.Services = in.Services[2:3]
		}, "banner.reject-first-layer", ""},
		{"close accepts", func(in *scan.ComplianceInput) { in.Banner.CloseButtonBehavior = "accept_all" }, "banner.close-accepts", scan.SeverityError},
		{"close rejects", func(in *scan.ComplianceInput) { in.Banner.CloseButtonBehavior = "reject_all" }, "banner.close-accepts", ""},
		{"mid-grey accept button", func(in *scan.ComplianceInput) { in.Banner.Colors["acceptButton"] = "#808080" }, "banner.button-contrast", scan.SeverityError},
		{"dark accept button", func(in *scan.ComplianceInput) { in.Banner.Colors["acceptButton"] = "#000" }, "banner.button-contrast", ""},
		{"reject white on white", func(in *scan.ComplianceInput) { in.Banner.Colors["rejectButton"] = "#ffffff" }, "banner.reject-prominence", scan.SeverityError},
		{"reject paler than accept", func(in *scan.ComplianceInput) {
			in.Banner.Colors["acceptButton"] = "#000000"
			in.Banner.Colors["rejectButton"] = "#1a56db"
		}, "banner.reject-prominence", scan.SeverityWarning},
		{"reject darker than accept", func(in *scan.ComplianceInput) { in.Banner.Colors["rejectButton"] = "#000000" }, "banner.reject-prominence", ""},
		{"colours from the stylesheet", func(in *scan.ComplianceInput) { in.Banner.Colors = map[string]string{} }, "banner.reject-prominence", ""},
		{"no privacy policy", func(in *scan.ComplianceInput) { in.Banner.PrivacyPolicyURL = nil }, "banner.privacy-policy", scan.SeverityError},
		{"a privacy policy", func(in *scan.ComplianceInput) { in.Banner.PrivacyPolicyURL = ptr("https://shop.example/datenschutz") }, "banner.privacy-policy", ""},
		{"no reopen button", func(in *scan.ComplianceInput) { in.Banner.ReopenButton = false }, "banner.withdraw-lasting", scan.SeverityWarning},
		{"a reopen button", func(in *scan.ComplianceInput) { in.Banner.ReopenButton = true }, "banner.withdraw-lasting", ""},
		{"opt-out", func(in *scan.ComplianceInput) { in.Banner.DefaultBehavior = "opt_out" }, "consent.opt-out-eu", scan.SeverityError},
		{"opt-out without optional categories", func(in *scan.ComplianceInput) {
			in.Banner.DefaultBehavior = "opt_out"
			in.Categories, in.Services = in.Categories[:1], in.Services[2:3]
		}, "consent.opt-out-eu", ""},
		{"opt-out ticks the preferences", func(in *scan.ComplianceInput) { in.Banner.DefaultBehavior = "opt_out" }, "consent.preticked", scan.SeverityError},
		{"isDefault is no tick", func(in *scan.ComplianceInput) { in.Categories[1].IsDefault = true }, "consent.preticked", ""},
		{"two years", func(in *scan.ComplianceInput) { in.Banner.CookieExpirationDays = 730 }, "consent.lifetime-max", scan.SeverityError},
		{"thirteen months", func(in *scan.ComplianceInput) { in.Banner.CookieExpirationDays = 396 }, "consent.lifetime-max", ""},
		{"a year", func(in *scan.ComplianceInput) { in.Banner.CookieExpirationDays = 365 }, "consent.lifetime-long", scan.SeverityNotice},
		{"six months", func(in *scan.ComplianceInput) { in.Banner.CookieExpirationDays = 183 }, "consent.lifetime-long", ""},
		{"cookie without duration", func(in *scan.ComplianceInput) { in.Services[0].Cookies[0].Duration = " " }, "declaration.cookie-duration", scan.SeverityWarning},
		{"cookie with a session duration", func(in *scan.ComplianceInput) { in.Services[0].Cookies[0].Duration = "session" }, "declaration.cookie-duration", ""},
		{"ads in essential", func(in *scan.ComplianceInput) { svcIn(in, "ads", "c-ess") }, "declaration.essential-misclassified", scan.SeverityError},
		{"custom service in essential", func(in *scan.ComplianceInput) {
			in.Services = append(in.Services, &banner.Service{Slug: "own-login", CategoryID: "c-ess"})
		}, "declaration.essential-misclassified", ""},
		{"Google on Consent Mode alone", func(in *scan.ComplianceInput) { in.Banner.GCMExcludeVendor = true }, "consent.gcm-default", scan.SeverityNotice},
		{"gcmExcludeVendor without Google", func(in *scan.ComplianceInput) {
			in.Banner.GCMExcludeVendor = true
			in.Services = in.Services[:3]
		}, "consent.gcm-default", ""},
		{"ads in statistics escape GPC", func(in *scan.ComplianceInput) { svcIn(in, "ads", "c-st") }, "consent.gpc", scan.SeverityWarning},
		{"no marketing category", func(in *scan.ComplianceInput) {
			in.Categories[2].Slug = "advertising"
		}, "consent.gpc", scan.SeverityWarning},
		{"ads in marketing", func(in *scan.ComplianceInput) {}, "consent.gpc", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := cleanInput()
			tc.change(in)
			r := scan.EvaluateCompliance(in, nil, "", lib, reportTime)
			noPlaceholders(t, r)
			got := withRule(r, tc.rule)
			if tc.severity == "" {
				if len(got) != 0 {
					t.Fatalf("%s tripped: %+v", tc.rule, got)
				}
				return
			}
			if len(got) == 0 {
				t.Fatalf("%s did not trip; findings %+v", tc.rule, r.Findings)
			}
			f := got[0]
			if f.Severity != tc.severity || f.Evidence.Field == nil || f.Evidence.ScanID != nil {
				t.Fatalf("%s: severity %s (want %s), evidence %+v", tc.rule, f.Severity, tc.severity, f.Evidence)
			}
			// The configuration alone never makes a site compliant, nor (without a scan's
			// evidence) not compliant.
			if r.Compliant || r.Verdict != scan.VerdictUnverified {
				t.Fatalf("verdict %s (compliant %v) from the configuration alone, with a finding of severity %s", r.Verdict, r.Compliant, f.Severity)
			}
		})
	}
}

func TestCookieDurationGroupedPerService(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	for i := range 3 {
		in.Services[0].Cookies = append(in.Services[0].Cookies, &banner.Cookie{Name: fmt.Sprintf("_s%d", i)})
	}
	r := scan.EvaluateCompliance(in, nil, "", complianceCatalog(t), reportTime)
	got := withRule(r, "declaration.cookie-duration")
	if len(got) != 1 || !strings.Contains(got[0].Detail, "and 2 more like it") || *got[0].Evidence.Field != "services[stats].cookies[_s0].duration" {
		t.Fatalf("one finding per service with the count of the others: %+v", got)
	}
}

// cleanVerification is what a correctly set-up site does in every state.
func cleanVerification() *core.Verification {
	page := "https://shop.example/"
	req := func(url, svc, cat string) core.VerifiedRequest {
		return core.VerifiedRequest{URL: url, Page: page, Service: svc, Category: cat, Type: "Script", ThirdParty: svc != "" && !strings.HasPrefix(url, "https://shop.example/")}
	}
	cookie := func(name, svc, cat string) core.VerifiedStorage {
		return core.VerifiedStorage{Kind: core.StorageCookie, Name: name, Domain: "shop.example", Page: page, Service: svc, Category: cat}
	}
	// The payment provider's script is served from the shop's own domain: no essential service
	// sends the visitor's address to a third party before a choice.
	essential := []core.VerifiedRequest{req("https://shop.example/app.js", "", ""), req("https://shop.example/pay/p.js", "pay", "essential")}
	all := append(append([]core.VerifiedRequest{}, essential...), req("https://stats.example/s.js", "stats", "statistics"),
		req("https://ads.example/a.js", "ads", "marketing"), req("https://www.googletagmanager.com/gtag/js?id=G-1", "google-analytics", "statistics"))
	state := func(name string, reqs []core.VerifiedRequest, cookies ...core.VerifiedStorage) core.VerifiedState {
		return core.VerifiedState{State: name, Pages: []string{page}, Requests: reqs, Cookies: append([]core.VerifiedStorage{cookie("consentd", "", "")}, cookies...)}
	}
	return &core.Verification{Banner: core.BannerConsentd, ConsentModeDefault: true, RejectOnFirstLayer: true, ReopenButton: true, States: []core.VerifiedState{
		state(core.StateNoDecision, essential),
		state(core.StateRejectAll, essential),
		state(core.StateAcceptAll, all, cookie("_stats", "stats", "statistics"), cookie("_ads", "ads", "marketing")),
		state(core.StateWithdrawn, essential),
		state(core.StateCategoryPrefix+"statistics", append(append([]core.VerifiedRequest{}, essential...), all[2], all[4]), cookie("_stats", "stats", "statistics")),
	}}
}

func TestVerificationRules(t *testing.T) {
	t.Parallel()
	lib := complianceCatalog(t)
	stateOf := func(v *core.Verification, name string) *core.VerifiedState {
		for i := range v.States {
			if v.States[i].State == name {
				return &v.States[i]
			}
		}
		t.Fatalf("no state %s", name)
		return nil
	}
	hotjar := core.VerifiedRequest{URL: "https://static.hotjar.com/c/hotjar-1.js", Page: "https://shop.example/", Service: "hotjar", Category: "statistics", ThirdParty: true}
	cases := []struct {
		name     string
		noConfig bool // the report of `consentd verify` on a site without consentd: no configuration
		change   func(v *core.Verification, in *scan.ComplianceInput)
		rule     string
		severity string
		evidence func(ev scan.Evidence) bool
	}{
		{"tracker before a decision", false, func(v *core.Verification, _ *scan.ComplianceInput) {
			st := stateOf(v, core.StateNoDecision)
			again, other := hotjar, hotjar
			again.Page, other.URL = "https://shop.example/b", "https://vars.hotjar.com/box.html"
			st.Requests = append(st.Requests, hotjar, hotjar, again, other)
			st.Cookies = append(st.Cookies, core.VerifiedStorage{Kind: core.StorageCookie, Name: "_hjSessionUser_1", Domain: "shop.example",
				Page: hotjar.Page, Service: "hotjar", Category: "statistics"})
		}, "enforcement.before-decision", scan.SeverityError, func(ev scan.Evidence) bool {
			return *ev.Service == "hotjar" && *ev.Request == hotjar.URL && *ev.State == core.StateNoDecision && *ev.ScanID == "scan-1" &&
				slices.Equal(ev.Requests, []string{hotjar.URL, "https://vars.hotjar.com/box.html"}) &&
				slices.Equal(ev.Cookies, []string{"_hjSessionUser_1 (shop.example)"}) && ev.Omitted == 0
		}},
		{"site's own service in a required category", false, func(v *core.Verification, in *scan.ComplianceInput) {
			in.Services = append(in.Services, &banner.Service{Slug: "hotjar", CategoryID: "c-ess"})
			st := stateOf(v, core.StateNoDecision)
			st.Requests = append(st.Requests, hotjar)
		}, "enforcement.before-decision", "", nil},
		{"site's category wins over the library's", false, func(v *core.Verification, in *scan.ComplianceInput) {
			for _, s := range in.Services {
				if s.Slug == "pay" {
					s.CategoryID = "c-mk"
				}
			}
		}, "enforcement.after-reject", scan.SeverityError, func(ev scan.Evidence) bool { return *ev.Service == "pay" && *ev.Category == "marketing" }},
		{"cookie after reject", false, func(v *core.Verification, _ *scan.ComplianceInput) {
			st := stateOf(v, core.StateRejectAll)
			st.Cookies = append(st.Cookies, core.VerifiedStorage{Kind: core.StorageCookie, Name: "_ads", Domain: "shop.example", Page: "https://shop.example/b", Service: "ads", Category: "marketing"})
		}, "enforcement.after-reject", scan.SeverityError, func(ev scan.Evidence) bool { return *ev.Cookie == "_ads (shop.example)" && ev.Request == nil }},
		{"cookie back after withdrawal", false, func(v *core.Verification, _ *scan.ComplianceInput) {
			st := stateOf(v, core.StateWithdrawn)
			st.Cookies = append(st.Cookies, core.VerifiedStorage{Kind: core.StorageCookie, Name: "_stats", Domain: "shop.example", Page: "https://shop.example/", Service: "stats", Category: "statistics"})
		}, "enforcement.after-withdrawal", scan.SeverityError, func(ev scan.Evidence) bool { return *ev.State == core.StateWithdrawn && *ev.Service == "stats" }},
		{"essential storage after withdrawal", false, func(v *core.Verification, _ *scan.ComplianceInput) {
			st := stateOf(v, core.StateWithdrawn)
			st.Storage = append(st.Storage, core.VerifiedStorage{Kind: core.StorageLocal, Name: "cart", Domain: "shop.example", Page: "https://shop.example/", Service: "pay", Category: "essential"})
		}, "enforcement.after-withdrawal", "", nil},
		{"marketing with only statistics", false, func(v *core.Verification, _ *scan.ComplianceInput) {
			st := stateOf(v, core.StateCategoryPrefix+"statistics")
			st.Requests = append(st.Requests, core.VerifiedRequest{URL: "https://ads.example/a.js", Page: "https://shop.example/", Service: "ads", Category: "marketing", ThirdParty: true})
		}, "enforcement.category-leak", scan.SeverityError, func(ev scan.Evidence) bool { return *ev.Category == "marketing" }},
		{"statistics with only statistics", false, func(v *core.Verification, _ *scan.ComplianceInput) {}, "enforcement.category-leak", "", nil},
		{"held tag fetched", false, func(v *core.Verification, _ *scan.ComplianceInput) {
			st := stateOf(v, core.StateNoDecision)
			st.HeldUnmarked = []core.HeldTag{{URL: hotjar.URL, Page: hotjar.Page, Service: "hotjar", Category: "statistics", Requested: true}}
		}, "enforcement.unmarked-tag-fetched", scan.SeverityError, func(ev scan.Evidence) bool { return *ev.Request == hotjar.URL }},
		{"held tag not fetched", false, func(v *core.Verification, _ *scan.ComplianceInput) {
			st := stateOf(v, core.StateNoDecision)
			st.HeldUnmarked = []core.HeldTag{{URL: hotjar.URL, Page: hotjar.Page, Service: "hotjar", Category: "statistics"}}
		}, "enforcement.unmarked-tag-fetched", "", nil},
		{"unclaimed third party before a decision", false, func(v *core.Verification, _ *scan.ComplianceInput) {
			st := stateOf(v, core.StateNoDecision)
			st.Requests = append(st.Requests, core.VerifiedRequest{URL: "https://cdn.unknown.example/x.js", Page: "https://shop.example/", ThirdParty: true})
		}, "enforcement.unattributed", scan.SeverityNotice, func(ev scan.Evidence) bool { return *ev.Request == "https://cdn.unknown.example/x.js" }},
		{"unclaimed first party", false, func(v *core.Verification, _ *scan.ComplianceInput) {
			st := stateOf(v, core.StateNoDecision)
			st.Cookies = append(st.Cookies, core.VerifiedStorage{Kind: core.StorageCookie, Name: "session", Domain: "shop.example", Page: "https://shop.example/"})
		}, "enforcement.unattributed", "", nil},
		{"another vendor's banner", true, func(v *core.Verification, _ *scan.ComplianceInput) {
			v.Banner, v.States = core.BannerNone, v.States[:1]
			v.States[0].Requests = append(v.States[0].Requests, hotjar)
		}, "enforcement.no-consentd-banner", scan.SeverityNotice, func(ev scan.Evidence) bool { return *ev.State == core.StateNoDecision }},
		{"consentd's banner", false, func(v *core.Verification, _ *scan.ComplianceInput) {}, "enforcement.no-consentd-banner", "", nil},
		{"reject hidden on the first layer", false, func(v *core.Verification, _ *scan.ComplianceInput) { v.RejectOnFirstLayer = false },
			"enforcement.reject-not-shown", scan.SeverityError, func(ev scan.Evidence) bool {
				return *ev.State == core.StateRejectAll && *ev.Page == "https://shop.example/"
			}},
		{"reject clicked on the first layer", false, func(v *core.Verification, _ *scan.ComplianceInput) {}, "enforcement.reject-not-shown", "", nil},
		{"Google tag without Consent Mode default", false, func(v *core.Verification, _ *scan.ComplianceInput) { v.ConsentModeDefault = false },
			"consent.gcm-default", scan.SeverityError, func(ev scan.Evidence) bool { return *ev.Service == "google-analytics" }},
		{"no default and no Google tag", false, func(v *core.Verification, in *scan.ComplianceInput) {
			v.ConsentModeDefault = false
			for i := range v.States {
				var keep []core.VerifiedRequest
				for _, r := range v.States[i].Requests {
					if r.Service != "google-analytics" {
						keep = append(keep, r)
					}
				}
				v.States[i].Requests = keep
			}
		}, "consent.gcm-default", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in, v := cleanInput(), cleanVerification()
			tc.change(v, in)
			if tc.noConfig {
				in = nil
			}
			r := scan.EvaluateCompliance(in, v, "scan-1", lib, reportTime)
			noPlaceholders(t, r)
			got := withRule(r, tc.rule)
			if tc.severity == "" {
				if len(got) != 0 {
					t.Fatalf("%s tripped: %+v", tc.rule, got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("%s: %d findings, want 1 (grouped); all: %+v", tc.rule, len(got), r.Findings)
			}
			if got[0].Severity != tc.severity || got[0].Evidence.ScanID == nil || !tc.evidence(got[0].Evidence) {
				b, _ := json.Marshal(got[0])
				t.Fatalf("%s: %s", tc.rule, b)
			}
			if tc.rule == "enforcement.before-decision" && !strings.HasSuffix(got[0].Detail,
				"; also requested https://vars.hotjar.com/box.html, set cookie _hjSessionUser_1 (shop.example); on 2 pages.") {
				t.Fatalf("grouped detail: %s", got[0].Detail)
			}
		})
	}
}

// A site without consentd's banner is judged on the first visit: its trackers there are
// findings, next to the notice that nothing else was checked.
func TestNoConsentdBannerStillFindsTrackers(t *testing.T) {
	t.Parallel()
	v := &core.Verification{Banner: core.BannerNone, States: []core.VerifiedState{{State: core.StateNoDecision, Pages: []string{"https://a.example/"},
		Requests: []core.VerifiedRequest{{URL: "https://ads.example/a.js", Page: "https://a.example/", Service: "ads", Category: "marketing", ThirdParty: true}}}}}
	r := scan.EvaluateCompliance(nil, v, "scan-9", complianceCatalog(t), reportTime)
	if r.Compliant || len(withRule(r, "enforcement.before-decision")) != 1 || len(withRule(r, "enforcement.no-consentd-banner")) != 1 {
		t.Fatalf("findings %+v", r.Findings)
	}
	if r.Findings[0].Severity != scan.SeverityError || *r.VerificationScanID != "scan-9" {
		t.Fatal("errors first, with the scan")
	}
	for _, s := range r.Summary {
		if s.Family == scan.FamilyBanner && s.Rules != 0 {
			t.Fatal("no configuration, no banner rules checked")
		}
		if s.Family == scan.FamilyEnforcement && (s.Rules != 4 || s.Errors != 1 || s.Notices != 1 || s.Passed != 2) {
			t.Fatalf("enforcement summary %+v", s)
		}
	}
}

func TestCleanSiteIsCompliant(t *testing.T) {
	t.Parallel()
	in, v := cleanRegional(t)
	r := scan.EvaluateCompliance(in, v, "scan-1", complianceCatalog(t), reportTime)
	if !r.Compliant || len(r.Findings) != 0 {
		t.Fatalf("a clean site has findings: %+v", r.Findings)
	}
	if r.SiteID != "site-1" || *r.VerificationScanID != "scan-1" || !r.GeneratedAt.Equal(reportTime) {
		t.Fatalf("report header %+v", r)
	}
	rules := 0
	for _, s := range r.Summary {
		if s.Rules == 0 || s.Passed != s.Rules || s.Errors+s.Warnings+s.Notices != 0 {
			t.Fatalf("summary %+v", s)
		}
		rules += s.Rules
	}
	if rules != len(scan.ComplianceRules) {
		t.Fatalf("%d rules checked, want every rule of compliance_rules.json (%d)", rules, len(scan.ComplianceRules))
	}
}

func TestFindingsSortedBySeverityThenRule(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Banner.DefaultBehavior, in.Banner.ReopenButton, in.Banner.CookieExpirationDays = "opt_out", false, 300
	v := cleanVerification()
	v.States[0].Requests = append(v.States[0].Requests, core.VerifiedRequest{URL: "https://x.example/", Page: "https://shop.example/", ThirdParty: true})
	r := scan.EvaluateCompliance(in, v, "s", complianceCatalog(t), reportTime)
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.Severity+" "+f.RuleID)
	}
	want := []string{"error consent.opt-out-eu", "error consent.preticked", "warning banner.withdraw-lasting",
		"notice consent.lifetime-long", "notice enforcement.unattributed"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("order %v, want %v", got, want)
	}
}

func TestButtonTextColorAndContrast(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		bg, text string
	}{{"#ffffff", banner.ButtonTextDark}, {"#000", banner.ButtonTextLight}, {"#1a56db", banner.ButtonTextLight}, {"#FFD700", banner.ButtonTextDark}, {"red", banner.ButtonTextLight}, {"#12345", banner.ButtonTextLight}} {
		if got := banner.ButtonTextColor(c.bg); got != c.text {
			t.Errorf("%s: text %s, want %s", c.bg, got, c.text)
		}
	}
	if r, ok := banner.ContrastRatio("#000000", "#FFFFFF"); !ok || r != 21 {
		t.Fatalf("black on white %v", r)
	}
	if r, _ := banner.ContrastRatio("#767676", "#ffffff"); r < 4.5 || r > 4.6 {
		t.Fatalf("#767676 on white is WCAG's 4.54:1, got %v", r)
	}
	if _, ok := banner.ContrastRatio("#gg0000", "#fff"); ok {
		t.Fatal("not a colour")
	}
}

func TestComplianceReportUseCase(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	orgID, site := mustSite(t, m)
	other, _ := m.Orgs.CreateOrganization(ctx, "other")
	_, err := m.Compliance.Report(ctx, other.ID, site.ID)
	wantCode(t, err, core.CodeNotFound)
	_, err = m.Compliance.Report(ctx, orgID, "00000000-0000-7000-8000-999999999999")
	wantCode(t, err, core.CodeNotFound)

	if _, err := m.Banners.PatchBanner(ctx, orgID, site.ID, banner.BannerPatch{DefaultBehavior: ptr("opt_out")}); err != nil {
		t.Fatal(err)
	}
	r, err := m.Compliance.Report(ctx, orgID, site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Compliant || r.SiteID != site.ID || r.VerificationScanID != nil || r.VerifiedAt != nil ||
		len(withRule(r, "consent.opt-out-eu")) != 1 || len(withRule(r, "banner.privacy-policy")) != 1 {
		t.Fatalf("report of an opt-out banner without a privacy policy: %+v", r)
	}

	// The latest completed verification scan is read, whatever came after it.
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	mk := func(mode string, v *core.Verification, offset time.Duration) *scan.Scan {
		sc := &scan.Scan{ID: m.newID(), SiteID: site.ID, URL: site.URL, URLs: []string{site.URL}, Status: scan.ScanPending, Mode: mode, CreatedAt: at.Add(offset)}
		if err := m.store.CreateScan(ctx, sc); err != nil {
			t.Fatal(err)
		}
		fin := at.Add(offset + time.Minute)
		sc.Status, sc.FinishedAt, sc.Verification = scan.ScanCompleted, &fin, v
		if err := m.store.UpdateScan(ctx, sc); err != nil {
			t.Fatal(err)
		}
		return sc
	}
	v := cleanVerification()
	v.States[1].Cookies = append(v.States[1].Cookies, core.VerifiedStorage{Kind: core.StorageCookie, Name: "_ads", Domain: "shop.example", Page: "https://shop.example/", Service: "ads", Category: "marketing"})
	ver := mk(core.ScanVerify, v, 0)
	mk(core.ScanDeep, nil, time.Hour)
	r, err = m.Compliance.Report(ctx, orgID, site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.VerificationScanID == nil || *r.VerificationScanID != ver.ID || r.VerifiedAt == nil || !r.VerifiedAt.Equal(*ver.FinishedAt) {
		t.Fatalf("verification scan %v at %v, want %s", r.VerificationScanID, r.VerifiedAt, ver.ID)
	}
	f := withRule(r, "enforcement.after-reject")
	if len(f) != 1 || *f[0].Evidence.ScanID != ver.ID || *f[0].Evidence.Category != "marketing" {
		t.Fatalf("after-reject finding from the scan: %+v", f)
	}
}

// With a verification scan, Consent Mode is judged on what the browser saw, not on the notice.
func TestConsentModeSettledByVerification(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Banner.GCMExcludeVendor = true
	v := cleanVerification()
	r := scan.EvaluateCompliance(in, v, "s", complianceCatalog(t), reportTime)
	if len(withRule(r, "consent.gcm-default")) != 0 {
		t.Fatalf("defaults seen in place, yet %+v", withRule(r, "consent.gcm-default"))
	}
	v.ConsentModeDefault = false
	r = scan.EvaluateCompliance(in, v, "s", complianceCatalog(t), reportTime)
	if got := withRule(r, "consent.gcm-default"); len(got) != 1 || got[0].Severity != scan.SeverityError {
		t.Fatalf("defaults missing: %+v", got)
	}
}

// `consentd verify` judges the public configuration the runtime fetched, as JSON: it must give
// the same configuration findings as the management API's report.
func TestCompliancePublicConfigAgreesWithReport(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	orgID, site := mustSite(t, m)
	if _, err := m.Services.ImportService(ctx, orgID, site.ID, "ads", "statistics"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Banners.PatchBanner(ctx, orgID, site.ID, banner.BannerPatch{DefaultBehavior: ptr("opt_out"), CookieExpirationDays: ptr(500)}); err != nil {
		t.Fatal(err)
	}
	rep, err := m.Compliance.Report(ctx, orgID, site.ID)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := m.PublicBanner.PublicConfig(ctx, site.ProjectKey, core.Location{Country: "DE"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(cfg)
	var fetched banner.PublicConfig
	if err := json.Unmarshal(b, &fetched); err != nil {
		t.Fatal(err)
	}
	lib, _ := library.FromServices([]*library.Service{svc("ads", "marketing", false, "ads.example/a.js")})
	got := scan.EvaluateCompliance(scan.ComplianceInputFromPublicConfig(&fetched), nil, "", lib, reportTime)
	ids := func(r *scan.ComplianceReport) string {
		var s []string
		for _, f := range r.Findings {
			s = append(s, f.RuleID+" "+f.Detail)
		}
		return strings.Join(s, "\n")
	}
	if ids(got) != ids(rep) || got.SiteID != site.ID || len(withRule(got, "consent.gpc")) != 1 {
		t.Fatalf("from the public configuration:\n%s\nfrom the store:\n%s", ids(got), ids(rep))
	}
}

// One cause, one finding: an unmarked Google tag the runtime held, fetched anyway by the
// browser's preload scanner in every state that denies it, is one enforcement.unmarked-tag-fetched
// finding naming those states, and neither a leak of each state nor a Consent Mode error.
func TestHeldTagFetchedIsOneFinding(t *testing.T) {
	t.Parallel()
	in, v := cleanInput(), cleanVerification()
	const tag = "https://www.googletagmanager.com/gtag/js?id=G-ONE"
	for i := range v.States {
		st := &v.States[i]
		if st.State == core.StateAcceptAll || strings.HasPrefix(st.State, core.StateCategoryPrefix) {
			continue
		}
		for _, page := range []string{"https://shop.example/", "https://shop.example/b"} {
			st.Requests = append(st.Requests, core.VerifiedRequest{URL: tag, Page: page, Service: "google-analytics", Category: "statistics",
				Type: "Script", ThirdParty: true})
			st.HeldUnmarked = append(st.HeldUnmarked, core.HeldTag{URL: tag, Page: page, Service: "google-analytics", Category: "statistics", Requested: true})
		}
	}
	r := scan.EvaluateCompliance(in, v, "scan-1", complianceCatalog(t), reportTime)
	if len(r.Findings) != 1 {
		b, _ := json.MarshalIndent(r.Findings, "", "  ")
		t.Fatalf("%d findings, want 1: %s", len(r.Findings), b)
	}
	f := r.Findings[0]
	if f.RuleID != "enforcement.unmarked-tag-fetched" || !strings.Contains(f.Detail, "(no_decision, reject_all, withdrawn)") ||
		!slices.Equal(f.Evidence.Requests, []string{tag}) || !strings.Contains(f.Detail, "on 2 pages") {
		b, _ := json.Marshal(f)
		t.Fatalf("finding %s", b)
	}
}

// TestHeldTagFetchedAdvice: the advice for a held tag the browser fetched anyway names the edge,
// which holds it in the HTML, and marks it by hand in its own form: an iframe with data-src, a
// script with type text/plain (#43).
func TestHeldTagFetchedAdvice(t *testing.T) {
	t.Parallel()
	const video, tag = "https://www.youtube.com/embed/abc", "https://www.googletagmanager.com/gtag/js?id=G-ONE"
	for _, c := range []struct {
		url, element, service, category, form, not string
	}{
		{video, core.HeldIframe, "youtube", "marketing", `<iframe data-src="` + video + `" data-category="marketing"`, "<script"},
		{tag, core.HeldScript, "google-analytics", "statistics", `<script type="text/plain" data-category="statistics" src="` + tag + `">`, "<iframe"},
		{tag, "", "google-analytics", "statistics", `<script type="text/plain"`, "<iframe"},
	} {
		in, v := cleanInput(), cleanVerification()
		st := &v.States[0]
		st.Requests = append(st.Requests, core.VerifiedRequest{URL: c.url, Page: "https://shop.example/", Service: c.service, Category: c.category, ThirdParty: true})
		st.HeldUnmarked = append(st.HeldUnmarked, core.HeldTag{URL: c.url, Page: "https://shop.example/", Service: c.service, Category: c.category, Requested: true, Element: c.element})
		r := scan.EvaluateCompliance(in, v, "scan-1", complianceCatalog(t), reportTime)
		f := withRule(r, "enforcement.unmarked-tag-fetched")
		if len(f) != 1 || !strings.Contains(f[0].Fix, c.form) || strings.Contains(f[0].Fix, c.not) ||
			!strings.Contains(f[0].Fix, "edge") || !strings.Contains(f[0].Fix, "Cloudflare Worker") || strings.Contains(f[0].Fix, "{") {
			b, _ := json.Marshal(f)
			t.Errorf("%s (%q): %s", c.url, c.element, b)
		}
	}
}

// A first-party cookie of a known service set before any decision, with no request of that
// service (inline code wrote it), is a finding naming the cookie and the service.
func TestFirstPartyCookieBeforeDecision(t *testing.T) {
	t.Parallel()
	in, v := cleanInput(), cleanVerification()
	st := &v.States[0]
	if st.State != core.StateNoDecision {
		t.Fatalf("first state %s", st.State)
	}
	st.Cookies = append(st.Cookies, core.VerifiedStorage{Kind: core.StorageCookie, Name: "_ga", Domain: "shop.example",
		Page: "https://shop.example/", Service: "google-analytics", Category: "statistics"})
	r := scan.EvaluateCompliance(in, v, "scan-1", complianceCatalog(t), reportTime)
	got := withRule(r, "enforcement.before-decision")
	if len(got) != 1 || !slices.Equal(got[0].Evidence.Cookies, []string{"_ga (shop.example)"}) ||
		!strings.Contains(got[0].Detail, "set cookie _ga (shop.example)") || *got[0].Evidence.Service != "google-analytics" {
		b, _ := json.Marshal(r.Findings)
		t.Fatalf("findings %s", b)
	}
}

// TestVerdict: a new site is unverified; a completed scan that found a service nothing holds
// back makes it not compliant, naming the service; a passing verification makes it compliant.
func TestVerdict(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	orgID, site := mustSite(t, m)
	report := func() *scan.ComplianceReport {
		t.Helper()
		r, err := m.Compliance.Report(ctx, orgID, site.ID)
		if err != nil {
			t.Fatal(err)
		}
		noPlaceholders(t, r)
		return r
	}
	if r := report(); r.Verdict != scan.VerdictUnverified || r.Compliant {
		t.Fatalf("a new site: verdict %s, compliant %v, findings %+v", r.Verdict, r.Compliant, r.Findings)
	}
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	n := 0
	plant := func(mode string, found []core.DetectedService, v *core.Verification) *scan.Scan {
		t.Helper()
		n++
		sc := &scan.Scan{ID: m.newID(), SiteID: site.ID, URL: site.URL, URLs: []string{site.URL}, Status: scan.ScanPending, Mode: mode, CreatedAt: at.Add(time.Duration(n) * time.Hour)}
		if err := m.store.CreateScan(ctx, sc); err != nil {
			t.Fatal(err)
		}
		fin := sc.CreatedAt.Add(time.Minute)
		sc.Status, sc.FinishedAt, sc.DetectedServices, sc.Verification = scan.ScanCompleted, &fin, found, v
		if err := m.store.UpdateScan(ctx, sc); err != nil {
			t.Fatal(err)
		}
		return sc
	}
	page := "https://shop.example/"
	found := []core.DetectedService{
		{Slug: "tagman", Name: "Tag Man", Category: "statistics", Pages: []string{page}}, // a built-in rule holds it
		{Slug: "ads", Name: "Ads", Category: "marketing", Pages: []string{page, page + "b"}},
		{Slug: "stats", Name: "Stats", Category: "statistics", Pages: []string{page}, Gated: true}, // marked
		{Slug: "pay", Name: "Pay", Category: "essential", Pages: []string{page}},
	}
	sc := plant(core.ScanStatic, found, nil)
	unheld := func(r *scan.ComplianceReport) string {
		var s []string
		for _, f := range withRule(r, "enforcement.unheld-service") {
			if *f.Evidence.ScanID != sc.ID || f.Evidence.Page == nil || f.Severity != scan.SeverityError {
				t.Fatalf("finding %+v", f)
			}
			s = append(s, *f.Evidence.Service)
		}
		return strings.Join(s, " ")
	}
	r := report()
	if r.Verdict != scan.VerdictNotCompliant || r.Compliant || unheld(r) != "ads" ||
		!strings.Contains(withRule(r, "enforcement.unheld-service")[0].Detail, "found Ads (marketing) on https://shop.example/, https://shop.example/b") {
		t.Fatalf("after a scan that found ads unheld: %s %q %+v", r.Verdict, unheld(r), r.Findings)
	}
	// With blocking off, the built-in rule no longer holds tagman's unmarked tags either.
	if err := m.Banners.SetScriptBlocking(ctx, orgID, site.ID, false); err != nil {
		t.Fatal(err)
	}
	if got := unheld(report()); got != "ads tagman" {
		t.Fatalf("blocking off: unheld %q", got)
	}
	if err := m.Banners.SetScriptBlocking(ctx, orgID, site.ID, true); err != nil {
		t.Fatal(err)
	}
	// Configuring ads adds its blocking rule; a passing verification with a privacy policy
	// makes the site compliant.
	if _, err := m.Services.ImportService(ctx, orgID, site.ID, "ads", ""); err != nil {
		t.Fatal(err)
	}
	if r := report(); unheld(r) != "" || r.Verdict != scan.VerdictUnverified {
		t.Fatalf("ads configured: %s %q", r.Verdict, unheld(r))
	}
	if _, err := m.Banners.PatchBanner(ctx, orgID, site.ID, banner.BannerPatch{PrivacyPolicyURL: banner.Optional[string]{Set: true, Value: "https://shop.example/privacy"}}); err != nil {
		t.Fatal(err)
	}
	pass := &core.Verification{Banner: core.BannerConsentd, ConsentModeDefault: true, RejectOnFirstLayer: true, ReopenButton: true,
		States: []core.VerifiedState{{State: core.StateNoDecision, Pages: []string{page}}, {State: core.StateRejectAll, Pages: []string{page}}}}
	ver := plant(core.ScanVerify, nil, pass)
	if r := report(); r.Verdict != scan.VerdictCompliant || !r.Compliant || *r.VerificationScanID != ver.ID {
		t.Fatalf("after a passing verification: %s %+v", r.Verdict, r.Findings)
	}
	// A verification that sees a tracker before a decision is not compliant.
	fail := *pass
	fail.States = []core.VerifiedState{{State: core.StateNoDecision, Pages: []string{page},
		Cookies: []core.VerifiedStorage{{Kind: core.StorageCookie, Name: "_ads", Domain: "shop.example", Page: page, Service: "ads", Category: "marketing"}}}}
	plant(core.ScanVerify, nil, &fail)
	if r := report(); r.Verdict != scan.VerdictNotCompliant || r.Compliant {
		t.Fatalf("after a failing verification: %s", r.Verdict)
	}
	if fmt.Sprint(scan.Verdicts()) != "[compliant not_compliant unverified]" {
		t.Fatal(scan.Verdicts())
	}
}

// cleanRegional is a clean site with the preset "GDPR in Europe, US state laws, nothing
// elsewhere", and a verification that visited each of its rules from a place it covers and saw
// each keep its promise.
func cleanRegional(t *testing.T) (*scan.ComplianceInput, *core.Verification) {
	t.Helper()
	in, v := cleanInput(), cleanVerification()
	in.Banner.RegionRules = banner.RegionPresets()[0].RegionRules
	essential, all := v.States[1], v.States[2]
	at := reportTime.Add(-time.Hour)
	for _, p := range in.Banner.VerificationPlaces() {
		rv := core.RuleVerification{RulePlace: p, VerifiedAt: at}
		named := func(st core.VerifiedState, name string) core.VerifiedState { st.State = name; return st }
		switch p.Behavior {
		case banner.BehaviorOptIn:
			rv.States, rv.BannerShown, rv.RejectOnFirstLayer, rv.ReopenButton = v.States, true, true, true
		case banner.BehaviorOptOut:
			rv.States, rv.BannerShown, rv.DoNotSellControl = []core.VerifiedState{named(all, core.StateNoDecision),
				named(essential, core.StateDoNotSell), named(essential, core.StateGPC)}, true, true
		case banner.BehaviorNoBanner:
			rv.States = []core.VerifiedState{named(all, core.StateNoDecision), named(essential, core.StateGPC)}
		}
		v.Rules = append(v.Rules, rv)
	}
	return in, v
}

// TestRegionalVerification: every rule of the preset verified and kept is compliant, with one
// result per rule naming its place; a marketing tag that ignores the Do Not Sell or Share
// control fails only the opt-out rule; a rule not visited, a missing notice or control, and a
// banner where none is due are findings of their rule.
func TestRegionalVerification(t *testing.T) {
	t.Parallel()
	lib := complianceCatalog(t)
	in, v := cleanRegional(t)
	r := scan.EvaluateCompliance(in, v, "scan-1", lib, reportTime)
	if !r.Compliant || len(r.Findings) != 0 || len(r.Rules) != 4 {
		t.Fatalf("clean regional site: %s %+v %+v", r.Verdict, r.Findings, r.Rules)
	}
	for _, rr := range r.Rules {
		if !rr.Passed || rr.VerifiedAt == nil || rr.Location == "" || len(rr.States) == 0 {
			t.Errorf("rule result %+v", rr)
		}
	}
	optOut := func(v *core.Verification) *core.RuleVerification {
		for i := range v.Rules {
			if v.Rules[i].Behavior == banner.BehaviorOptOut {
				return &v.Rules[i]
			}
		}
		t.Fatal("no opt-out run")
		return nil
	}
	for _, tc := range []struct {
		name, rule string
		change     func(v *core.Verification)
	}{
		{"marketing after Do Not Sell", "enforcement.sale-after-opt-out", func(v *core.Verification) {
			st := &optOut(v).States[1]
			st.Requests = append(slices.Clone(st.Requests), core.VerifiedRequest{URL: "https://ads.example/a.js", Page: "https://shop.example/",
				Service: "ads", Category: "marketing", ThirdParty: true})
		}},
		{"marketing with GPC", "enforcement.sale-after-opt-out", func(v *core.Verification) {
			st := &optOut(v).States[2]
			st.Cookies = append(slices.Clone(st.Cookies), core.VerifiedStorage{Kind: core.StorageCookie, Name: "_ads", Domain: "shop.example",
				Page: "https://shop.example/", Service: "ads", Category: "marketing"})
		}},
		{"no notice", "enforcement.opt-out-notice", func(v *core.Verification) { optOut(v).BannerShown = false }},
		{"no control", "enforcement.do-not-sell-control", func(v *core.Verification) { optOut(v).DoNotSellControl = false }},
		{"rule not visited", "enforcement.rule-unverified", func(v *core.Verification) {
			v.Rules = slices.DeleteFunc(slices.Clone(v.Rules), func(rv core.RuleVerification) bool { return rv.Behavior == banner.BehaviorOptOut })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, v := cleanRegional(t)
			tc.change(v)
			r := scan.EvaluateCompliance(in, v, "scan-1", lib, reportTime)
			got := withRule(r, tc.rule)
			if r.Compliant || r.Verdict != scan.VerdictNotCompliant || len(got) != 1 {
				t.Fatalf("%s: verdict %s, findings %+v", tc.rule, r.Verdict, r.Findings)
			}
			for _, rr := range r.Rules {
				if rr.Passed == (rr.Behavior == banner.BehaviorOptOut) {
					t.Errorf("%s: rule %s (%s) passed %v", tc.name, rr.Rule, rr.Behavior, rr.Passed)
				}
			}
			if tc.rule != "enforcement.rule-unverified" && (got[0].Evidence.Rule == nil || *got[0].Evidence.Rule != optOut(v).Rule) {
				t.Errorf("evidence %+v does not name the rule", got[0].Evidence)
			}
		})
	}
	// A banner shown where the rule shows none is a warning of that rule.
	in, v = cleanRegional(t)
	for i := range v.Rules {
		if v.Rules[i].Behavior == banner.BehaviorNoBanner {
			v.Rules[i].BannerShown = true
		}
	}
	r = scan.EvaluateCompliance(in, v, "scan-1", lib, reportTime)
	if got := withRule(r, "enforcement.banner-where-none"); len(got) != 1 || got[0].Severity != scan.SeverityWarning || !r.Compliant {
		t.Fatalf("banner where none: %s %+v", r.Verdict, r.Findings)
	}
	// A verification from one place of a site with several rules: the others are unverified.
	in, v = cleanRegional(t)
	v.Rules = nil
	r = scan.EvaluateCompliance(in, v, "scan-1", lib, reportTime)
	if got := withRule(r, "enforcement.rule-unverified"); len(got) != 1 || r.Compliant {
		t.Fatalf("one place only: %s %+v", r.Verdict, r.Findings)
	}
}

// TestEssentialThirdPartyFonts: with the real library, a shop whose pages link Google Fonts
// from fonts.googleapis.com is not compliant under opt-in, the finding naming the service and
// the self-hosting fix; with the fonts served from the shop itself, it is compliant. Another
// essential third party (no self-hosting fix in its entry) is a warning only.
func TestEssentialThirdPartyFonts(t *testing.T) {
	t.Parallel()
	lib, err := library.Load("")
	if err != nil {
		t.Fatal(err)
	}
	fonts := core.VerifiedRequest{URL: "https://fonts.googleapis.com/css2?family=Inter", Page: "https://shop.example/", Service: "google-fonts",
		Category: "essential", Type: "Stylesheet", ThirdParty: true}
	withRequest := func(r core.VerifiedRequest) *core.Verification {
		v := cleanVerification()
		for i := range v.States {
			v.States[i].Requests = append(slices.Clone(v.States[i].Requests), r)
		}
		return v
	}
	r := scan.EvaluateCompliance(cleanInput(), withRequest(fonts), "scan-1", lib, reportTime)
	got := withRule(r, "enforcement.essential-third-party")
	if r.Compliant || r.Verdict != scan.VerdictNotCompliant || len(got) != 1 || got[0].Severity != scan.SeverityError {
		t.Fatalf("Google Fonts before a choice: %s %+v", r.Verdict, r.Findings)
	}
	if !strings.Contains(got[0].Detail, "Google Fonts [google-fonts]") || !strings.Contains(got[0].Detail, "fonts.googleapis.com") ||
		!strings.Contains(got[0].Detail, "Self-host the fonts") || !strings.Contains(got[0].Fix, "self-host") {
		t.Errorf("the finding does not name the service and the fix: %s / %s", got[0].Detail, got[0].Fix)
	}
	selfHosted := fonts
	selfHosted.URL, selfHosted.Service, selfHosted.Category, selfHosted.ThirdParty = "https://shop.example/fonts/inter.woff2", "", "", false
	if r := scan.EvaluateCompliance(cleanInput(), withRequest(selfHosted), "scan-1", lib, reportTime); !r.Compliant {
		t.Fatalf("self-hosted fonts: %s %+v", r.Verdict, r.Findings)
	}
	stripe := core.VerifiedRequest{URL: "https://js.stripe.com/v3/", Page: "https://shop.example/", Service: "stripe", Category: "essential",
		Type: "Script", ThirdParty: true}
	if ls, ok := lib.Service("stripe"); !ok || ls.Category != library.CategoryEssential || ls.SelfHostFix != "" {
		t.Skip("the library's stripe entry changed")
	}
	r = scan.EvaluateCompliance(cleanInput(), withRequest(stripe), "scan-1", lib, reportTime)
	if got := withRule(r, "enforcement.essential-third-party"); !r.Compliant || len(got) != 1 || got[0].Severity != scan.SeverityWarning {
		t.Fatalf("an essential payment script: %s %+v", r.Verdict, r.Findings)
	}
}
