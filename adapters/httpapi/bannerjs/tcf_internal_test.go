package bannerjs

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// maxTCFGzipped is #29's budget of the TCF module, gzipped as served; its texts come with the
// site's TCF configuration, in one language.
const maxTCFGzipped = 30 << 10

// TestTCFSizeBudget: the TCF module and the stub minify, and the module stays within budget.
func TestTCFSizeBudget(t *testing.T) {
	b := getTCF()
	if !b.minified || !bundled("tcfstub").minified {
		t.Fatal("the TCF module or stub did not minify")
	}
	t.Logf("tcf.js: %d bytes, %d gzipped (budget %d); the loader's stub: %d bytes", len(b.plain), len(b.gz), maxTCFGzipped, len(bundled("tcfstub").plain))
	if len(b.gz) > maxTCFGzipped {
		t.Fatalf("tcf.js is %d bytes gzipped, budget %d", len(b.gz), maxTCFGzipped)
	}
}

// TestTCFHandler: tcf.js is served as banner.js is: immutable for a year at its version, a
// strong ETag, gzip on request; other paths are not it.
func TestTCFHandler(t *testing.T) {
	h := TCFHandler()
	get := func(path, enc, inm string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if enc != "" {
			r.Header.Set("Accept-Encoding", enc)
		}
		if inm != "" {
			r.Header.Set("If-None-Match", inm)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := get("/api/v1/public/tcf.js?v="+TCFVersion(), "gzip", "")
	if w.Code != 200 || w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Cache-Control") != longCache ||
		!bytes.Equal(w.Body.Bytes(), TCFScriptGzip()) {
		t.Fatalf("versioned tcf.js: %d %v", w.Code, w.Header())
	}
	if w2 := get("/api/v1/public/tcf.js", "", w.Header().Get("ETag")); w2.Code != 200 || w2.Header().Get("Cache-Control") != shortCache ||
		!bytes.Equal(w2.Body.Bytes(), TCFScript()) {
		t.Fatalf("plain tcf.js: %d %v", w2.Code, w2.Header())
	}
	if w3 := get("/api/v1/public/tcf.js", "gzip", w.Header().Get("ETag")); w3.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", w3.Code)
	}
	if w4 := get("/api/v1/public/banner.js", "", ""); w4.Code != http.StatusNotFound {
		t.Errorf("banner.js from the TCF handler: %d", w4.Code)
	}
	if s := string(TCFStub("de")); !strings.Contains(s, `"../tcf.js?v=`+TCFVersion()+`"`) || !strings.Contains(s, `"tcf?lang=de"`) {
		t.Errorf("the stub does not name the module and the configuration: %s", s)
	}
}

// TestTCFModuleDecidesNothing: the TCF module applies what core sends it (the table from
// purposes to categories and Consent Mode, the purposes never under legitimate interest, the
// TC string's lifetime, where the TCF applies) and spells none of it itself.
func TestTCFModuleDecidesNothing(t *testing.T) {
	js := string(TCFScript())
	for _, s := range []string{"755", "390", "statistics", "marketing", "essential", "ad_storage", "analytics_storage",
		"ad_user_data", "ad_personalization", "defaultBehavior", "jurisdiction"} {
		if strings.Contains(js, s) {
			t.Errorf("tcf.js spells %q: that belongs in core (TCFSignalTable, ConsentOnlyPurposes, TCFCookieDays, TCFApplies)", s)
		}
	}
}
