package core_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

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
