package bannerjs

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

// TestGPPAPI: gpp.js minifies, and GPPAPI puts the visitor's configuration in place of the
// placeholder, once.
func TestGPPAPI(t *testing.T) {
	min := gppScript()
	src, _ := sources.ReadFile("gpp.js")
	if !bundled("gpp").minified || len(min) >= len(src) {
		t.Fatal("gpp.js did not minify")
	}
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(min) //nolint:errcheck // in memory
	w.Close()    //nolint:errcheck // in memory
	t.Logf("gpp.js: %d bytes minified, %d gzipped (docs/gpp.md)", len(min), z.Len())
	conf := `{"cmpId":0,"sections":[{"id":7,"api":"usnat"}],"applicableSections":[7]}`
	s := string(GPPAPI([]byte(conf)))
	if strings.Contains(s, gppConfPlaceholder) || strings.Count(s, conf) != 1 || !strings.Contains(s, "__gppLocator") {
		t.Fatalf("GPPAPI: %s", s)
	}
}
