package tcf

import (
	"maps"
	"math/bits"
	"slices"
)

// Stacks on the first layer (tcf.useStacks, #45; docs/tcf.md). The TCF Policies (Appendix A,
// "Stacks") let a CMP's first layer show a stack, the IAB's standard grouping of two or more
// purposes and/or special features with its own name and description, in place of those
// purposes and special features; a purpose must not be in more than one stack shown, nor both
// in a stack and outside one, and a stack shown must not include a purpose that is not
// disclosed. The second layer always lists every purpose and special feature on its own.

// PurposesShown returns the purposes the site's vendors (vendorIDs, those in g) declare, under
// consent, legitimate interest or as flexible, ascending: the purposes the layers disclose.
func PurposesShown(g *GVL, vendorIDs []int) []int {
	out := []int{}
	for _, id := range vendorIDs {
		v := g.Vendors[id]
		for _, l := range [][]int{v.Purposes, v.LegIntPurposes, v.FlexiblePurposes} {
			for _, p := range l {
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// stackSlots is how many purpose IDs (and then special feature IDs) a stack's set holds: the
// GVL has 11 purposes and 2 special features; a stack naming an ID beyond is never chosen.
const stackSlots = 32

// stackSet is a set of purposes (bits 0..31 for purposes 1..32) and special features (bits
// 32..63); ok is false when an ID does not fit.
func stackSet(purposes, specialFeatures []int) (set uint64, ok bool) {
	for _, p := range purposes {
		if p < 1 || p > stackSlots {
			return 0, false
		}
		set |= 1 << (p - 1)
	}
	for _, f := range specialFeatures {
		if f < 1 || f > stackSlots {
			return 0, false
		}
		set |= 1 << (stackSlots + f - 1)
	}
	return set, true
}

// ChooseStacks returns the stacks (IDs, ascending) the first layer shows for a site disclosing
// purposes and asking for specialFeatures: pairwise disjoint stacks of two or more items, each
// within what the site discloses, that together cover as many of its purposes and special
// features as stacks can; among those, the fewest stacks; among those, the lowest IDs (the
// smallest list, compared in order). Whatever no chosen stack covers is listed on its own. It
// is deterministic and exact (a search over the disjoint choices, which the GVL's 43 stacks
// over 13 items keep small).
func ChooseStacks(stacks map[int]GVLStack, purposes, specialFeatures []int) []int {
	// The site's purposes and special features; an ID beyond the slots is listed on its own.
	var target uint64
	for _, p := range purposes {
		if set, ok := stackSet([]int{p}, nil); ok {
			target |= set
		}
	}
	for _, f := range specialFeatures {
		if set, ok := stackSet(nil, []int{f}); ok {
			target |= set
		}
	}
	type cand struct {
		id  int
		set uint64
	}
	var cands []cand
	for _, id := range slices.Sorted(maps.Keys(stacks)) {
		st := stacks[id]
		set, ok := stackSet(st.Purposes, st.SpecialFeatures)
		if ok && bits.OnesCount64(set) >= 2 && set&^target == 0 {
			cands = append(cands, cand{id, set})
		}
	}
	best, bestCovered := []int{}, 0
	var chosen []int
	var walk func(i int, covered uint64)
	walk = func(i int, covered uint64) {
		if i == len(cands) {
			n := bits.OnesCount64(covered)
			if n > bestCovered || n == bestCovered && (len(chosen) < len(best) || len(chosen) == len(best) && slices.Compare(chosen, best) < 0) {
				best, bestCovered = slices.Clone(chosen), n
			}
			return
		}
		if c := cands[i]; c.set&covered == 0 {
			chosen = append(chosen, c.id)
			walk(i+1, covered|c.set)
			chosen = chosen[:len(chosen)-1]
		}
		walk(i+1, covered)
	}
	walk(0, 0)
	return best
}
