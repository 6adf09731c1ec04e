// Package experimentview builds the console's experiments pages (core/experiment): a site's
// experiments, and an experiment's results as data for server-rendered SVG charts, which the
// console's strict CSP allows (no script): the goal rate per variant, each challenger's
// difference from the control with its always-valid confidence interval, the significance call
// and the sample-ratio-mismatch warning, and which of start, stop and promote apply. The
// console (adapters/console) routes to it, checks the forms' CSRF token and renders
// templates/experiments.html and experiment.html; its own package keeps the console under its
// size limit. The statistics are core's (experiment.Evaluate): nothing is computed here but
// the layout and the words.
package experimentview

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/consentd/consentd/adapters/console/analyticsview"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/experiment"
)

// UseCases are the experiments' use cases the pages read and act with (core/experiment's
// Experiments).
type UseCases interface {
	List(ctx context.Context, orgID, siteID string) ([]*experiment.Experiment, error)
	Get(ctx context.Context, orgID, siteID, id string) (*experiment.Experiment, error)
	Results(ctx context.Context, orgID, siteID, id string) (*experiment.Results, error)
	Start(ctx context.Context, orgID, siteID, id string) (*experiment.Experiment, error)
	Stop(ctx context.Context, orgID, siteID, id string) (*experiment.Experiment, error)
	Promote(ctx context.Context, orgID, siteID, id, key string) (*experiment.Experiment, error)
}

var _ UseCases = (*experiment.Experiments)(nil)

// List is the experiments page's data: a site's experiments, newest first as core lists them.
type List struct {
	Rows []Row
}

// Row is one experiment in the list.
type Row struct {
	ID, Name, Status, StatusClass, Metric, Regions, Variants, Dates string
}

// LoadList reads the site's experiments.
func LoadList(ctx context.Context, m UseCases, orgID, siteID string) (*List, error) {
	xs, err := m.List(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	l := &List{}
	for _, e := range xs {
		names := make([]string, len(e.Variants))
		for i, v := range e.Variants {
			names[i] = fmt.Sprintf("%s (%d\u00a0%%)", v.Name, v.Weight)
		}
		l.Rows = append(l.Rows, Row{ID: e.ID, Name: e.Name, Status: StatusName(e.Status), StatusClass: string(e.Status),
			Metric: MetricName(e.Metric), Regions: strings.Join(e.Regions, ", "), Variants: strings.Join(names, ", "), Dates: dates(e)})
	}
	return l, nil
}

// Detail is an experiment's page: what it is, its results and what can be done with it.
type Detail struct {
	Experiment *experiment.Experiment
	Status     string
	Metric     string
	Regions    string
	Dates      string
	Results    *experiment.Results
	Variants   []VariantRow
	// Rates is the goal rate per variant; Diffs each challenger's difference from the control
	// with its confidence interval.
	Rates analyticsview.BarChart
	Diffs IntervalChart
	// Call is the significance call in words; Winner the winning variant's name ("" while none).
	Call, Winner string
	// SRM is the sample-ratio-mismatch warning in words ("" when the split holds).
	SRM string
	// Period is the days the counts cover, in words; Method the sequential test's name and
	// source, Level its significance level in words (split over the challengers).
	Period, Method, Level string
	// CanStart, CanStop: the actions the experiment's status allows; Promotable the variants
	// that can become the banner (any, once it has run).
	CanStart, CanStop bool
	Promotable        []experiment.Variant
}

// VariantRow is one variant's line of the results table.
type VariantRow struct {
	Key, Name, Weight, Rate, Difference, Interval, Call string
	Shown, Conversions                                  int64
	Control                                             bool
}

// LoadDetail reads the experiment and its results.
func LoadDetail(ctx context.Context, m UseCases, orgID, siteID, id string) (*Detail, error) {
	e, err := m.Get(ctx, orgID, siteID, id)
	if err != nil {
		return nil, err
	}
	r, err := m.Results(ctx, orgID, siteID, id)
	if err != nil {
		return nil, err
	}
	return Build(e, r), nil
}

// Build lays out the page of e with its results r.
func Build(e *experiment.Experiment, r *experiment.Results) *Detail {
	d := &Detail{Experiment: e, Results: r, Status: StatusName(e.Status), Metric: MetricName(e.Metric),
		Regions: strings.Join(e.Regions, ", "), Dates: dates(e), Method: r.Method, Level: level(r.Alpha, len(e.Variants)),
		CanStart: e.Status == experiment.StatusDraft, CanStop: e.Status == experiment.StatusRunning}
	if e.Status == experiment.StatusRunning || e.Status == experiment.StatusStopped {
		d.Promotable = e.Variants
	}
	if e.StartedAt != nil {
		d.Period = fmt.Sprintf("%s to %s (UTC days), %s", r.From.Format("2 Jan 2006"), r.To.AddDate(0, 0, -1).Format("2 Jan 2006"), plural(r.Days, "day", "days"))
	}
	cmp := map[string]experiment.Comparison{}
	for _, c := range r.Comparisons {
		cmp[c.Variant] = c
	}
	names := map[string]string{}
	var bars []analyticsview.Bar
	var values []int64
	for i, v := range r.Variants {
		names[v.Key] = v.Name
		row := VariantRow{Key: v.Key, Name: v.Name, Weight: fmt.Sprintf("%d\u00a0%%", v.Weight), Shown: v.Shown, Conversions: v.Conversions,
			Rate: pct(v.Rate, 1), Control: i == 0}
		if i == 0 {
			row.Difference, row.Interval, row.Call = "control", "", "the baseline"
		} else if c, ok := cmp[v.Key]; ok {
			row.Difference = points(c.Difference)
			row.Interval, row.Call = interval(c), callOf(c)
		}
		d.Variants = append(d.Variants, row)
		bars = append(bars, analyticsview.Bar{Label: short(v.Name), Value: pct(v.Rate, 1),
			Title: fmt.Sprintf("%s: %s (%d of %d banners shown)", v.Name, pct(v.Rate, 1), v.Conversions, v.Shown)})
		values = append(values, int64(math.Round(v.Rate*10000)))
	}
	d.Rates = analyticsview.Bars(bars, values)
	d.Diffs = intervals(r.Comparisons, names)
	switch {
	case r.Winner != nil && len(r.Variants) > 0 && *r.Winner == r.Variants[0].Key:
		d.Winner = names[*r.Winner]
		d.Call = "Every challenger does worse than the control: keep " + d.Winner + "."
	case r.Winner != nil:
		d.Winner = names[*r.Winner]
		d.Call = d.Winner + " does better than the control, and the call holds however often you look."
	case e.StartedAt == nil:
		d.Call = "Not started: start it to show its variants."
	default:
		d.Call = fmt.Sprintf("No call yet: no variant differs from the control at the %s (each needs %d banners shown first).", d.Level, experiment.MinShown)
	}
	if r.SampleRatio.Mismatch {
		d.SRM = fmt.Sprintf("Sample ratio mismatch: the banners shown per variant do not match the split (chi-square %.1f, p = %.2g). "+
			"The assignment or the counting is broken; do not trust these results until it is found.", r.SampleRatio.ChiSquare, r.SampleRatio.PValue)
	}
	return d
}

// IntervalChart draws each challenger's difference from the control, its interval as a line
// and its estimate as a dot, around a line at zero.
type IntervalChart struct {
	Width, Height int
	ZeroX, Top    int
	Bottom        int
	Rows          []IntervalRow
	Ticks         []analyticsview.Tick
	Empty         bool
}

// IntervalRow is one challenger's line.
type IntervalRow struct {
	Label, Title, Value string
	Y, TextY            int
	X1, X2, Dot         int
	Class               string
	Open                bool // no interval yet (too few banners shown): the dot alone
}

// The interval chart's layout (user units): a narrow drawing, so that its text reads on a phone.
const (
	ivW, ivLabel, ivRight, ivRow = 440, 130, 430, 40
)

func intervals(cs []experiment.Comparison, names map[string]string) IntervalChart {
	c := IntervalChart{Width: ivW, Empty: len(cs) == 0}
	span := 0.05 // at least ±5 points
	for _, x := range cs {
		span = max(span, math.Abs(x.Difference))
		if x.Lower != nil && x.Upper != nil {
			span = max(span, math.Abs(*x.Lower), math.Abs(*x.Upper))
		}
	}
	span = math.Ceil(span*20) / 20 // to 5 points
	left, right := ivLabel, ivRight
	c.ZeroX = (left + right) / 2
	x := func(v float64) int { return c.ZeroX + int(math.Round(v/span*float64(right-left)/2)) }
	c.Top = 8
	for i, cm := range cs {
		row := IntervalRow{Label: short(names[cm.Variant]), Y: c.Top + i*ivRow + ivRow/2, Dot: x(cm.Difference), Class: "neutral"}
		row.TextY = row.Y + 5
		row.Value = points(cm.Difference)
		if cm.Lower != nil && cm.Upper != nil {
			row.X1, row.X2 = x(*cm.Lower), x(*cm.Upper)
		} else {
			row.Open = true
		}
		if cm.Significant {
			row.Class = map[bool]string{true: "better", false: "worse"}[cm.Difference > 0]
		}
		row.Title = fmt.Sprintf("%s: %s against the control, %s; %s", names[cm.Variant], points(cm.Difference), interval(cm), callOf(cm))
		c.Rows = append(c.Rows, row)
	}
	c.Bottom = c.Top + len(cs)*ivRow
	c.Height = c.Bottom + 30
	for _, v := range []float64{-span, 0, span} {
		anchor := map[float64]string{-span: "start", 0: "middle", span: "end"}[v]
		c.Ticks = append(c.Ticks, analyticsview.Tick{X: x(v), Y: c.Bottom + 22, Label: points(v), Anchor: anchor})
	}
	return c
}

// level is the significance level of each comparison in words: alpha, split over the
// challengers of a test of k variants (Bonferroni, as experiment.Evaluate does).
func level(alpha float64, k int) string {
	if k <= 2 {
		return pct(alpha, 0) + " level"
	}
	return fmt.Sprintf("%s level (%s per challenger)", pct(alpha, 0), pct(alpha/float64(k-1), 1))
}

// interval is a comparison's confidence interval in words.
func interval(c experiment.Comparison) string {
	if c.Lower == nil || c.Upper == nil {
		return fmt.Sprintf("no interval before %d banners shown per variant", experiment.MinShown)
	}
	return points(*c.Lower) + " to " + points(*c.Upper)
}

// callOf is a comparison's call in words.
func callOf(c experiment.Comparison) string {
	switch {
	case c.Significant && c.Difference > 0:
		return "better (p = " + fmt.Sprintf("%.2g", c.PValue) + ")"
	case c.Significant:
		return "worse (p = " + fmt.Sprintf("%.2g", c.PValue) + ")"
	default:
		return "not called (p = " + fmt.Sprintf("%.2g", c.PValue) + ")"
	}
}

// StatusName is a status in words.
func StatusName(s experiment.Status) string {
	switch s {
	case experiment.StatusDraft:
		return "Draft"
	case experiment.StatusRunning:
		return "Running"
	case experiment.StatusStopped:
		return "Stopped"
	case experiment.StatusPromoted:
		return "Promoted"
	}
	return string(s)
}

// MetricName is a goal metric in words.
func MetricName(m string) string {
	switch m {
	case experiment.MetricConsentRate:
		return "Consent rate (decisions per banner shown)"
	case experiment.MetricAcceptAllRate:
		return "Accept-all rate (accept all per banner shown)"
	}
	return m
}

func dates(e *experiment.Experiment) string {
	switch {
	case e.StartedAt == nil:
		return "Created " + e.CreatedAt.UTC().Format("2 Jan 2006")
	case e.StoppedAt == nil:
		return "Running since " + e.StartedAt.UTC().Format("2 Jan 2006")
	default:
		return "Ran " + e.StartedAt.UTC().Format("2 Jan 2006") + " to " + e.StoppedAt.UTC().Format("2 Jan 2006")
	}
}

// pct is a rate in percent with digits decimals.
func pct(f float64, digits int) string { return fmt.Sprintf("%.*f\u00a0%%", digits, 100*f) }

// points is a difference of rates in percentage points, signed.
func points(f float64) string {
	v := math.Round(f*1000) / 10
	if v == 0 {
		return "0\u00a0pt"
	}
	return fmt.Sprintf("%+.1f\u00a0pt", v)
}

// short is a label cut to fit a chart's label column (the full name is in the title and table).
func short(s string) string {
	r := []rune(s)
	if len(r) <= 14 {
		return s
	}
	return string(r[:13]) + "…"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Action runs the action named by a form (start, stop, promote with key) on the experiment and
// returns the notice to show.
func Action(ctx context.Context, m UseCases, orgID, siteID, id, action, key string) (string, error) {
	var e *experiment.Experiment
	var err error
	switch action {
	case "start":
		if e, err = m.Start(ctx, orgID, siteID, id); err == nil {
			return "“" + e.Name + "” started: visitors in its regions now see its variants.", nil
		}
	case "stop":
		if e, err = m.Stop(ctx, orgID, siteID, id); err == nil {
			return "“" + e.Name + "” stopped: visitors see the banner again; its results stay.", nil
		}
	case "promote":
		if e, err = m.Promote(ctx, orgID, siteID, id, key); err == nil {
			name := key
			if v, ok := e.Variant(key); ok {
				name = v.Name
			}
			return "“" + name + "” is now the banner; the experiment is over.", nil
		}
	default:
		return "", core.Errorf(core.CodeNotFound, "no such action on an experiment: %q", action)
	}
	return "", err
}
