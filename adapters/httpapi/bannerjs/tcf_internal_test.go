package bannerjs

import "testing"

// maxTCFGzipped is #29's budget of the TCF module, gzipped as served; its texts come with the
// site's TCF configuration, in one language.
const maxTCFGzipped = 30 << 10

// TestTCFSizeBudget: the TCF module and the stub minify, and the module stays within budget.
func TestTCFSizeBudget(t *testing.T) {
	b := getTCF()
	if !b.minified {
		t.Fatal("the TCF module or stub did not minify")
	}
	t.Logf("tcf.js: %d bytes, %d gzipped (budget %d); the loader's stub: %d bytes", len(b.plain), len(b.gz), maxTCFGzipped, len(tcfStub))
	if len(b.gz) > maxTCFGzipped {
		t.Fatalf("tcf.js is %d bytes gzipped, budget %d", len(b.gz), maxTCFGzipped)
	}
}
