package experiment

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The statistics of an experiment's results (docs/experiments.md):
//
//   - Each variant is compared with the control (the first variant) by the mixture sequential
//     probability ratio test of Johari, Pekelis and Walsh ("Always Valid Inference: Bringing
//     Sequential Analysis to A/B Testing", arXiv:1512.04922, 2015; KDD 2017 "Peeking at A/B
//     Tests: Why it matters, and what to do about it"), for the difference of two proportions
//     under the normal approximation: with θ̂ the difference of the rates and V its estimated
//     variance, the mixture (over θ ~ N(0, τ²)) likelihood ratio is
//
//     Λ = sqrt(V/(V+τ²)) · exp(τ²θ̂² / (2V(V+τ²)))
//
//     and the always-valid p-value after n looks is min(1, 1/max Λ over the looks). A call made
//     when that p-value falls below α holds with probability at least 1-α however often and
//     whenever the results are read, since the process is evaluated at every look (every day of
//     the experiment), not only at the one the owner happens to read. The always-valid
//     confidence interval is the set of differences the test does not reject,
//
//     θ̂ ± sqrt(V(V+τ²)/τ² · (log((V+τ²)/V) − 2 log α)),
//
//     intersected over the looks.
//   - With more than one challenger, each comparison runs at α/(k−1) (Bonferroni).
//   - The sample-ratio-mismatch check is Pearson's chi-square test of the banners shown per
//     variant against the split; p below SRMAlpha is a mismatch (the assignment or the counting
//     is broken, and the results are not to be trusted).

// Statistical settings.
const (
	// Alpha is the significance level of a call.
	Alpha = 0.05
	// Tau2 is the variance of the mixing distribution of the effect: differences of about five
	// percentage points (τ = 0.05) are what banner wording changes (Johari et al. advise τ near
	// the effects expected).
	Tau2 = 0.05 * 0.05
	// MinShown is the fewest banners shown per variant before any call is made: the normal
	// approximation of the test needs it.
	MinShown = 100
	// SRMAlpha is the p-value below which the split is called broken (the usual 0.001).
	SRMAlpha = 0.001
)

// Arm is a variant's counts at one look: banners shown (trials) and goal conversions.
type Arm struct {
	Shown       int64 `json:"shown"`
	Conversions int64 `json:"conversions"`
}

// Rate is the conversion rate (0 when nothing was shown).
func (a Arm) Rate() float64 {
	if a.Shown == 0 {
		return 0
	}
	return float64(a.Conversions) / float64(a.Shown)
}

// Comparison is a challenger against the control.
type Comparison struct {
	Variant string `json:"variant"`
	// Difference is the challenger's rate minus the control's; Lower and Upper bound it
	// (the always-valid interval at level 1-α of the comparison).
	Difference float64 `json:"difference"`
	// Lower and Upper are null until a look has MinShown banners per arm.
	Lower *float64 `json:"lower"`
	Upper *float64 `json:"upper"`
	// PValue is the always-valid p-value (1 until the first look with MinShown per arm).
	PValue float64 `json:"pValue"`
	// Significant is whether PValue is below the comparison's α: the challenger is better
	// (Difference > 0) or worse than the control.
	Significant bool `json:"significant"`
}

// mixtureLR is the mSPRT's Λ for difference d with variance v.
func mixtureLR(d, v, tau2 float64) float64 {
	return math.Sqrt(v/(v+tau2)) * math.Exp(tau2*d*d/(2*v*(v+tau2)))
}

// halfWidth is the half width of the always-valid interval at level alpha.
func halfWidth(v, tau2, alpha float64) float64 {
	return math.Sqrt(v * (v + tau2) / tau2 * (math.Log((v+tau2)/v) - 2*math.Log(alpha)))
}

// Compare runs the sequential test of challenger against control over their cumulative counts
// at each look (looks[i][0] the control's, looks[i][1] the challenger's, in time order) at
// level alpha.
func Compare(key string, looks [][2]Arm, alpha float64) Comparison {
	c := Comparison{Variant: key, PValue: 1}
	lo, hi := math.Inf(-1), math.Inf(1)
	lastLo, lastHi := lo, hi
	looked := false
	for _, l := range looks {
		a, b := l[0], l[1]
		if a.Shown < MinShown || b.Shown < MinShown {
			continue
		}
		pa, pb := a.Rate(), b.Rate()
		v := pa*(1-pa)/float64(a.Shown) + pb*(1-pb)/float64(b.Shown)
		if v <= 0 {
			continue // no variation yet: no evidence either way
		}
		d := pb - pa
		c.PValue = math.Min(c.PValue, 1/mixtureLR(d, v, Tau2))
		h := halfWidth(v, Tau2, alpha)
		lastLo, lastHi = d-h, d+h
		lo, hi, looked = math.Max(lo, lastLo), math.Min(hi, lastHi), true
	}
	if n := len(looks); n > 0 {
		last := looks[n-1]
		c.Difference = last[1].Rate() - last[0].Rate()
	}
	c.Significant = c.PValue < alpha
	if lo > hi { // the intersection emptied (an event of probability below α): keep the last look's
		lo, hi = lastLo, lastHi
	}
	if looked {
		c.Lower, c.Upper = &lo, &hi
	}
	return c
}

// SampleRatio is the sample-ratio-mismatch check of the split.
type SampleRatio struct {
	ChiSquare float64 `json:"chiSquare"`
	PValue    float64 `json:"pValue"`
	// Mismatch is PValue < SRMAlpha: the variants were not shown in the shares of the split.
	Mismatch bool `json:"mismatch"`
}

// CheckSampleRatio tests shown (the banners shown per variant) against weights (their shares).
func CheckSampleRatio(shown []int64, weights []int) SampleRatio {
	var total, wsum float64
	for i := range shown {
		total += float64(shown[i])
		wsum += float64(weights[i])
	}
	out := SampleRatio{PValue: 1}
	if total == 0 || len(shown) < 2 {
		return out
	}
	for i := range shown {
		exp := total * float64(weights[i]) / wsum
		d := float64(shown[i]) - exp
		out.ChiSquare += d * d / exp
	}
	out.PValue = distuv.ChiSquared{K: float64(len(shown) - 1)}.Survival(out.ChiSquare)
	out.Mismatch = out.PValue < SRMAlpha
	return out
}
