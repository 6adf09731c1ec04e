package crawler

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core/banner"
	corescan "github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/library"
	"github.com/consentd/consentd/library/librarytest"
)

// TestVerifyGoogleFontsShop: a shop running consentd under opt-in whose theme links Google
// Fonts from fonts.googleapis.com is not compliant as `consentd verify` judges it (the
// runtime's own configuration and the verification), the finding naming the service and the
// self-hosting fix: the visitor's address reaches Google before any choice, and no banner can
// hold a stylesheet the parser fetches. The same shop with the fonts served from its own host
// has no such finding.
func TestVerifyGoogleFontsShop(t *testing.T) {
	t.Parallel()
	b := ownBrowsers(t, 1)
	lib, err := library.Load("")
	if err != nil {
		t.Fatal(err)
	}
	judge := func(site string) *corescan.ComplianceReport {
		res, err := verifySite(t, site, librarytest.Index(t), b, VerifyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var cfg banner.PublicConfig
		if err := json.Unmarshal(res.PublicConfig, &cfg); err != nil {
			t.Fatalf("%s: the runtime's configuration: %v (%s)", site, err, res.PublicConfigError)
		}
		if cfg.Banner.DefaultBehavior != "opt_in" {
			t.Fatalf("%s: recorded under %s, want opt_in", site, cfg.Banner.DefaultBehavior)
		}
		return corescan.EvaluateCompliance(corescan.ComplianceInputFromPublicConfig(&cfg), res.Verification, "", lib, time.Now())
	}
	fonts := func(r *corescan.ComplianceReport) []corescan.Finding {
		var out []corescan.Finding
		for _, f := range r.Findings {
			if f.RuleID == "enforcement.essential-third-party" {
				out = append(out, f)
			}
		}
		return out
	}

	linked := judge("fonts-linked")
	got := fonts(linked)
	if linked.Verdict != corescan.VerdictNotCompliant || len(got) != 1 || got[0].Severity != corescan.SeverityError {
		t.Fatalf("fonts linked from Google: %s %+v", linked.Verdict, linked.Findings)
	}
	if !strings.Contains(got[0].Detail, "Google Fonts [google-fonts]") || !strings.Contains(got[0].Detail, "fonts.googleapis.com") ||
		!strings.Contains(got[0].Fix, "self-host") {
		t.Errorf("the finding does not name the service and the fix: %s / %s", got[0].Detail, got[0].Fix)
	}

	selfHosted := judge("fonts-self-hosted")
	if got := fonts(selfHosted); len(got) != 0 {
		t.Errorf("fonts served by the shop: %+v", got)
	}
	for _, f := range selfHosted.Findings {
		if f.Severity == corescan.SeverityError {
			t.Errorf("fonts served by the shop: %s %s: %s", f.RuleID, f.Severity, f.Detail)
		}
	}
	if selfHosted.Verdict != corescan.VerdictCompliant {
		t.Errorf("fonts served by the shop: %s, want %s", selfHosted.Verdict, corescan.VerdictCompliant)
	}
}
