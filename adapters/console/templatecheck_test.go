package console

import (
	"strings"
	"testing"

	"github.com/jba/templatecheck"
)

// TestTemplatesAgainstTheirPageTypes checks every page template against the type of its page
// (pageTypes): a field, method or function the type does not have, or one used as something
// else, fails here rather than when someone opens the page. And the check can fail: a
// template naming a field its page lacks is refused.
func TestTemplatesAgainstTheirPageTypes(t *testing.T) {
	t.Parallel()
	hh, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	h := hh.(*handler)
	if len(h.pages) != len(pageTypes) {
		t.Fatalf("%d templates parsed, %d page types", len(h.pages), len(pageTypes))
	}
	for name, typ := range pageTypes {
		root := "layout.html"
		if name == "preview" {
			root = "preview.html"
		}
		if err := templatecheck.CheckHTML(h.pages[name].Lookup(root), typ); err != nil {
			t.Errorf("template %s against %T: %v", name, typ, err)
		}
	}

	broken, err := h.pages["keys"].Clone()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := broken.Parse(`{{define "content"}}{{range .Data.Keys}}{{.Name}}{{end}}{{.Data.Keyz}}{{end}}`); err != nil {
		t.Fatal(err)
	}
	err = templatecheck.CheckHTML(broken.Lookup("layout.html"), pageTypes["keys"])
	if err == nil || !strings.Contains(err.Error(), "Keyz") {
		t.Fatalf("a template naming a field its page lacks passed the check: %v", err)
	}
}
