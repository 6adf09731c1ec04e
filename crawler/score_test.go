package crawler

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/crawlertest"
	"github.com/consentd/consentd/library/librarytest"
)

var scoreFlag = flag.Bool("score", false, "TestCorpusScores: score every recorded corpus in static and deep mode")

// scoreKinds are the facts TestCorpusScores scores, in print order.
var scoreKinds = []string{"service", "id", "cookie", "unrecognized"}

// tally counts right, wrong and missed facts per kind.
type tally map[string]*[3]int

func (t tally) add(got, want map[string]bool) []string {
	var wrong []string
	kind := func(f string) string { k, _, _ := strings.Cut(f, " "); return k }
	for f := range got {
		k := kind(f)
		if t[k] == nil {
			continue
		}
		if want[f] {
			t[k][0]++
		} else {
			t[k][1]++
			wrong = append(wrong, "unexpected "+f)
		}
	}
	for f := range want {
		if k := kind(f); t[k] != nil && !got[f] {
			t[k][2]++
			wrong = append(wrong, "missed "+f)
		}
	}
	sort.Strings(wrong)
	return wrong
}

func newTally() tally {
	t := tally{}
	for _, k := range scoreKinds {
		t[k] = &[3]int{}
	}
	return t
}

// staticCorpusFacts are a result's facts in the terms of testdata/sites' expected files:
// services, (service, ID) pairs, unrecognized script srcs, and cookie names with their service
// when the expected file lists cookies.
func staticCorpusFacts(r *Result, withCookies bool) map[string]bool {
	out := map[string]bool{}
	for _, s := range r.Services {
		out["service "+s.Slug] = true
		for _, id := range s.TrackingIDs {
			out["id "+s.Slug+" "+id] = true
		}
	}
	for _, u := range r.Unrecognized {
		out["unrecognized "+u.Src] = true
	}
	if withCookies {
		for _, c := range r.Cookies {
			out["cookie "+c.Name+" = "+c.Service] = true
		}
	}
	return out
}

func staticCorpusWant(want expectation) map[string]bool {
	out := map[string]bool{}
	for slug, ids := range want.Services {
		out["service "+slug] = true
		for _, id := range ids {
			out["id "+slug+" "+id] = true
		}
	}
	for _, u := range want.Unrecognized {
		out["unrecognized "+u] = true
	}
	for name, slug := range want.Cookies {
		out["cookie "+name+" = "+slug] = true
	}
	return out
}

// TestCorpusScores scans every recorded corpus (testdata/sites against its expected files,
// testdata/deep and testdata/verify against theirs) in static mode and in deep mode (what the
// default mode, auto, runs where Chromium is installed), and prints precision and recall of
// services, tracking IDs and cookies, and the share of unrecognized third-party scripts listed.
// A site's expectations are those of the mode it is recorded for: static ones for
// testdata/sites (in both modes: a browser must not do worse than the HTML), deep ones for the
// others, whose static figures are printed for comparison only (a static scan cannot see what
// only a browser runs). It fails on anything short of 100% where the target applies. Run it with
// `task score` (it needs -score; the per-site tests assert the same facts on every run).
func TestCorpusScores(t *testing.T) {
	if !*scoreFlag {
		t.Skip("run with -score (task score)")
	}
	b := testBrowsers(t)
	ix := librarytest.Index(t)
	var lines []string
	row := func(corpus, mode string, tl tally, target bool) {
		var cols []string
		for _, k := range scoreKinds {
			c := tl[k]
			if k == "unrecognized" {
				cols = append(cols, fmt.Sprintf("unrecognized listed %s", pct(c[0], c[0]+c[2])))
				continue
			}
			cols = append(cols, fmt.Sprintf("%s P %s R %s", k, pct(c[0], c[0]+c[1]), pct(c[0], c[0]+c[2])))
		}
		mark := ""
		if !target {
			mark = "  (for comparison)"
		}
		lines = append(lines, fmt.Sprintf("%-16s %-6s  %s%s", corpus, mode, strings.Join(cols, "  "), mark))
		if !target {
			return
		}
		for _, k := range scoreKinds {
			if c := tl[k]; c[1] != 0 || c[2] != 0 {
				t.Errorf("%s %s: %s short of 100%%: %d wrong, %d missed", corpus, mode, k, c[1], c[2])
			}
		}
	}
	// testdata/sites: static expectations, both modes.
	for _, mode := range []string{core.ScanStatic, core.ScanDeep} {
		tl := newTally()
		for _, dir := range siteDirs(t) {
			var want expectation
			data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&want); err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			var res *Result
			if mode == core.ScanStatic {
				res, err = scanSite(t, dir, ix, nil)
			} else {
				res, err = deepScanSite(t, dir, ix, b, nil)
			}
			if want.Error != "" || err != nil {
				if (want.Error == "") != (err == nil) {
					t.Errorf("sites/%s %s: scan error %v, want one containing %q", filepath.Base(dir), mode, err, want.Error)
				}
				continue
			}
			if d := want.Deep; mode == core.ScanDeep && d != nil {
				if d.Services != nil {
					want.Services = d.Services
				}
				if d.Unrecognized != nil {
					want.Unrecognized = d.Unrecognized
				}
				if d.Cookies != nil {
					want.Cookies = d.Cookies
				}
			}
			for _, w := range tl.add(staticCorpusFacts(res, want.Cookies != nil), staticCorpusWant(want)) {
				t.Logf("sites/%s %s: %s", filepath.Base(dir), mode, w)
			}
		}
		row("testdata/sites", mode, tl, true)
	}
	// testdata/deep and testdata/verify: deep expectations.
	for _, corpus := range []string{"deep", "verify"} {
		dirs := corpusDirs(t, corpus)
		for _, mode := range []string{core.ScanStatic, core.ScanDeep} {
			tl := newTally()
			for _, dir := range dirs {
				want := crawlertest.LoadDeepExpectation(t, dir)
				site := crawlertest.SiteHost(loadSiteConfig(t, dir))
				var res *Result
				var err error
				if mode == core.ScanStatic {
					res, err = scanSite(t, dir, ix, nil)
				} else {
					res, err = deepScanSite(t, dir, ix, b, nil)
				}
				if err != nil {
					t.Errorf("%s/%s %s: %v", corpus, filepath.Base(dir), mode, err)
					continue
				}
				for _, w := range tl.add(facts(t, res, site), crawlertest.ExpectedFacts(want)) {
					if mode == core.ScanDeep {
						t.Logf("%s/%s %s: %s", corpus, filepath.Base(dir), mode, w)
					}
				}
			}
			row("testdata/"+corpus, mode, tl, mode == core.ScanDeep)
		}
	}
	fmt.Println("corpus           mode    scores (P precision, R recall)")
	for _, l := range lines {
		fmt.Println(l)
	}
}

// corpusDirs are the recorded sites of testdata/<corpus> that have an expected file.
func corpusDirs(t testing.TB, corpus string) []string {
	all, err := filepath.Glob(filepath.Join("..", "testdata", corpus, "*", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range all {
		out = append(out, filepath.Dir(f))
	}
	return out
}

func pct(n, d int) string {
	if d == 0 {
		return "   -  "
	}
	return fmt.Sprintf("%5.1f%%", 100*float64(n)/float64(d))
}
