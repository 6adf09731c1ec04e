package iabgvl_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/iabgvl"
	"github.com/consentd/consentd/core"
)

// TestOpenFile: the fixture GVL reads with the translations beside it; a language without one
// is not_found; a missing or invalid file is an error naming it.
func TestOpenFile(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/tcf/vendor-list-v17.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "vendor-list.json")
	must(t, os.WriteFile(path, data, 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "purposes-FR.json"), []byte(`{"vendorListVersion":17,"purposes":{"1":{"id":1,"name":"Stocker"}}}`), 0o600))
	f, err := iabgvl.OpenFile(path)
	must(t, err)
	g, err := f.CurrentGVL(context.Background())
	if err != nil || g.VendorListVersion != 17 || len(g.Vendors) != 692 {
		t.Fatalf("CurrentGVL: %v", err)
	}
	tr, err := f.GVLTranslation(context.Background(), "fr")
	if err != nil || tr.Language != "fr" || tr.Purposes[1].Name != "Stocker" {
		t.Fatalf("GVLTranslation(fr) = %+v, %v", tr, err)
	}
	if _, err := f.GVLTranslation(context.Background(), "de"); !core.IsNotFound(err) {
		t.Fatalf("GVLTranslation(de): %v, want not_found", err)
	}
	if _, err := iabgvl.OpenFile(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	must(t, os.WriteFile(bad, []byte(`{"gvlSpecificationVersion":2}`), 0o600))
	if _, err := iabgvl.OpenFile(bad); err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "gvlSpecificationVersion") {
		t.Errorf("GVL v2 file: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
