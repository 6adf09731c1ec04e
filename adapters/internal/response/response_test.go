package response

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

// TestStatus: every error code has its status; an error that is no core error is internal.
func TestStatus(t *testing.T) {
	for _, c := range core.Codes() {
		if _, ok := statusOf[c]; !ok {
			t.Errorf("code %s has no status", c)
		}
	}
	if got := Status(core.Errorf(core.CodeNotFound, "x")); got != http.StatusNotFound {
		t.Errorf("not found: %d", got)
	}
	if got := Status(errors.New("boom")); got != http.StatusInternalServerError {
		t.Errorf("a plain error: %d", got)
	}
	if got := StatusOf("no_such_code"); got != http.StatusInternalServerError {
		t.Errorf("an unknown code: %d", got)
	}
}

// TestConsentRow: a row has a cell per column, and client-supplied text is defused.
func TestConsentRow(t *testing.T) {
	row := ConsentRow(&consent.ConsentRecord{VisitorID: "=HYPERLINK(1)", PageURL: "@x", CategoriesConsented: map[string]bool{"essential": true}})
	cols := ConsentColumns()
	if len(row) != len(cols) {
		t.Fatalf("%d cells for %d columns", len(row), len(cols))
	}
	at := func(name string) string {
		for i, c := range cols {
			if c == name {
				return row[i]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	if at("visitorId") != "'=HYPERLINK(1)" || at("pageUrl") != "'@x" || at("categoriesConsented") != `{"essential":true}` {
		t.Errorf("row %q", row)
	}
}

// TestSnippets: the loader or the versioned runtime, on the public URL or the request's base.
func TestSnippets(t *testing.T) {
	s := Snippets{Loader: true}.For("http://h.example", "script", "pk_1")
	if !strings.Contains(s.Code, `src="http://h.example`+core.PublicPath("pk_1", core.PublicLoader)+`"`) || s.Framework != FrameworkScript {
		t.Errorf("loader snippet %+v", s)
	}
	s = Snippets{PublicURL: "https://c.example/", RuntimeVersion: "v9"}.For("http://h.example", "react", "pk_1")
	if !strings.Contains(s.Code, `"https://c.example`+core.PublicPath("", core.PublicRuntime)+`?v=v9"`) || s.Framework != FrameworkReact {
		t.Errorf("runtime snippet %+v", s)
	}
	if s := (Snippets{}).For("http://h.example", "cobol", "pk_1"); s.Framework != FrameworkScript {
		t.Errorf("an unknown framework: %+v", s)
	}
}
