package bannerjs

import "testing"

func TestTCFBuildMinifies(t *testing.T) {
	b := getTCF()
	if !b.minified {
		t.Fatal("the TCF module or stub did not minify")
	}
	t.Logf("tcf.js %d bytes, %d gzipped; stub %d bytes", len(b.plain), len(b.gz), len(tcfStub))
}
