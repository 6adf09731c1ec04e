package core_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// TestPolicyListsWrittenOnce: every vendor list and signal name the policy uses (Google's tag
// hosts, the services reading Consent Mode, the vendors' (core/vendorconsent.go) and the storefront's signal
// names)
// and the category slugs are written in one place; a source file (Go or the runtime's
// JavaScript, tests and test data aside) that writes a copy fails here.
func TestPolicyListsWrittenOnce(t *testing.T) {
	t.Parallel()
	root := ".."
	var hosts []*regexp.Regexp
	for _, h := range library.GoogleTagHosts() {
		// as written, or escaped in a regular expression
		hosts = append(hosts, regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(h), `\.`, `\\?\.`)))
	}
	// A list of the services: two of them side by side in a list literal.
	var slugAlt []string
	for _, s := range library.ConsentModeServices() {
		slugAlt = append(slugAlt, regexp.QuoteMeta(s))
	}
	one := `(` + strings.Join(slugAlt, "|") + `)`
	serviceList := regexp.MustCompile(one + `["'\x60]\s*,\s*["'\x60]` + one)
	signals := regexp.MustCompile(`\b(ad_storage|ad_user_data|ad_personalization|analytics_storage|functionality_storage|security_storage|ads_data_redaction|sale_of_data|ad_Storage|analytics_Storage)\b`)
	slugs := regexp.MustCompile(`["'](` + library.CategoryEssential + `|` + library.CategoryStatistics + `|` + library.CategoryMarketing + `)["']`)
	count := func(res []*regexp.Regexp, src string) (n int) {
		for _, re := range res {
			if re.MatchString(src) {
				n++
			}
		}
		return n
	}
	// A list of the law's places (regions.json): two European countries, or two US states with
	// a privacy law, side by side in a list literal.
	var eea, states []string
	for _, g := range core.RegionGroups() {
		if g.Code == core.RegionEEA {
			eea = g.Regions
		}
	}
	for _, l := range core.USStateLaws() {
		states = append(states, regexp.QuoteMeta(l.Region))
	}
	eeaOne, stateOne := `"(`+strings.Join(eea, "|")+`)"`, `"(`+strings.Join(states, "|")+`)"`
	lawList := regexp.MustCompile(eeaOne + `\s*,\s*` + eeaOne + `|` + stateOne + `\s*,\s*` + stateOne)
	checks := []struct {
		what    string
		allowed []string
		scope   func(path string) bool // nil: every source file
		copied  func(src string) bool
	}{
		{"Google's tag hosts (two or more)", []string{"library/vendors.go"}, nil,
			func(src string) bool { return count(hosts, src) >= 2 }},
		{"a list of the services reading Consent Mode", []string{"library/vendors.go"}, nil, serviceList.MatchString},
		{"a list of the places of a law (European countries, US states with a privacy law)", []string{"core/regions.json"}, nil, lawList.MatchString},
		{"a vendor's or the storefront's signal name", []string{"core/banner/policy.go", "core/banner/vendorconsent.go", "core/tcf/tcfsignals.go"}, nil, signals.MatchString},
		{"a category slug literal", []string{"core/banner/policy.go"},
			func(p string) bool {
				return (strings.HasPrefix(p, "core/") && strings.HasSuffix(p, ".go")) || strings.HasPrefix(p, "adapters/httpapi/bannerjs/")
			}, slugs.MatchString},
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "node_modules" || (strings.HasPrefix(n, ".") && rel != ".") || rel == "core/coretest" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, "_test.go") || !(strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, ".js")) ||
			strings.HasSuffix(rel, ".min.js") || strings.HasSuffix(rel, ".standalone.js") { // vendored bundles are not ours
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		src := stripGoComments(rel, string(b))
		for _, c := range checks {
			if slices.Contains(c.allowed, rel) || (c.scope != nil && !c.scope(rel)) {
				continue
			}
			if c.copied(src) {
				t.Errorf("%s writes %s, whose one place is %s: use it from there", rel, c.what, strings.Join(c.allowed, ", "))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stripGoComments drops a Go file's line comments (which may name what the code uses); other
// files are returned as they are.
func stripGoComments(path, src string) string {
	if !strings.HasSuffix(path, ".go") {
		return src
	}
	return goLineComment.ReplaceAllString(src, "")
}

var goLineComment = regexp.MustCompile(`(?m)^\s*//.*$`)
