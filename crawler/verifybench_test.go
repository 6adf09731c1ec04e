package crawler

import (
	"testing"

	"github.com/consentd/consentd/library/librarytest"
)

// BenchmarkVerify verifies the recorded 10-page clean site (testdata/verify/clean) with one
// browser: no_decision, reject_all, accept_all and withdrawn, 40 page loads plus the three
// decisions. It reports seconds per verification and the browser's CPU seconds. The browser is
// started before the timer.
//
//	go test -run '^$' -bench Verify -benchtime 2x ./crawler/
func BenchmarkVerify(b *testing.B) {
	pool := testBrowsers(b)
	ix := librarytest.Index(b)
	if _, err := verifySite(b, "clean", ix, pool, VerifyOptions{}); err != nil { // start the browser
		b.Fatal(err)
	}
	cpu0 := poolCPU(pool)
	b.ResetTimer()
	for b.Loop() {
		res, err := verifySite(b, "clean", ix, pool, VerifyOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if v := res.Verification; len(v.States) != 4 || len(v.States[0].Pages) != 10 || len(v.States[2].Requests) == 0 {
			b.Fatalf("verification %+v", v)
		}
	}
	b.StopTimer()
	b.ReportMetric(b.Elapsed().Seconds()/float64(max(b.N, 1)), "s/verification")
	b.ReportMetric((poolCPU(pool)-cpu0).Seconds()/float64(max(b.N, 1)), "chromium-cpu-s/verification")
}
