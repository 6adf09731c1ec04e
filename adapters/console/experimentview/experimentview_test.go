package experimentview

import (
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core/experiment"
)

// experimentOf is a running experiment of three variants with even splits.
func experimentOf() *experiment.Experiment {
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	return &experiment.Experiment{ID: "0123456789abcdef0123456789abcdef", Name: "Layers", Status: experiment.StatusRunning,
		Metric: experiment.MetricAcceptAllRate, Regions: []string{"EU"}, StartedAt: &start, Variants: []experiment.Variant{
			{Key: "control", Name: "Control", Weight: 34}, {Key: "b", Name: "Reject in the preferences", Weight: 33}, {Key: "c", Name: "C", Weight: 33}}}
}

// days is one day of counts: shown and accept-all per variant key.
func days(e *experiment.Experiment, shown, accepted []int64) []experiment.Day {
	d := experiment.Day{Day: e.StartedAt.Truncate(24 * time.Hour), Variants: map[string]experiment.Counts{}}
	for i, v := range e.Variants {
		d.Variants[experiment.VariantID(e.ID, v.Key)] = experiment.Counts{Shown: shown[i], Decided: accepted[i], AcceptAll: accepted[i]}
	}
	return []experiment.Day{d}
}

// TestBuild: the page says what core's results say: no call and no interval below the
// minimum shown; a sample ratio mismatch as a warning; a challenger called worse in words, the
// interval chart placing its interval left of zero; the level split over two challengers.
func TestBuild(t *testing.T) {
	e := experimentOf()
	from, to := e.StartedAt.Truncate(24*time.Hour), e.StartedAt.Truncate(24*time.Hour).AddDate(0, 0, 1)

	few := Build(e, experiment.Evaluate(e, days(e, []int64{20, 20, 20}, []int64{10, 10, 10}), from, to))
	if !strings.HasPrefix(few.Call, "No call yet") || few.Winner != "" || few.SRM != "" || !strings.Contains(few.Variants[1].Interval, "no interval before 100") {
		t.Errorf("few banners shown: call %q, winner %q, SRM %q, interval %q", few.Call, few.Winner, few.SRM, few.Variants[1].Interval)
	}
	if !strings.Contains(few.Level, "per challenger") || !few.CanStop || few.CanStart || len(few.Promotable) != 3 {
		t.Errorf("level %q, stop %t, start %t, promotable %d", few.Level, few.CanStop, few.CanStart, len(few.Promotable))
	}

	srm := Build(e, experiment.Evaluate(e, days(e, []int64{2000, 1000, 1000}, []int64{1000, 500, 500}), from, to))
	if !strings.HasPrefix(srm.SRM, "Sample ratio mismatch") {
		t.Errorf("a 2:1:1 split shown for 34:33:33: SRM %q", srm.SRM)
	}

	worse := Build(e, experiment.Evaluate(e, days(e, []int64{1000, 1000, 1000}, []int64{600, 300, 590}), from, to))
	if !strings.HasPrefix(worse.Variants[1].Call, "worse") || worse.SRM != "" {
		t.Errorf("30 %% against 60 %%: call %q, SRM %q", worse.Variants[1].Call, worse.SRM)
	}
	row := worse.Diffs.Rows[0]
	if row.Open || row.Class != "worse" || row.X2 >= worse.Diffs.ZeroX || row.Dot >= worse.Diffs.ZeroX || row.X1 < ivLabel {
		t.Errorf("the worse challenger's interval %+v against zero at %d", row, worse.Diffs.ZeroX)
	}
	if !strings.HasPrefix(worse.Call, "No call yet") && worse.Winner == "Reject in the preferences" {
		t.Errorf("a worse challenger named the winner: %q", worse.Call)
	}
}
