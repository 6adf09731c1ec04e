package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const adapters = "github.com/consentd/consentd/adapters/"

// crossing returns the adapter that a file of adapter from may not import at path, "" when the
// import is allowed: anything outside adapters, the shared leaves under adapters/internal, and
// from's own packages.
func crossing(from, path string) string {
	rest, ok := strings.CutPrefix(path, adapters)
	if !ok {
		return ""
	}
	to, _, _ := strings.Cut(rest, "/")
	if to == "internal" || to == from {
		return ""
	}
	return to
}

// TestCrossing: the rule itself, on imports that break it and imports that keep it.
func TestCrossing(t *testing.T) {
	for _, c := range []struct{ from, path, want string }{
		{"console", adapters + "httpapi", "httpapi"},
		{"console", adapters + "trustedproxy", "trustedproxy"},
		{"httpapi", adapters + "console", "console"},
		{"internal", adapters + "httpapi", "httpapi"},
		{"sitecrawler", adapters + "memstore", "memstore"},
		{"console", adapters + "internal/response", ""},
		{"httpapi", adapters + "httpapi/bannerjs", ""},
		{"tcstring", adapters + "tcstring/internal/bits", ""},
		{"console", "github.com/consentd/consentd/core", ""},
		{"console", "net/http", ""},
	} {
		if got := crossing(c.from, c.path); got != c.want {
			t.Errorf("%s importing %s: crossing %q, want %q", c.from, c.path, got, c.want)
		}
	}
}

// TestAdaptersAreSiblings: no non-test file of an adapter imports another adapter.
func TestAdaptersAreSiblings(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "httpapi")); err != nil {
		t.Fatalf("not the adapters folder: %s", root)
	}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || (strings.HasPrefix(n, ".") && p != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		from, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if to := crossing(from, path); to != "" {
				t.Errorf("adapters/%s imports adapters/%s (%s): share a leaf under adapters/internal instead", filepath.ToSlash(rel), to, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("read %d files: not the adapters", files)
	}
}
