package tcf_test

import (
	"os"
	"slices"
	"testing"

	"github.com/consentd/consentd/core/tcf"
)

func fixtureGVL(t testing.TB) *tcf.GVL {
	t.Helper()
	data, err := os.ReadFile("../../testdata/tcf/vendor-list-v17.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := tcf.ParseGVL(data)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestChooseStacks: over the IAB's 43 stacks (GVL v17), the chooser covers as many of the
// site's purposes and special features as stacks can, with the fewest stacks, never a stack
// claiming a purpose or special feature the site does not disclose, never two stacks sharing
// one, ties broken by the lowest IDs; what is left is listed on its own.
func TestChooseStacks(t *testing.T) {
	g := fixtureGVL(t)
	for _, c := range []struct {
		name         string
		purposes, sf []int
		want         []int
	}{
		// Every purpose and both special features: stack 42 (2 to 11) and stack 1 (both
		// special features); purpose 1 is in no stack.
		{"everything", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, []int{1, 2}, []int{1, 42}},
		// One special feature: stack 1 needs both, so it is listed on its own.
		{"one special feature", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, []int{1}, []int{42}},
		// Google's purposes (1, 3, 4 consent; 2, 7, 9, 10 legitimate interest): stack 39 is
		// exactly 2, 3, 4, 7, 9, 10.
		{"Google Advertising Products", []int{1, 2, 3, 4, 7, 9, 10}, nil, []int{39}},
		// 2, 3, 4, 7, 8: stack 8 (2, 3, 4, 7) would leave 8, and stack 29 (2, 7, 8, 9) claims
		// 9; stacks 3 (2, 3, 4) and 18 (7, 8) cover all five.
		{"two cover more than one", []int{1, 2, 3, 4, 7, 8}, nil, []int{3, 18}},
		// 2, 3, 4, 8: stack 3 (2, 3, 4) and 8 on its own; no stack pairs 8 with nothing else.
		{"leaves one", []int{2, 3, 4, 8}, nil, []int{3}},
		// 3, 4, 5, 6: stacks 10 (3, 4) and 11 (5, 6) cover all four; stack 27 (3, 5) would
		// leave 4 and 6 apart, as would any other pairing.
		{"two stacks", []int{3, 4, 5, 6}, nil, []int{10, 11}},
		// 6, 8 and 11 are both stack 12 and stack 13 (which differ by their texts): the lower ID.
		{"tie", []int{6, 8, 11}, nil, []int{12}},
		{"purpose 1 alone", []int{1}, nil, []int{}},
		{"nothing", nil, nil, []int{}},
		// A purpose beyond the GVL's is listed on its own, the rest still grouped.
		{"unknown purpose", []int{3, 4, 40}, nil, []int{10}},
	} {
		got := tcf.ChooseStacks(g.Stacks, c.purposes, c.sf)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: ChooseStacks(%v, %v) = %v, want %v", c.name, c.purposes, c.sf, got, c.want)
		}
		// Whatever it chose: disjoint, within the site's, deterministic.
		seen := map[[2]int]bool{}
		for _, id := range got {
			st := g.Stacks[id]
			for _, p := range st.Purposes {
				if seen[[2]int{0, p}] || !slices.Contains(c.purposes, p) {
					t.Errorf("%s: stack %d repeats or claims purpose %d", c.name, id, p)
				}
				seen[[2]int{0, p}] = true
			}
			for _, f := range st.SpecialFeatures {
				if seen[[2]int{1, f}] || !slices.Contains(c.sf, f) {
					t.Errorf("%s: stack %d repeats or claims special feature %d", c.name, id, f)
				}
				seen[[2]int{1, f}] = true
			}
		}
		if again := tcf.ChooseStacks(g.Stacks, c.purposes, c.sf); !slices.Equal(again, got) {
			t.Errorf("%s: not deterministic: %v then %v", c.name, got, again)
		}
	}
}

// TestPurposesShown: the purposes the site's vendors declare under consent, legitimate
// interest or as flexible, once each, ascending.
func TestPurposesShown(t *testing.T) {
	g := fixtureGVL(t)
	if got := tcf.PurposesShown(g, []int{755}); !slices.Equal(got, []int{1, 2, 3, 4, 7, 9, 10}) {
		t.Errorf("vendor 755: %v", got)
	}
	if got := tcf.PurposesShown(g, []int{8, 2, 99999}); !slices.Equal(got, []int{1, 2, 3, 4, 7, 8, 9, 10}) {
		t.Errorf("vendors 8 and 2: %v", got)
	}
}

// BenchmarkChooseStacks: the worst case, every purpose and special feature.
func BenchmarkChooseStacks(b *testing.B) {
	g := fixtureGVL(b)
	all := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	for b.Loop() {
		tcf.ChooseStacks(g.Stacks, all, []int{1, 2})
	}
}
