package scan

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
)

// TestComplianceRuleFile checks compliance_rules.json against the Go that uses it: every rule
// ID in core's code has an entry, every entry is used, and a detail's placeholders are all
// known names filled somewhere.
func TestComplianceRuleFile(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	idPattern := regexp.MustCompile(`"((?:banner|consent|declaration|enforcement)\.[a-z0-9-]+)"`)
	keyPattern := regexp.MustCompile(`"([a-zA-Z]+)":`)
	used := map[string]bool{}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
		for _, m := range idPattern.FindAllStringSubmatch(string(b), -1) {
			used[m[1]] = true
		}
	}
	for _, ev := range event.EventTypes() {
		delete(used, ev) // webhook event types (consent.recorded) share the pattern, not the namespace
	}
	delete(used, core.PublicRuntime)        // the runtime's file name (banner.js), likewise
	params := map[string]bool{"more": true} // filled by finish
	for _, m := range keyPattern.FindAllStringSubmatch(src.String(), -1) {
		params[m[1]] = true
	}
	for id := range used {
		if _, ok := ComplianceRules[id]; !ok {
			t.Errorf("rule %s is used in Go but has no entry in compliance_rules.json", id)
		}
	}
	for id, r := range ComplianceRules {
		if !used[id] {
			t.Errorf("rule %s of compliance_rules.json is used nowhere", id)
		}
		for _, p := range placeholder.FindAllStringSubmatch(r.Detail+r.Fix, -1) {
			if !params[p[1]] {
				t.Errorf("rule %s: placeholder {%s} is filled nowhere", id, p[1])
			}
		}
		if strings.Count(r.Fix, ". ") > 0 || !strings.HasSuffix(r.Fix, ".") {
			t.Errorf("rule %s: the fix is one sentence ending in a full stop: %q", id, r.Fix)
		}
	}
	if got := renderDetail("a {x} b {y}", map[string]string{"x": "1"}); got != "a 1 b {y}" {
		t.Fatalf("renderDetail %q", got)
	}
	if !slices.Equal(RuleFamilies(), []string{"banner", "consent", "declaration", "enforcement"}) {
		t.Fatal("families")
	}
}

// TestComplianceRulesDocumented: docs/compliance.md lists every rule.
func TestComplianceRulesDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "compliance.md"))
	if err != nil {
		t.Fatal(err)
	}
	for id := range ComplianceRules {
		if !strings.Contains(string(b), "| `"+id+"` |") {
			t.Errorf("docs/compliance.md has no row for rule %s", id)
		}
	}
}
