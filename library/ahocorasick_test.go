package library

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ahocorasick "github.com/petar-dambovaliev/aho-corasick"
)

func TestACMatcher(t *testing.T) {
	t.Parallel()
	lits := []string{"he", "she", "his", "hers", "gtm-"}
	m := newACMatcher(lits)
	text := "uSHErs and GTM-X"
	seen := map[string]int{}
	m.scan(text, func(l int32, _ int) { seen[lits[l]]++ })
	want := map[string]int{"he": 1, "she": 1, "hers": 1, "gtm-": 1}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", seen, want)
	}
}

// literalScanners returns our automaton and a maintained Go Aho-Corasick module set up for the
// same job (every occurrence, overlapping ones included, ASCII case-insensitively), each behind
// a function counting the occurrences in a text. They are compared so that ours is kept only
// while it is clearly faster (issue 11).
func literalScanners(literals []string) []struct {
	name string
	scan func(text string, hit func(lit, end int))
} {
	ours := newACMatcher(literals)
	builder := ahocorasick.NewAhoCorasickBuilder(ahocorasick.Opts{
		AsciiCaseInsensitive: true,
		MatchKind:            ahocorasick.StandardMatch,
		DFA:                  true,
	})
	module := builder.Build(literals)
	return []struct {
		name string
		scan func(text string, hit func(lit, end int))
	}{
		{"ours", func(text string, hit func(lit, end int)) {
			ours.scan(text, func(lit int32, end int) { hit(int(lit), end) })
		}},
		{"module", func(text string, hit func(lit, end int)) {
			it := module.IterOverlapping(text)
			for m := it.Next(); m != nil; m = it.Next() {
				hit(m.Pattern(), m.End())
			}
		}},
	}
}

// literalWorkloads returns the literal searches FindTrackingIDs does: the real catalog's
// literals over the recorded sites' pages, and the synthetic 5,000-service index's literals over
// the text of BenchmarkFindTrackingIDs.
func literalWorkloads(tb testing.TB) []struct {
	name     string
	literals []string
	texts    []string
} {
	cat := catalogIndex(tb)
	pages, _ := filepath.Glob(filepath.Join("..", "testdata", "sites", "*", "*", "*.html"))
	var texts []string
	for _, p := range pages {
		if data, err := os.ReadFile(p); err == nil {
			texts = append(texts, string(data))
		}
	}
	syn, err := NewIndex(append(syntheticServices(5000), indexFixture(tb).services...))
	if err != nil {
		tb.Fatal(err)
	}
	text := strings.Repeat(`window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}
gtag('js',new Date());gtag('config','G-ABC123XYZ9');var x=document.createElement('script');`, 20)
	return []struct {
		name     string
		literals []string
		texts    []string
	}{
		{"catalog", cat.idLiterals.literals, texts},
		{"synthetic", syn.idLiterals.literals, []string{text}},
	}
}

// TestACMatcherAgreesWithModule checks that both scanners report the same occurrences, so that
// BenchmarkLiteralScan compares equal work.
func TestACMatcherAgreesWithModule(t *testing.T) {
	t.Parallel()
	for _, w := range literalWorkloads(t) {
		texts := append(catalogTexts(t, catalogIndex(t)), w.texts...)
		sc := literalScanners(w.literals)
		total := 0
		for _, text := range texts {
			var got [2][]string
			for i, s := range sc {
				s.scan(text, func(lit, end int) { got[i] = append(got[i], fmt.Sprintf("%d@%d", lit, end)) })
				slices.Sort(got[i])
			}
			total += len(got[0])
			if !slices.Equal(got[0], got[1]) {
				t.Errorf("%s %.60q: ours %v, module %v", w.name, text, got[0], got[1])
			}
		}
		if total == 0 {
			t.Errorf("%s: no literal found in %d texts", w.name, len(texts))
		}
	}
}

// BenchmarkLiteralScan times the literal search of FindTrackingIDs with our automaton and with
// the module.
func BenchmarkLiteralScan(b *testing.B) {
	for _, w := range literalWorkloads(b) {
		n := 0
		for _, t := range w.texts {
			n += len(t)
		}
		for _, s := range literalScanners(w.literals) {
			b.Run(w.name+"/impl="+s.name, func(b *testing.B) {
				b.SetBytes(int64(n))
				hits := 0
				for b.Loop() {
					for _, t := range w.texts {
						s.scan(t, func(int, int) { hits++ })
					}
				}
				if hits == 0 {
					b.Fatal("no literal found")
				}
			})
		}
	}
}
