package sitecrawler

import (
	"testing"

	"github.com/consentd/consentd/crawler"
	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/crawler/browser/browsertest"
)

// ownBrowsers is a browser pool for the calling test alone, closed when it ends, after the
// skip-or-fail rule of browsertest.Require. The verifications run in parallel, each on its own browser:
// on the shared pool of one they would wait for each other, and that wait counts against
// their timeout.
func ownBrowsers(t *testing.T) *browser.Pool {
	t.Helper()
	b := browser.NewPool(browser.Options{Path: browsertest.Require(t), Size: 1, UserAgent: crawler.DefaultUserAgent})
	t.Cleanup(func() { b.Close() })
	return b
}
