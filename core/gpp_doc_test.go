package core_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dustin/go-humanize"

	"github.com/consentd/consentd/core/gpp"
)

// TestGPPDocLimit: docs/gpp.md states the GPP string's length limit as core has it, and no
// other: core.MaxGPPString is the one source.
func TestGPPDocLimit(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "gpp.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "`gppString` (optional, at most " + humanize.Comma(gpp.MaxGPPString) + " characters"
	doc := strings.Join(strings.Fields(string(b)), " ")
	if !strings.Contains(doc, want) {
		t.Errorf("docs/gpp.md does not say %q", want)
	}
	for _, m := range regexp.MustCompile(`at most ([0-9][0-9,]*) characters`).FindAllStringSubmatch(doc, -1) {
		if m[1] != humanize.Comma(gpp.MaxGPPString) {
			t.Errorf("docs/gpp.md states a limit of %s characters; core.MaxGPPString is %d", m[1], gpp.MaxGPPString)
		}
	}
}
