package core_test

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/consentd/consentd/core/i18n"
	"github.com/consentd/consentd/core/tcf"
)

// TestTCFDocTable: docs/tcf.md's table from TCF choices to categories and Consent Mode says
// what core.TCFSignalTable says, row for row, so that the page cannot drift from the code.
func TestTCFDocTable(t *testing.T) {
	b, err := os.ReadFile("../docs/tcf.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	cell := func(n tcf.TCFNeed) string {
		ps := make([]string, len(n.Purposes))
		for i, p := range n.Purposes {
			ps[i] = strconv.Itoa(p)
		}
		s := strings.Join(ps, ", ")
		if n.Vendor == tcf.GoogleVendorID {
			s += ", and vendor 755"
		}
		return s
	}
	table := tcf.TCFSignalTable()
	for name, n := range table.Categories {
		if row := "| " + name + " | " + cell(n); !strings.Contains(doc, row+" |") {
			t.Errorf("docs/tcf.md lacks the row %q", row)
		}
	}
	for name, n := range table.ConsentMode {
		if row := "| `" + name + "` | " + cell(n); !strings.Contains(doc, row+" |") && !strings.Contains(doc, row+" (") {
			t.Errorf("docs/tcf.md lacks the row %q", row)
		}
	}
}

// TestTCFDocLanguages: docs/tcf.md names, for every built-in language, the IAB translation of
// the purposes and features its TCF layers show (tcf.IABLanguages among tcf.GVLLanguages), or
// English where the IAB publishes none.
func TestTCFDocLanguages(t *testing.T) {
	b, err := os.ReadFile("../docs/tcf.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var fallback []string
	for _, lang := range i18n.Languages() {
		if lang == "en" {
			continue
		}
		iab := "English"
		for _, l := range tcf.IABLanguages(lang) {
			if slices.Contains(tcf.GVLLanguages(), l) {
				iab = "`" + l + "`"
				break
			}
		}
		if iab == "English" {
			fallback = append(fallback, lang)
		}
		if row := "| `" + lang + "` | " + iab + " |"; !strings.Contains(doc, row) {
			t.Errorf("docs/tcf.md lacks the row %q", row)
		}
	}
	if want := []string{"ga", "is", "zh-Hant"}; !slices.Equal(fallback, want) {
		t.Errorf("built-in languages without an IAB translation: %v, want %v (update docs/tcf.md)", fallback, want)
	}
	if got := tcf.IABLanguages("en-GB"); got != nil {
		t.Errorf("IABLanguages(en-GB) = %v, want none", got)
	}
	if got := tcf.IABLanguages("fr-BE"); !slices.Equal(got, []string{"fr-be", "fr"}) {
		t.Errorf("IABLanguages(fr-BE) = %v", got)
	}
}
