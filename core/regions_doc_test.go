package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
)

// usStateTable is docs/regions.md's table of the US state laws, rendered from regions.json.
func usStateTable() string {
	var b strings.Builder
	b.WriteString("| state | law | citation | effective | GPC must be honoured |\n|---|---|---|---|---|\n")
	for _, l := range core.USStateLaws() {
		gpc := "no"
		if l.GPCRequired {
			gpc = "yes, from " + l.GPCRequiredFrom
		}
		b.WriteString("| `" + l.Region + "` | " + l.Law + " | " + l.Citation + " | " + l.Effective + " | " + gpc + " |\n")
	}
	return b.String()
}

// TestRegionsDocumented: docs/regions.md shows the US state laws as regions.json has them, so
// that the docs derive from the one data file (the test prints the table to paste).
func TestRegionsDocumented(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "docs", "regions.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := usStateTable(); !strings.Contains(string(b), want) {
		t.Errorf("docs/regions.md's table of US state laws differs from core/regions.json; it should read:\n%s", want)
	}
	for _, g := range core.RegionGroups() {
		if !strings.Contains(string(b), "`"+g.Code+"`") {
			t.Errorf("docs/regions.md does not name the group %s", g.Code)
		}
	}
}
