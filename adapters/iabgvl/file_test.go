package iabgvl_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/iabgvl"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/tcf"
)

// TestOpenFile: the fixture GVL reads with the translations and Google's provider list beside it; a language without one
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
	// Offline without Google's provider list beside the GVL: none (IDs then checked for form
	// only); with the recorded copy beside it, its providers, and the refresh reads it too.
	if _, err := f.ACProviders(context.Background()); !core.IsNotFound(err) {
		t.Fatalf("ACProviders without the file: %v, want not_found", err)
	}
	if _, err := f.FetchGVLResource(context.Background(), tcf.ACProvidersResource, nil); !core.IsNotFound(err) {
		t.Fatalf("fetching Google's list without the file: %v, want not_found", err)
	}
	ac, err := os.ReadFile("../../testdata/tcf/" + iabgvl.ACProvidersFile)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, iabgvl.ACProvidersFile), ac, 0o600))
	f, err = iabgvl.OpenFile(path)
	must(t, err)
	if l, err := f.ACProviders(context.Background()); err != nil || l.Providers[89].Name != "Facebook" || len(l.Providers) != 27 {
		t.Fatalf("ACProviders beside the GVL: %v", err)
	}
	if r, err := f.FetchGVLResource(context.Background(), tcf.ACProvidersResource, nil); err != nil || string(r.Body) != string(ac) {
		t.Fatalf("fetching Google's list beside the GVL: %v", err)
	}
	must(t, os.WriteFile(filepath.Join(dir, iabgvl.ACProvidersFile), []byte("id,name\n1,x\n"), 0o600))
	if _, err := iabgvl.OpenFile(path); err == nil || !strings.Contains(err.Error(), iabgvl.ACProvidersFile) {
		t.Errorf("an invalid provider list beside the GVL: %v", err)
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
