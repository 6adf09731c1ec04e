package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corescan "github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/crawler/browser/browsertest"
	"github.com/consentd/consentd/crawler/crawlertest"
)

// runVerify runs 'consentd verify' on the first pages of a recorded site of testdata/verify,
// served over TLS from loopback, and returns its output and exit status. Every page of those
// sites carries the same set-up (and, on the faulty one, the same faults); the engine's own tests
// (crawler.TestVerifyClean, TestVerifyFaulty) verify all ten pages, the command's tests its flags,
// its report and its exit status, on --max-pages 3.
func runVerify(t *testing.T, name string, extra ...string) (stdout, stderr string, status int) {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "verify", name)
	cfg := crawlertest.LoadSite(t, dir)
	rule, caFile := serveSite(t, dir)
	return runVerifyAt(t, rule, caFile, cfg.Start[0], append([]string{"--max-pages", "3"}, extra...)...)
}

// runVerifyAt runs 'consentd verify' of start with every host sent to rule's server, whose
// certificates caFile signs, and returns its output and exit status.
func runVerifyAt(t *testing.T, rule, caFile, start string, extra ...string) (stdout, stderr string, status int) {
	t.Helper()
	args := append([]string{"verify", "--allow-private", "--connect-to", rule, "--ca-cert", caFile, "--chromium-path", browsertest.Path}, extra...)
	stdout, stderr, err := runCLI(t, nil, append(args, start)...)
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		status = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	return stdout, stderr, status
}

// needBrowser skips the test loudly without Chromium, or fails it when CI=true.
func needBrowser(t *testing.T) {
	t.Helper()
	browsertest.Require(t)
}

// TestVerifyCommand: 'consentd verify' exits 0 on the correctly set up site and 1 on the
// faulty one, whose JSON report names each fault as its own finding with evidence; usage
// errors exit 2.
//
// Each run is a browser session of its own that waits mostly for pages to go quiet, so the
// runs are parallel subtests.
func TestVerifyCommand(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	t.Run("clean", func(t *testing.T) {
		t.Parallel()
		out, errOut, status := runVerify(t, "clean")
		if status != 0 || !strings.Contains(out, "Compliant: no error finding.") {
			t.Fatalf("clean site: status %d\n%s\n%s", status, out, errOut)
		}
		t.Logf("clean site:\n%s", out)
	})
	t.Run("faulty json", func(t *testing.T) {
		t.Parallel()
		testVerifyFaultyJSON(t)
	})
	t.Run("faulty text", func(t *testing.T) {
		t.Parallel()
		testVerifyFaultyText(t)
	})
	t.Run("other vendor", func(t *testing.T) {
		t.Parallel()
		testVerifyOtherVendor(t)
	})
	t.Run("place without a key", func(t *testing.T) {
		t.Parallel()
		_, errOut, status := runVerify(t, "clean", "--place", "US-CA")
		if status != exitFailed || !strings.Contains(errOut, "--place needs --api-key") {
			t.Errorf("--place without --api-key: status %d, want %d: %s", status, exitFailed, errOut)
		}
		help, _, _ := runCLI(t, nil, "verify", "--help")
		for _, flag := range []string{"--place", "--api-key", "--api-url", "--site"} {
			if !strings.Contains(help, flag) {
				t.Errorf("consentd verify --help does not list %s:\n%s", flag, help)
			}
		}
	})
	t.Run("fail on fatal", func(t *testing.T) {
		t.Parallel()
		if _, _, status := runVerify(t, "clean", "--fail-on", "fatal"); status != exitFailed {
			t.Errorf("--fail-on fatal: status %d, want %d", status, exitFailed)
		}
	})
}

// testVerifyFaultyJSON: the faulty site's JSON report names each fault as its own finding
// with evidence.
func testVerifyFaultyJSON(t *testing.T) {
	out, errOut, status := runVerify(t, "faulty", "--json")
	if status != exitFindings {
		t.Fatalf("faulty site: status %d, want %d\n%s\n%s", status, exitFindings, out, errOut)
	}
	var rep corescan.ComplianceReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if rep.Compliant {
		t.Error("faulty site reported compliant")
	}
	found := map[string]corescan.Finding{}
	for _, f := range rep.Findings {
		if _, ok := found[f.RuleID]; !ok {
			found[f.RuleID] = f
		}
	}
	// (a) the unmarked heatmap above the loader; (b) the unmarked pixel image, whose cookie
	// comes back after withdrawal (the rules group a service's requests and cookies in one
	// finding, the first request as its evidence); (c) the opt_out banner.
	for rule, want := range map[string]string{
		"enforcement.before-decision":  "static.hotjar.com/c/hotjar-3141592.js",
		"enforcement.after-withdrawal": "www.facebook.com/tr?id=223344556677889",
		"consent.opt-out-eu":           "banner.defaultBehavior",
	} {
		f, ok := found[rule]
		if !ok {
			t.Errorf("no %s finding", rule)
			continue
		}
		ev, _ := json.Marshal(f.Evidence)
		if !strings.Contains(string(ev), want) && !slices.ContainsFunc(rep.Findings, func(g corescan.Finding) bool {
			b, _ := json.Marshal(g.Evidence)
			return g.RuleID == rule && strings.Contains(string(b), want)
		}) {
			t.Errorf("%s: no finding with %q in its evidence; first: %s", rule, want, ev)
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", out)
	}
}

// testVerifyFaultyText: the text report of the faulty site: findings by severity, each with
// evidence and fix.
func testVerifyFaultyText(t *testing.T) {
	out, _, status := runVerify(t, "faulty", "--fail-on", "warning")
	for _, want := range []string{"Not compliant", "\nErrors (", "[enforcement.after-withdrawal]",
		"evidence: state withdrawn; page https://www.faulty-shop.example/", "fix: Set banner.defaultBehavior to opt_in", "\nSummary\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	if status != exitFindings || t.Failed() {
		t.Fatalf("faulty site, text: status %d\n%s", status, out)
	}
}

// testVerifyOtherVendor: another vendor's banner: only the first visit is checked, its
// tracking is an error, and the families that read consentd's configuration say they were
// not checked.
func testVerifyOtherVendor(t *testing.T) {
	out, _, status := runVerify(t, "other-vendor")
	for _, want := range []string{"no consentd banner", "[enforcement.before-decision]", "evidence: state no_decision",
		"[enforcement.no-consentd-banner]", "  banner       not checked\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("other vendor's site, text report lacks %q", want)
		}
	}
	if status != exitFindings || t.Failed() {
		t.Fatalf("other vendor's site: status %d\n%s", status, out)
	}
}
