package crawler

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library/librarytest"
)

// TestConsentdOnAnotherDomain scans, statically and in the browser, a recorded site whose
// pages load consentd from a consent host on another registrable domain: the loader on one
// page, the runtime (which fetches the configuration) on the other, the runtime's decision
// posted back, the cookie declaration page in an iframe. None of consentd's resources is an
// unrecognized script, and nothing of consentd's is a finding: no service, cookie, storage key
// or pre-consent finding names the consent host, and its decision cookie and cached
// configuration on the site are no cookie or storage finding.
func TestConsentdOnAnotherDomain(t *testing.T) {
	dir := filepath.Join("..", "testdata", "deep", "consentd-elsewhere")
	cmp := loadSiteConfig(t, dir).Consentd
	ix := librarytest.Index(t)
	static, err := scanSite(t, dir, ix, nil)
	if err != nil {
		t.Fatalf("static scan: %v", err)
	}
	deep, err := deepScanSite(t, dir, ix, testBrowsers(t), nil)
	if err != nil {
		t.Fatalf("deep scan: %v", err)
	}
	for mode, res := range map[string]*Result{"static": static, "deep": deep} {
		if len(res.Pages) != 2 {
			t.Errorf("%s: %d pages, want 2", mode, len(res.Pages))
		}
		for _, u := range res.Unrecognized {
			t.Errorf("%s: unrecognized script %s", mode, u.Src)
		}
		findings := *res
		findings.Pages, findings.Requests, findings.Errors = nil, nil, nil
		b, err := json.Marshal(findings)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), cmp) {
			t.Errorf("%s: a finding names consentd's host %s:\n%s", mode, cmp, b)
		}
		for _, c := range res.Cookies {
			if consentdStorage(c.Name) {
				t.Errorf("%s: consentd's own cookie %s is a finding", mode, c.Name)
			}
		}
		for _, k := range res.Storage {
			if consentdStorage(k.Name) {
				t.Errorf("%s: consentd's own storage key %s is a finding", mode, k.Name)
			}
		}
		if len(res.Errors) > 0 {
			t.Errorf("%s: page errors %+v", mode, res.Errors)
		}
	}
	// The deep scan saw the browser fetch every kind of consentd resource the pages use, so
	// the test stands for them: the loader, the runtime, the configuration, the decision, the
	// declaration page.
	seen := map[string]bool{}
	for _, r := range deep.Requests {
		u, err := url.Parse(r.URL)
		if err != nil || u.Hostname() != cmp {
			continue
		}
		res, _, ok := core.ParsePublicPath(u.EscapedPath())
		if !ok {
			t.Errorf("request %s to the consent host is none of consentd's resources", r.URL)
			continue
		}
		if r.Service != "" || !r.ThirdParty {
			t.Errorf("request %s: service %q, third party %v", r.URL, r.Service, r.ThirdParty)
		}
		seen[res] = true
	}
	for _, res := range []string{core.PublicLoader, core.PublicRuntime, core.PublicConfigPath, core.PublicConsentPath, core.PublicCookiesPage} {
		if !seen[res] {
			t.Errorf("the browser fetched no %s from %s (requests: %+v)", res, cmp, deep.Requests)
		}
	}
}
