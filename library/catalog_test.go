package library

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestEmbeddedCatalog loads the built-in catalog and fails on any validation problem, listing
// them all.
func TestEmbeddedCatalog(t *testing.T) {
	t.Parallel()
	c, err := Load("")
	if err != nil {
		var ps Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				t.Error(p)
			}
			t.FailNow()
		}
		t.Fatal(err)
	}
	files, err := filepath.Glob("services/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != len(files) {
		t.Errorf("catalog has %d services, services/ has %d files", c.Len(), len(files))
	}
	svcs := c.Services()
	if !slices.IsSortedFunc(svcs, func(a, b *Service) int { return strings.Compare(a.Slug, b.Slug) }) {
		t.Error("Services() not sorted by slug")
	}
	for _, s := range svcs {
		got, ok := c.Service(s.Slug)
		if !ok || got != s {
			t.Errorf("Service(%q) = %v, %v", s.Slug, got, ok)
		}
		e, ok := c.Entry(s.Slug)
		if !ok || len(e.Scripts) != len(s.Scripts) || len(e.Resources) != len(s.Resources) || len(e.TrackingIDs) != len(s.TrackingIDs) {
			t.Errorf("Entry(%q) not compiled in full", s.Slug)
		}
	}
}

// TestCatalogSize requires the catalog the issue asks for: at least 250 services.
func TestCatalogSize(t *testing.T) {
	t.Parallel()
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() < 250 {
		t.Errorf("catalog has %d services, want at least 250", c.Len())
	}
}

func TestLoadExtraDirOverrides(t *testing.T) {
	t.Parallel()
	base, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load("testdata/extra")
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != base.Len()+1 {
		t.Errorf("Len = %d, want %d built-in + 1 added (the override replaces)", c.Len(), base.Len())
	}
	gtm, ok := c.Service("google-tag-manager")
	if !ok || gtm.Label != "Google Tag Manager (operator override)" || gtm.Category != CategoryStatistics {
		t.Errorf("override not applied: %+v", gtm)
	}
	if e, _ := c.Entry("google-tag-manager"); e.File != filepath.Join("testdata/extra", "google-tag-manager.json") {
		t.Errorf("override file = %q", e.File)
	}
	acme, ok := c.Service("acme-insights")
	if !ok || len(acme.Cookies) != 2 {
		t.Fatalf("extra service not loaded: %+v", acme)
	}
	// The built-in catalog is unchanged by loading an extension.
	if g, _ := base.Service("google-tag-manager"); g.Label != "Google Tag Manager" {
		t.Errorf("built-in entry changed: %q", g.Label)
	}
}

func TestLoadReportsEveryProblemWithFileAndField(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/bad")
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("err = %v, want Problems", err)
	}
	got := make([]string, len(ps))
	for i, p := range ps {
		got[i] = p.Error()
	}
	want := []string{
		"testdata/bad/broken-entry.json: label: required",
		"testdata/bad/broken-entry.json: category: ",
		"testdata/bad/broken-entry.json: serviceUrl: ",
		"testdata/bad/broken-entry.json: cookies[1].name: ",
		"testdata/bad/broken-entry.json: cookies[2].match: must be exact, prefix or regex",
		"testdata/bad/broken-entry.json: scripts[0]: ",
		"testdata/bad/broken-entry.json: trackingIds[0].examples[0]: ",
		"testdata/bad/unknown-field.json: colour: unknown field",
		"testdata/bad/gtm-clone.json: scripts[0]: ",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems:\n%s\nwant %d", len(got), strings.Join(got, "\n"), len(want))
	}
	// Per-file problems come in file order, cross-service ones last.
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
	if !strings.Contains(got[8], "google-tag-manager") {
		t.Errorf("clash does not name the other service: %q", got[8])
	}
}

func TestLint(t *testing.T) {
	t.Parallel()
	if errs := Lint("services"); errs != nil {
		t.Errorf("Lint(services) = %v", errs)
	}
	if errs := Lint("testdata/extra"); errs != nil {
		t.Errorf("Lint(testdata/extra) = %v", errs)
	}
	// Alone, the bad directory has no clash with Google Tag Manager; as an extension it has.
	alone, ext := Lint("testdata/bad"), LintExtension("testdata/bad")
	if len(alone) != 8 || len(ext) != 9 {
		t.Errorf("Lint = %d problems, LintExtension = %d, want 8 and 9:\n%v\n%v", len(alone), len(ext), alone, ext)
	}
	var p *Problem
	if !errors.As(alone[0], &p) || !strings.HasPrefix(p.File, "broken-entry.json") {
		t.Errorf("Lint problem = %v", alone[0])
	}
	if errs := Lint("testdata/does-not-exist"); len(errs) != 1 || !strings.Contains(errs[0].Error(), "does-not-exist") {
		t.Errorf("Lint(missing dir) = %v", errs)
	}
	if _, err := Load("testdata/does-not-exist"); err == nil || !strings.Contains(err.Error(), "testdata/does-not-exist") {
		t.Errorf("Load(missing dir) = %v", err)
	}
}

func TestDecodeProblems(t *testing.T) {
	t.Parallel()
	valid := `{"slug":"x","label":"X","description":"d","category":"essential","vendor":"V",` +
		`"serviceUrl":"https://x.example/","privacyPolicyUrl":"https://x.example/p"`
	cases := []struct{ name, data, want string }{
		{"valid", valid + "}", ""},
		{"empty", "", "d/x.json: empty file"},
		{"syntax", valid + ",\n\"label\" 3}", "d/x.json: invalid JSON at line 2, column"},
		{"truncated", valid, "d/x.json: invalid JSON: unexpected end of file"},
		{"wrong type", valid + `,"cookies":[{"name":1}]}`, "d/x.json: cookies.name: must be string"},
		{"unknown nested field", valid + `,"cookies":[{"nom":"a"}]}`, "d/x.json: nom: unknown field"},
		{"trailing data", valid + "} {}", "d/x.json: trailing data"},
		{"not an object", `[]`, "d/x.json: (document): must be library.Service"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadFS(fstest.MapFS{"d/x.json": {Data: []byte(tc.data)}}, "d")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %v, want prefix %q", err, tc.want)
			}
		})
	}
}

func TestLoadFSIgnoresOtherFiles(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/extra/acme-insights.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadFS(fstest.MapFS{
		"d/acme-insights.json":     {Data: data},
		"d/README.md":              {Data: []byte("# notes")},
		"d/.acme-insights.json":    {Data: []byte("editor swap file")},
		"d/sub/acme-insights.json": {Data: []byte("not read: subdirectory")},
	}, "d")
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 1 {
		t.Errorf("Len = %d, want 1", c.Len())
	}
}

func TestFromServices(t *testing.T) {
	t.Parallel()
	if _, err := FromServices([]*Service{validService(), nil}); err == nil || !strings.Contains(err.Error(), "services[1]: nil service") {
		t.Errorf("err = %v", err)
	}
	c, err := FromServices([]*Service{validService()})
	if err != nil || c.Len() != 1 {
		t.Fatalf("FromServices = %v, %v", c, err)
	}
}
