package crawler

import (
	"testing"

	"github.com/consentd/consentd/crawler/browser"
)

// ownBrowsers is a browser pool of size browsers for the calling test alone, closed when it
// ends, after the same skip-or-fail rule as testBrowsers. A test with its own pool can run in
// parallel with the others: on the shared pool of one browser, it would wait for theirs, and
// that wait counts against its scan's timeout.
func ownBrowsers(t *testing.T, size int) *browser.Pool {
	t.Helper()
	b := browser.NewPool(browser.Options{UserAgent: DefaultUserAgent, Path: testBrowserPath(t), Size: size})
	t.Cleanup(func() { b.Close() })
	return b
}
