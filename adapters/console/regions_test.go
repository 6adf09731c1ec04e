package console

import (
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// TestEditRules: the regional rules' buttons change the draft, and a button the page never
// shows (a rule out of range, an unknown preset, moving the first rule up) is a validation
// error, not a panic or a silent change.
func TestEditRules(t *testing.T) {
	t.Parallel()
	f := bannerForm{}
	if _, err := f.editRules("preset." + banner.PresetGDPRUSLaws); err != nil || len(f.Rules) != len(banner.RegionPresets()[0].RegionRules) {
		t.Fatalf("preset: %v %+v", err, f.Rules)
	}
	first := f.Rules[0]
	if _, err := f.editRules("down.0"); err != nil || f.Rules[1] != first {
		t.Fatalf("down.0: %v", err)
	}
	if _, err := f.editRules("add"); err != nil || len(f.Rules) != 5 || f.Rules[4].DefaultBehavior != banner.BehaviorOptIn {
		t.Fatalf("add: %v %+v", err, f.Rules)
	}
	if _, err := f.editRules("remove.4"); err != nil || len(f.Rules) != 4 {
		t.Fatalf("remove.4: %v", err)
	}
	for _, bad := range []string{"up.0", "down.3", "remove.4", "remove.-1", "remove.x", "preset.nope", "swap.1", ""} {
		before := len(f.Rules)
		if _, err := f.editRules(bad); core.ErrorCode(err) != core.CodeInvalid || len(f.Rules) != before {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// What the form saves is what core validates: the preset's rules, unchanged.
	f = bannerForm{}
	f.editRules("preset." + banner.PresetGDPRUSLaws)
	got, err := banner.RegionRulesOf(f.inputs())
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range banner.RegionPresets()[0].RegionRules {
		if g := got[i]; g.DefaultBehavior != r.DefaultBehavior || len(g.Regions) != len(r.Regions) || g.HonorGPC != r.HonorGPC ||
			g.DoNotSellLink != r.DoNotSellLink || g.RejectOnFirstLayer != r.RejectOnFirstLayer {
			t.Errorf("rule %d: %+v, want %+v", i, g, r)
		}
	}
}

// TestRuleError: core's errors naming a rule are put beside it, in words, read from the field
// path the error carries.
func TestRuleError(t *testing.T) {
	t.Parallel()
	for in, want := range map[[2]string][2]string{
		{"regionRules[1].regions[0]", "unknown region code \"XX\""}:   {"rule-1", "Rule 2, region 1: unknown region code \"XX\"."},
		{"regionRules[0].regions", "must list 1 to 300 region codes"}: {"rule-0", "Rule 1: the regions must list 1 to 300 region codes."},
		{"regionRules[12].defaultBehavior", "must be one of [a b]"}:   {"rule-12", "Rule 13: the behaviour must be one of [a b]."},
		{"regionRules", "must have at most 50 rules"}:                 {"", ""},
		{"regionRules[1].regions[0]x", "trailing"}:                    {"", ""},
		{"colors.primary", "unknown key or empty value"}:              {"", ""},
	} {
		form, msg := ruleError(core.FieldErrorf(in[0], "%s", in[1]))
		if form != want[0] || msg != want[1] {
			t.Errorf("%s: %q %q", in, form, msg)
		}
	}
	// The message alone names no field: a rule's error is read from its path, not its text.
	if form, _ := ruleError(core.Errorf(core.CodeInvalid, "regionRules[1].regions[0]: unknown region code \"XX\"")); form != "" {
		t.Errorf("an error without a field path was read from its text: %q", form)
	}
}
