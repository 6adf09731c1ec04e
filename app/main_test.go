package app

import (
	"os"
	"testing"

	"github.com/consentd/consentd/crawler/browser/browsertest"
)

// TestMain gives the package's parallel tests one slot more than go test's default
// (GOMAXPROCS), unless -parallel is given: TestWebhookCatchUpAfterOutage holds a slot for
// about 65 s while it mostly sleeps through its 60-second receiver outage, which left the
// package's other tests, which do compute (verification scans in Chromium), one slot of two
// on a two-core machine.
func TestMain(m *testing.M) {
	browsertest.Parallel(1)
	os.Exit(m.Run())
}
