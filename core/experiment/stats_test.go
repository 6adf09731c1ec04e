package experiment

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The reference values were computed independently of this package, with Python's math module
// (no numpy), from the formulas of Johari, Pekelis and Walsh and Pearson's chi-square:
//
//	V = .6*.4/1000 + .65*.35/1000; d = .05; t = .0025; a = .05
//	L = sqrt(V/(V+t)) * exp(t*d*d/(2*V*(V+t)))            # 3.7754852254763867
//	h = sqrt(V*(V+t)/t*(log((V+t)/V) - 2*log(a)))          # d-h, d+h below
//	x = 2*50**2/1050; erfc(sqrt(x/2))                     # chi-square 1 df survival
//	x2 = (0+100**2+100**2)/1000; exp(-x2/2)                # chi-square 2 df survival
func TestStatisticsAgainstReference(t *testing.T) {
	t.Parallel()
	close := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %.15g, want %.15g", name, got, want)
		}
	}
	c := Compare("b", [][2]Arm{{{Shown: 1000, Conversions: 600}, {Shown: 1000, Conversions: 650}}}, Alpha)
	close("p-value", c.PValue, 0.2648666172104596)
	close("lower", *c.Lower, -0.015957086927212163)
	close("upper", *c.Upper, 0.11595708692721217)
	close("difference", c.Difference, 0.05)
	if c.Significant {
		t.Error("p 0.26 called significant")
	}
	// A fixed-horizon z-test would call this difference (z = 2.31); the sequential test does
	// not, which is the price of reading every day.
	s := CheckSampleRatio([]int64{1000, 1100}, []int{50, 50})
	close("chi-square", s.ChiSquare, 4.761904761904762)
	close("srm p", s.PValue, 0.02909633174125221)
	if s.Mismatch {
		t.Error("p 0.029 called a mismatch at 0.001")
	}
	s = CheckSampleRatio([]int64{1000, 1100, 900}, []int{34, 33, 33})
	if s.ChiSquare < 19 || s.ChiSquare > 21 {
		t.Errorf("3-way chi-square %v", s.ChiSquare)
	}
	s = CheckSampleRatio([]int64{1000, 1100, 900}, []int{1, 1, 1})
	close("chi-square 2df", s.ChiSquare, 20)
	close("srm p 2df", s.PValue, 4.5399929762484854e-05)
	if !s.Mismatch {
		t.Error("p 4.5e-5 not called a mismatch")
	}
}

// TestCompareRunningMinimum: the p-value is the minimum over the looks, the interval their
// intersection; a later look with less evidence changes neither.
func TestCompareRunningMinimum(t *testing.T) {
	t.Parallel()
	strong := [2]Arm{{Shown: 2000, Conversions: 1000}, {Shown: 2000, Conversions: 1200}}
	weak := [2]Arm{{Shown: 4000, Conversions: 2000}, {Shown: 4000, Conversions: 2350}}
	one := Compare("b", [][2]Arm{strong}, Alpha)
	both := Compare("b", [][2]Arm{strong, weak}, Alpha)
	if !one.Significant || !both.Significant || both.PValue > one.PValue {
		t.Errorf("running minimum lost: %+v then %+v", one, both)
	}
	if *both.Lower < *one.Lower || *both.Upper > *one.Upper {
		t.Errorf("interval widened: %+v then %+v", one, both)
	}
	few := Compare("b", [][2]Arm{{{Shown: 99, Conversions: 10}, {Shown: 99, Conversions: 90}}}, Alpha)
	if few.Significant || few.PValue != 1 || few.Lower != nil || few.Upper != nil {
		t.Errorf("a call below MinShown: %+v", few)
	}
}

// TestAAExperimentFalseWinners: 200 simulated A/A experiments (both arms the same 60 %
// consent rate), 50/50, 400 banners a day, read every day for 60 days: the sequential test
// calls a winner on some day in at most 5 % of them. A fixed-horizon test read daily would
// call one in about a quarter.
func TestAAExperimentFalseWinners(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(46, 2))
	const runs, days, perDay, p = 200, 60, 400, 0.6
	called := 0
	for range runs {
		var cum [2]Arm
		looks := make([][2]Arm, 0, days)
		for range days {
			for range perDay {
				arm := rng.IntN(2)
				cum[arm].Shown++
				if rng.Float64() < p {
					cum[arm].Conversions++
				}
			}
			looks = append(looks, cum)
			if Compare("b", looks, Alpha).Significant {
				called++
				break
			}
		}
	}
	t.Logf("%d of %d A/A experiments called a winner", called, runs)
	if called > runs*5/100 {
		t.Errorf("%d of %d A/A experiments called a winner, at most %d allowed", called, runs, runs*5/100)
	}
}

// TestABExperimentFindsEffect: the test is not merely silent: a real five-point difference is
// called within the 60 days in most runs.
func TestABExperimentFindsEffect(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(46, 3))
	const runs, days, perDay = 50, 60, 400
	found := 0
	for range runs {
		var cum [2]Arm
		looks := make([][2]Arm, 0, days)
		for range days {
			for range perDay {
				arm := rng.IntN(2)
				cum[arm].Shown++
				if rng.Float64() < 0.55+0.05*float64(arm) {
					cum[arm].Conversions++
				}
			}
			looks = append(looks, cum)
		}
		if c := Compare("b", looks, Alpha); c.Significant && c.Difference > 0 && *c.Lower > 0 {
			found++
		}
	}
	if found < runs*8/10 {
		t.Errorf("a five-point effect called in %d of %d runs", found, runs)
	}
}
