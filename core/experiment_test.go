package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/experiment"
	"github.com/consentd/consentd/core/identity"
)

// withRegionRules gives the site the preset "GDPR in Europe, US state laws, nothing
// elsewhere": opt-in with reject on the first layer in Europe, opt-out in the United States.
func withRegionRules(t *testing.T, m *testCore, org, siteID string) {
	t.Helper()
	var in []banner.RegionRuleInput
	for _, r := range banner.RegionPresets()[0].RegionRules {
		in = append(in, banner.RegionRuleInput{Regions: r.Regions, DefaultBehavior: r.DefaultBehavior, HonorGPC: ptr(r.HonorGPC),
			DoNotSellLink: ptr(r.DoNotSellLink), RejectOnFirstLayer: ptr(r.RejectOnFirstLayer)})
	}
	if _, err := m.Banners.PatchBanner(ctx, org, siteID, banner.BannerPatch{RegionRules: &in}); err != nil {
		t.Fatal(err)
	}
}

func noRejectDraft(regions ...string) experiment.Draft {
	return experiment.Draft{Name: "Reject in the preferences", Metric: experiment.MetricAcceptAllRate, Regions: regions,
		Variants: []experiment.Variant{
			{Key: "control", Weight: 50},
			{Key: "second-layer", Weight: 50, Patch: experiment.Patch{RejectOnFirstLayer: ptr(false)}},
		}}
}

// TestExperimentGuardrail: a variant without "Reject all" on the first layer cannot start where
// an opt-in rule in Europe applies (400 naming consent.region-europe-opt-in), and may run
// where no rule requires it (the United States under an opt-out rule).
func TestExperimentGuardrail(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	withRegionRules(t, m, org, s.ID)
	for _, regions := range [][]string{{"EU"}, {"FR", "US"}, {}} {
		e, err := m.Experiments.Create(ctx, org, s.ID, noRejectDraft(regions...))
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Experiments.Start(ctx, org, s.ID, e.ID)
		wantCode(t, err, core.CodeInvalid)
		if msg := err.Error(); !strings.Contains(msg, "consent.region-europe-opt-in") || !strings.Contains(msg, "second-layer") ||
			!strings.Contains(msg, "cannot run in "+regions0(regions)) || strings.Contains(msg, "US-CA") {
			t.Fatalf("regions %v: %v; want the rule, the variant and the European places named", regions, msg)
		}
		if core.ErrorField(err) != "variants[1].patch" {
			t.Fatalf("field %q", core.ErrorField(err))
		}
	}
	e, err := m.Experiments.Create(ctx, org, s.ID, noRejectDraft("US"))
	if err != nil {
		t.Fatal(err)
	}
	if e, err = m.Experiments.Start(ctx, org, s.ID, e.ID); err != nil || e.Status != experiment.StatusRunning {
		t.Fatalf("the same variant in the United States: %+v %v", e, err)
	}
	if !e.Runs(core.Location{Country: "US", Region: "US-CA"}) || e.Runs(core.Location{Country: "FR"}) {
		t.Fatal("the experiment's places are not the regional rules' places")
	}
	// A text-only variant runs in Europe too.
	text, err := m.Experiments.Create(ctx, org, s.ID, experiment.Draft{Name: "Headline", Metric: experiment.MetricConsentRate, Regions: []string{"EU"},
		Variants: []experiment.Variant{{Key: "a", Weight: 50}, {Key: "b", Weight: 50, Patch: experiment.Patch{TextOverrides: map[string]string{"headline": "Your choice"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Experiments.Start(ctx, org, s.ID, text.ID)
	wantCode(t, err, core.CodeConflict) // one experiment at a time per site
	if _, err := m.Experiments.Stop(ctx, org, s.ID, e.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Experiments.Start(ctx, org, s.ID, text.ID); err != nil {
		t.Fatal(err)
	}
}

// TestExperimentLifecycle: checks of a draft (the banner's own checks on each patch), the
// transitions, promotion into the banner, and the audit entries of each.
func TestExperimentLifecycle(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	bad := []struct {
		d     experiment.Draft
		field string
	}{
		{experiment.Draft{Name: "", Metric: experiment.MetricConsentRate, Variants: noRejectDraft().Variants}, "name"},
		{experiment.Draft{Name: "x", Metric: "clicks", Variants: noRejectDraft().Variants}, "metric"},
		{experiment.Draft{Name: "x", Metric: experiment.MetricConsentRate, Variants: noRejectDraft().Variants[:1]}, "variants"},
		{experiment.Draft{Name: "x", Metric: experiment.MetricConsentRate, Regions: []string{"XX"}, Variants: noRejectDraft().Variants}, "regions[0]"},
		{experiment.Draft{Name: "x", Metric: experiment.MetricConsentRate, Variants: []experiment.Variant{{Key: "a", Weight: 50}, {Key: "a", Weight: 50}}}, "variants[1].key"},
		{experiment.Draft{Name: "x", Metric: experiment.MetricConsentRate, Variants: []experiment.Variant{{Key: "A", Weight: 50}, {Key: "b", Weight: 50}}}, "variants[0].key"},
		{experiment.Draft{Name: "x", Metric: experiment.MetricConsentRate, Variants: []experiment.Variant{{Key: "a", Weight: 50}, {Key: "b", Weight: 40}}}, "variants"},
		{experiment.Draft{Name: "x", Metric: experiment.MetricConsentRate, Variants: []experiment.Variant{{Key: "a", Weight: 50},
			{Key: "b", Weight: 50, Patch: experiment.Patch{Template: ptr("popup")}}}}, "variants[1].patch.template"},
		{experiment.Draft{Name: "x", Metric: experiment.MetricConsentRate, Variants: []experiment.Variant{{Key: "a", Weight: 50},
			{Key: "b", Weight: 50, Patch: experiment.Patch{TextOverrides: map[string]string{"title": "x"}}}}}, "variants[1].patch.textOverrides.title"},
	}
	for _, c := range bad {
		_, err := m.Experiments.Create(ctx, org, s.ID, c.d)
		wantCode(t, err, core.CodeInvalid)
		if got := core.ErrorField(err); got != c.field {
			t.Errorf("draft %+v: field %q, want %q (%v)", c.d, got, c.field, err)
		}
	}
	other, _ := mustSite(t, m)
	d := experiment.Draft{Name: "Modal", Metric: experiment.MetricConsentRate, Variants: []experiment.Variant{{Key: "floating", Weight: 50},
		{Key: "modal", Name: "Modal", Weight: 50, Patch: experiment.Patch{Template: ptr("modal"), TextOverrides: map[string]string{"acceptLabel": "OK"}}}}}
	_, err := m.Experiments.Create(ctx, other, s.ID, d)
	wantCode(t, err, core.CodeNotFound) // another organization's site
	e, err := m.Experiments.Create(ctx, org, s.ID, d)
	if err != nil || e.Status != experiment.StatusDraft || e.Variants[0].Name != "floating" {
		t.Fatalf("create: %+v %v", e, err)
	}
	if _, err := m.Experiments.Get(ctx, other, s.ID, e.ID); core.ErrorCode(err) != core.CodeNotFound {
		t.Fatalf("another organization reads it: %v", err)
	}
	_, err = m.Experiments.Promote(ctx, org, s.ID, e.ID, "modal")
	wantCode(t, err, core.CodeConflict) // a draft is not promoted
	_, err = m.Experiments.Stop(ctx, org, s.ID, e.ID)
	wantCode(t, err, core.CodeConflict)
	if e, err = m.Experiments.Start(ctx, org, s.ID, e.ID); err != nil || e.StartedAt == nil {
		t.Fatalf("start: %+v %v", e, err)
	}
	_, err = m.Experiments.Promote(ctx, org, s.ID, e.ID, "nope")
	wantCode(t, err, core.CodeInvalid)
	if e, err = m.Experiments.Promote(ctx, org, s.ID, e.ID, "modal"); err != nil || e.Status != experiment.StatusPromoted || *e.Winner != "modal" || e.StoppedAt == nil {
		t.Fatalf("promote: %+v %v", e, err)
	}
	b, err := m.Banners.Banner(ctx, org, s.ID)
	if err != nil || b.Template != "modal" || b.TextOverrides["acceptLabel"] != "OK" {
		t.Fatalf("the banner after promotion: %+v %v", b, err)
	}
	list, err := m.Experiments.List(ctx, org, s.ID)
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %v %v", list, err)
	}
	p, err := m.AuditLog.AuditEntries(ctx, org, identity.AuditQuery{SiteID: s.ID}, "")
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, en := range p.Entries {
		actions = append(actions, en.Action)
	}
	all := strings.Join(actions, " ")
	for _, a := range []string{core.AuditExperimentCreate, core.AuditExperimentStart, core.AuditExperimentPromote, core.AuditBannerUpdate} {
		if !strings.Contains(all, a) {
			t.Errorf("audit log %v lacks %s", actions, a)
		}
	}
}

// TestExperimentEvaluate: the results add the days up per variant, use the goal metric, and
// call the variant the sequential test finds better.
func TestExperimentEvaluate(t *testing.T) {
	t.Parallel()
	e := &experiment.Experiment{ID: "00000000-0000-7000-8000-000000000001", Metric: experiment.MetricAcceptAllRate,
		Variants: []experiment.Variant{{Key: "a", Weight: 50}, {Key: "b", Weight: 50}}}
	a, b := experiment.VariantID(e.ID, "a"), experiment.VariantID(e.ID, "b")
	if a != "00000000000070008000000000000001_a" || len(a) > 64 {
		t.Fatalf("variant ID %q", a)
	}
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var days []experiment.Day
	for i := range 10 {
		days = append(days, experiment.Day{Day: day.AddDate(0, 0, i), Variants: map[string]experiment.Counts{
			a: {Shown: 500, Decided: 400, AcceptAll: 250, RejectAll: 150},
			b: {Shown: 500, Decided: 420, AcceptAll: 320, RejectAll: 100},
		}})
	}
	r := experiment.Evaluate(e, days, day, day.AddDate(0, 0, 10))
	if r.Variants[0].Shown != 5000 || r.Variants[1].Conversions != 3200 || r.Variants[1].Rate != 0.64 {
		t.Fatalf("variants %+v", r.Variants)
	}
	if r.Winner == nil || *r.Winner != "b" || !r.Comparisons[0].Significant || r.SampleRatio.Mismatch || r.Days != 10 {
		t.Fatalf("results %+v", r)
	}
}

// regions0 is the first European place a guardrail names for regions.
func regions0(regions []string) string {
	if len(regions) > 0 && regions[0] == "FR" {
		return "FR"
	}
	return "AT"
}
