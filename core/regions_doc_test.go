package core_test

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
)

// usStateTable is docs/regions.md's table of the US state laws, rendered from regions.json.
func usStateTable() string {
	var b strings.Builder
	b.WriteString("| state | law | citation | effective | GPC must be honoured | sources | verified |\n|---|---|---|---|---|---|---|\n")
	for _, l := range core.USStateLaws() {
		gpc := "no"
		if l.GPCRequired {
			gpc = "yes, from " + l.GPCRequiredFrom
		}
		var src []string
		for i, u := range l.Sources {
			src = append(src, "["+strconv.Itoa(i+1)+"]("+u+")")
		}
		verified := "yes"
		if strings.Contains(l.Note, "Not verified") || strings.Contains(l.Note, "not verified") {
			verified = "no, see its note"
		}
		b.WriteString("| `" + l.Region + "` | " + l.Law + " | " + l.Citation + " | " + l.Effective + " | " + gpc + " | " + strings.Join(src, " ") + " | " + verified + " |\n")
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

// TestUSStateLawsSourced: every US state law in the table has a source (an absolute http(s)
// URL), a citation, an effective date, a GPC start date exactly when GPC is required, and
// belongs to the group US-STATE-LAWS, which holds no state without a law; every law in force
// by 2028-01-01 the issue names (#45) is there.
func TestUSStateLawsSourced(t *testing.T) {
	t.Parallel()
	laws := core.USStateLaws()
	var group []string
	for _, g := range core.RegionGroups() {
		if g.Code == core.RegionUSStateLaws {
			group = g.Regions
		}
	}
	seen := map[string]bool{}
	for _, l := range laws {
		seen[l.Region] = true
		if len(l.Sources) == 0 {
			t.Errorf("%s (%s) has no source", l.Region, l.Law)
		}
		for _, s := range l.Sources {
			if u, err := url.Parse(s); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				t.Errorf("%s: source %q is not an absolute URL", l.Region, s)
			}
		}
		if l.Law == "" || l.Citation == "" {
			t.Errorf("%s: law %q, citation %q", l.Region, l.Law, l.Citation)
		}
		if _, err := time.Parse(time.DateOnly, l.Effective); err != nil {
			t.Errorf("%s: effective %q: %v", l.Region, l.Effective, err)
		}
		if _, err := time.Parse(time.DateOnly, l.GPCRequiredFrom); l.GPCRequired != (err == nil) {
			t.Errorf("%s: gpcRequired %t, gpcRequiredFrom %q", l.Region, l.GPCRequired, l.GPCRequiredFrom)
		}
		if l.Effective > "2028-01-01" {
			t.Errorf("%s: in force from %s, after the table's horizon 2028-01-01", l.Region, l.Effective)
		}
		if !slices.Contains(group, l.Region) {
			t.Errorf("%s is not in the group %s", l.Region, core.RegionUSStateLaws)
		}
	}
	for _, r := range group {
		if !seen[r] {
			t.Errorf("the group %s names %s, which has no law in the table", core.RegionUSStateLaws, r)
		}
	}
	for _, r := range []string{"US-IN", "US-KY", "US-RI", "US-OK", "US-AL", "US-LA", "US-VT"} {
		if !seen[r] {
			t.Errorf("no law for %s", r)
		}
	}
}
