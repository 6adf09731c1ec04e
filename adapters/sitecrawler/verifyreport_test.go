package sitecrawler

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/crawler"
	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/crawler/browser/browsertest"
	"github.com/consentd/consentd/crawler/crawlertest"
	"github.com/consentd/consentd/crawler/netguard"
	"github.com/consentd/consentd/library/librarytest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// browsers is the test binary's browser pool: skipped loudly without Chromium, failed under CI.
func browsers(t *testing.T) *browser.Pool {
	t.Helper()
	return browsertest.Pool(t, browser.Options{UserAgent: crawler.DefaultUserAgent})
}

// verifyReport does what `consentd verify --json` does on a recorded site of testdata/verify,
// served over TLS from loopback with its vendors mapped by connect-to and a test CA: the
// verification, the runtime's public configuration as rule input, and the compliance report.
func verifyReport(t *testing.T, name string) (*crawler.Result, *scan.ComplianceReport) {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "verify", name)
	cfg, connectTo, caFile := crawlertest.ServeTLS(t, dir, bannerjs.Handler())
	rule, err := netguard.ParseConnectTo(connectTo)
	if err != nil {
		t.Fatal(err)
	}
	cat, ix := librarytest.Catalog(t), librarytest.Index(t)
	opts := crawler.Options{StartURLs: cfg.Start, AllowPrivate: true, ConnectTo: []netguard.ConnectTo{rule}, RootCAFile: caFile,
		Timeout: 120 * time.Second, QuietFor: scan.DeepQuietFor, QuietMax: scan.DeepQuietMax, PagesAtOnce: scan.DeepPagesAtOnce,
		PageTimeout: scan.DeepPageTimeout}
	res, err := crawler.New(ix).Verify(context.Background(), opts, ownBrowsers(t), crawler.VerifyOptions{MaxItems: core.MaxVerifiedItems})
	if err != nil {
		t.Fatalf("verify %s: %v", name, err)
	}
	var in *scan.ComplianceInput
	if len(res.PublicConfig) > 0 {
		var pc banner.PublicConfig
		if err := json.Unmarshal(res.PublicConfig, &pc); err != nil {
			t.Fatal(err)
		}
		in = scan.ComplianceInputFromPublicConfig(&pc)
	}
	rep := scan.EvaluateCompliance(in, res.Verification, "", cat, time.Now())
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := json.MarshalIndent(rep, "", "  ")
			t.Logf("report:\n%s", out)
			out, _ = json.MarshalIndent(res.Verification, "", "  ")
			t.Logf("verification:\n%s", out)
		}
	})
	return res, rep
}

// TestVerifyOneCauseOneFinding: a site set up as the README says (the loader first in <head>,
// site-wide blocking, its services configured) with one unmarked Google tag gets exactly one
// finding, the one whose fix is to mark the tag.
func TestVerifyOneCauseOneFinding(t *testing.T) {
	t.Parallel()
	_, rep := verifyReport(t, "one-unmarked")
	if len(rep.Findings) != 1 {
		var ids []string
		for _, f := range rep.Findings {
			ids = append(ids, f.RuleID+" ("+f.Severity+"): "+f.Detail)
		}
		t.Fatalf("%d findings, want 1:\n%s", len(rep.Findings), strings.Join(ids, "\n"))
	}
	f := rep.Findings[0]
	if f.RuleID != "enforcement.unmarked-tag-fetched" || f.Evidence.Request == nil ||
		!strings.Contains(*f.Evidence.Request, "www.googletagmanager.com/gtag/js?id=G-VERIFY01") {
		t.Errorf("finding %s on %v, want enforcement.unmarked-tag-fetched on the gtag.js URL", f.RuleID, f.Evidence.Request)
	}
}

// TestVerifyInlineCookieEvidence: a page whose own inline code writes _ga before any decision
// (the analytics tag itself correctly marked) gets a before-decision finding that names _ga and
// Google Analytics in its evidence.
func TestVerifyInlineCookieEvidence(t *testing.T) {
	t.Parallel()
	_, rep := verifyReport(t, "inline-cookie")
	var hit *scan.Finding
	for i, f := range rep.Findings {
		if f.RuleID == "enforcement.before-decision" {
			hit = &rep.Findings[i]
		}
	}
	if hit == nil || rep.Compliant {
		t.Fatalf("no before-decision finding (compliant %v)", rep.Compliant)
	}
	if !slices.Contains(hit.Evidence.Cookies, "_ga (www.verified-shop.example)") || hit.Evidence.Service == nil ||
		*hit.Evidence.Service != "google-analytics" || !strings.Contains(hit.Detail, "Google Analytics") || !strings.Contains(hit.Detail, "_ga") {
		b, _ := json.Marshal(hit)
		t.Errorf("finding %s: want _ga and Google Analytics named", b)
	}
}

// TestVerifyNoBanner: with defaultBehavior no_banner the verification still reports what
// happened before any decision (the analytics tag runs and sets _ga), and says that the states
// after a decision could not be reached.
func TestVerifyNoBanner(t *testing.T) {
	t.Parallel()
	res, rep := verifyReport(t, "no-banner")
	v := res.Verification
	if len(v.States) != 1 || v.States[0].State != core.StateNoDecision || len(v.Unreached) != 3 {
		t.Fatalf("states %d, unreached %+v: want no_decision visited, three unreached", len(v.States), v.Unreached)
	}
	rules := map[string]scan.Finding{}
	for _, f := range rep.Findings {
		rules[f.RuleID] = f
	}
	if !slices.ContainsFunc(rep.Findings, func(f scan.Finding) bool {
		return f.RuleID == "enforcement.before-decision" && slices.Contains(f.Evidence.Cookies, "_ga (www.verified-shop.example)")
	}) {
		t.Error("no before-decision finding with _ga")
	}
	un, ok := rules["enforcement.states-unreached"]
	if !ok || !strings.Contains(un.Detail, "reject_all, accept_all, withdrawn") {
		t.Errorf("states-unreached finding %+v", un)
	}
	if _, ok := rules["enforcement.reject-not-shown"]; ok {
		t.Error("reject-not-shown judged without a banner")
	}
	if _, ok := rules["banner.reject-first-layer"]; !ok {
		t.Error("no banner.reject-first-layer finding for no_banner")
	}
}

// TestVerifyLateTag: analytics the page's own loader injects two seconds after load (outside
// the blocking rules) is seen in every state it runs in, and reported in those that deny it.
func TestVerifyLateTag(t *testing.T) {
	t.Parallel()
	res, rep := verifyReport(t, "late-tag")
	for _, st := range res.Verification.States {
		ran := slices.ContainsFunc(st.Requests, func(r core.VerifiedRequest) bool {
			return r.Service == "google-analytics" && strings.Contains(r.URL, "/g/collect")
		}) && slices.ContainsFunc(st.Cookies, func(c core.VerifiedStorage) bool { return c.Name == "_ga" })
		if !ran {
			t.Errorf("%s: the late analytics tag is not seen", st.State)
		}
	}
	for _, rule := range []string{"enforcement.before-decision", "enforcement.after-reject", "enforcement.after-withdrawal"} {
		if !slices.ContainsFunc(rep.Findings, func(f scan.Finding) bool {
			return f.RuleID == rule && f.Evidence.Service != nil && *f.Evidence.Service == "google-analytics" &&
				slices.Contains(f.Evidence.Cookies, "_ga (www.verified-shop.example)")
		}) {
			t.Errorf("no %s finding of google-analytics with _ga", rule)
		}
	}
}

// TestVerifyScriptLinks: a page only the site's script links to is verified too: the cookie
// its inline code writes before any decision is a finding on that page.
func TestVerifyScriptLinks(t *testing.T) {
	t.Parallel()
	res, rep := verifyReport(t, "script-links")
	if got := len(res.Verification.States[0].Pages); got != 4 {
		t.Errorf("no_decision visited %d pages, want 4 (the script-linked account page among them)", got)
	}
	if !slices.ContainsFunc(rep.Findings, func(f scan.Finding) bool {
		return f.RuleID == "enforcement.before-decision" && slices.Contains(f.Evidence.Cookies, "_ga (www.verified-shop.example)") &&
			f.Evidence.Page != nil && strings.HasSuffix(*f.Evidence.Page, "/account.html")
	}) {
		t.Error("no before-decision finding of _ga on the script-linked account page")
	}
}
