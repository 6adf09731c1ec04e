package bannerjs

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tdewolff/parse/v2"
	jsparse "github.com/tdewolff/parse/v2/js"
)

// TestBuildManglesOnlyTheState: the build shortens every property name ending in "_"
// (esbuild's mangleProps), which is how state.js's fields cost the first view nothing. Any other
// such name would be shortened too: in a module's own object harmlessly, but in what crosses a
// script's edge (the configuration's JSON, the page API, the lazily loaded part's internals)
// it would break without a sound. So the only such names in the sources are the state's fields.
func TestBuildManglesOnlyTheState(t *testing.T) {
	state, err := sources.ReadFile("state.js")
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, m := range regexp.MustCompile(`(?m)^  (\w+_):`).FindAllSubmatch(state, -1) {
		fields = append(fields, string(m[1]))
	}
	if len(fields) < 5 {
		t.Fatalf("state.js's fields: %v", fields)
	}
	name := regexp.MustCompile(`\b(\w+_)\s*:|\.(\w+_)\b`)
	files, _ := fs.Glob(sources, "*.js")
	for _, f := range files {
		src, _ := sources.ReadFile(f)
		for i, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for _, m := range name.FindAllStringSubmatch(line, -1) {
				if n := m[1] + m[2]; !slices.Contains(fields, n) {
					t.Errorf("%s:%d: %q ends in _, which the build shortens: only state.js's fields may (%v)", f, i+1, n, fields)
				}
			}
		}
	}
	// And the built runtime reads none of them by name.
	for _, f := range fields {
		if strings.Contains(string(Script()), "."+f) {
			t.Errorf("the built runtime still reads %q by name", f)
		}
	}
}

// TestBuild: every bundle builds, without a warning, and minifies; the made-up modules'
// values are in place.
func TestBuild(t *testing.T) {
	b, err := build(bundles)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range bundles {
		if b[s.name] == nil || !b[s.name].minified || len(b[s.name].version) != 12 {
			t.Errorf("bundle %s: %+v", s.name, b[s.name])
		}
	}
	rt := string(b["runtime"].plain)
	for _, want := range []string{`"` + b["more"].version + `"`, `"` + b["runtime"].version + `"`, `"google_consent_mode"`,
		"banner-more.js?v=" + b["more"].version} {
		if !strings.Contains(rt, want) {
			t.Errorf("the runtime lacks %s", want)
		}
	}
	if strings.Contains(rt, "Public.") || strings.Contains(rt, "Version.") {
		t.Error("consentd:core's or consentd:build's enums were not inlined")
	}
}

// browserGlobals are the names the runtime's modules may use without importing them: the
// language's and the browser's.
var browserGlobals = strings.Fields(`arguments undefined Array Boolean Date Error JSON Math Number Object Promise RegExp String
	URL parseInt decodeURIComponent encodeURIComponent btoa console setTimeout window document location navigator history
	performance localStorage fetch CustomEvent MutationObserver PerformanceObserver requestAnimationFrame CSSStyleSheet Blob
	Document Element HTMLScriptElement HTMLIFrameElement`)

// TestModulesImportWhatTheyUse: a module uses no name of another module without importing it
// (the runtime was once joined from scripts that used each other's top-level names), nor any
// global but the language's and the browser's: esbuild would take a misspelt or forgotten name
// for a global, and the runtime would fail only when the line runs.
func TestModulesImportWhatTheyUse(t *testing.T) {
	files, _ := fs.Glob(sources, "*.js")
	for _, f := range files {
		src, _ := sources.ReadFile(f)
		ast, err := jsparse.Parse(parse.NewInputBytes(src), jsparse.Options{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		imported := map[string]bool{}
		for _, s := range ast.BlockStmt.List {
			if im, ok := s.(*jsparse.ImportStmt); ok {
				imported[string(im.Default)] = true
				for _, a := range im.List {
					imported[string(a.Binding)], imported[string(a.Name)] = true, true
				}
			}
		}
		for _, v := range ast.BlockStmt.Scope.Undeclared {
			if n := string(v.Data); !imported[n] && !slices.Contains(browserGlobals, n) {
				t.Errorf("%s uses %s without importing or declaring it", f, n)
			}
		}
	}
}
