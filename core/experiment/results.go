package experiment

import (
	"context"
	"time"

	"github.com/consentd/consentd/core"
)

// Results are an experiment's figures per variant and the calls made on them.
type Results struct {
	ExperimentID string `json:"experimentId"`
	Metric       string `json:"metric"`
	// From and To bound the counts: the day the experiment started to the day it stopped (or
	// today), UTC days.
	From     time.Time       `json:"from"`
	To       time.Time       `json:"to"`
	Variants []VariantResult `json:"variants"`
	// Comparisons compare each challenger with the control (the first variant).
	Comparisons []Comparison `json:"comparisons"`
	SampleRatio SampleRatio  `json:"sampleRatio"`
	// Winner is the best variant the sequential test calls better than the control (the
	// control itself when every challenger is called worse), nil while none is called.
	Winner *string `json:"winner"`
	// Method names the test and its source; Alpha is its level.
	Method string  `json:"method"`
	Alpha  float64 `json:"alpha"`
	// Days are the looks the sequential test was evaluated at.
	Days int `json:"days"`
}

// VariantResult is one variant's figures.
type VariantResult struct {
	Key    string `json:"key"`
	Name   string `json:"name"`
	Weight int    `json:"weight"`
	// ID is the variant's ID in the consent records and the analytics (VariantID).
	ID string `json:"id"`
	Counts
	// Rate is the goal metric; Conversions its numerator.
	Conversions int64   `json:"conversions"`
	Rate        float64 `json:"rate"`
}

// Method is the name and source of the sequential test.
const Method = "mixture sequential probability ratio test (mSPRT), always-valid p-values and confidence intervals: Johari, Pekelis, Walsh, \"Always Valid Inference\" (2015, arXiv:1512.04922; KDD 2017 \"Peeking at A/B Tests\")"

// conversions is the goal metric's numerator.
func conversions(metric string, c Counts) int64 {
	if metric == MetricAcceptAllRate {
		return c.AcceptAll
	}
	return c.Decided
}

// Results computes the experiment's results from the analytics' daily counts, the sequential
// test evaluated at the end of every day since it started (so that the call stays valid
// however often it is read).
func (x *Experiments) Results(ctx context.Context, orgID, siteID, id string) (*Results, error) {
	e, err := x.Get(ctx, orgID, siteID, id)
	if err != nil {
		return nil, err
	}
	if x.Counter == nil {
		return nil, core.Errorf(core.CodeInternal, "no analytics to read an experiment's counts from")
	}
	now := x.Clock.Now().UTC()
	from, to := now, now
	if e.StartedAt != nil {
		from = *e.StartedAt
	}
	if e.StoppedAt != nil {
		to = *e.StoppedAt
	}
	from = from.UTC().Truncate(24 * time.Hour)
	to = to.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	ids := make([]string, len(e.Variants))
	for i, v := range e.Variants {
		ids[i] = VariantID(e.ID, v.Key)
	}
	var days []Day
	if e.StartedAt != nil {
		if days, err = x.Counter.ExperimentDays(ctx, siteID, from, to, ids); err != nil {
			return nil, err
		}
	}
	return Evaluate(e, days, from, to), nil
}

// Evaluate computes the results of e from its daily counts (in day order).
func Evaluate(e *Experiment, days []Day, from, to time.Time) *Results {
	r := &Results{ExperimentID: e.ID, Metric: e.Metric, From: from, To: to, Method: Method, Alpha: Alpha, Days: len(days),
		Comparisons: []Comparison{}}
	k := len(e.Variants)
	cum := make([]Counts, k)
	looks := make([][]Arm, 0, len(days))
	for _, d := range days {
		look := make([]Arm, k)
		for i, v := range e.Variants {
			cum[i].Add(d.Variants[VariantID(e.ID, v.Key)])
			look[i] = Arm{Shown: cum[i].Shown, Conversions: conversions(e.Metric, cum[i])}
		}
		looks = append(looks, look)
	}
	shown := make([]int64, k)
	weights := make([]int, k)
	for i, v := range e.Variants {
		c := conversions(e.Metric, cum[i])
		vr := VariantResult{Key: v.Key, Name: v.Name, Weight: v.Weight, ID: VariantID(e.ID, v.Key), Counts: cum[i], Conversions: c}
		vr.Rate = Arm{Shown: cum[i].Shown, Conversions: c}.Rate()
		r.Variants = append(r.Variants, vr)
		shown[i], weights[i] = cum[i].Shown, v.Weight
	}
	r.SampleRatio = CheckSampleRatio(shown, weights)
	alpha := Alpha / float64(k-1) // Bonferroni over the challengers
	best, bestDiff, allWorse := "", 0.0, k > 1
	for i := 1; i < k; i++ {
		pairs := make([][2]Arm, len(looks))
		for j, l := range looks {
			pairs[j] = [2]Arm{l[0], l[i]}
		}
		c := Compare(e.Variants[i].Key, pairs, alpha)
		r.Comparisons = append(r.Comparisons, c)
		if c.Significant && c.Difference > bestDiff {
			best, bestDiff = c.Variant, c.Difference
		}
		allWorse = allWorse && c.Significant && c.Difference < 0
	}
	switch {
	case best != "":
		r.Winner = &best
	case allWorse:
		ctl := e.Variants[0].Key
		r.Winner = &ctl
	}
	return r
}
