package app

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain gives the package's parallel tests one slot more than go test's default
// (GOMAXPROCS), unless -parallel is given: TestWebhookCatchUpAfterOutage holds a slot for
// about 75 s while it mostly sleeps through its 60-second receiver outage, which left the
// package's other tests, which do compute (verification scans in Chromium), one slot of two
// on a two-core machine.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(runtime.GOMAXPROCS(0)+1)); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
