package core_test

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
)

func TestPublicPaths(t *testing.T) {
	for _, res := range []string{core.PublicLoader, core.PublicConfigPath, core.PublicConsentPath, core.PublicDeclaration, core.PublicCookiesPage, core.PublicTCFConfig} {
		p := core.PublicPath("pk_a b", res)
		got, key, ok := core.ParsePublicPath("/proxy" + p)
		if !ok || got != res || key != "pk_a b" {
			t.Errorf("ParsePublicPath(%q) = %q, %q, %v", p, got, key, ok)
		}
	}
	for _, res := range []string{core.PublicRuntime, core.PublicRuntimeMore, core.PublicTCFModule} {
		if got, _, ok := core.ParsePublicPath(core.PublicPath("", res)); !ok || got != res {
			t.Errorf("runtime path %s not recognised: %q %v", res, got, ok)
		}
	}
	for _, p := range []string{"/api/v1/public/", "/api/v1/public/pk/other.js", "/api/v1/public//config", "/api/v1/public/a/b/config", "/static/banner.js", "/api/v1/sites"} {
		if res, _, ok := core.ParsePublicPath(p); ok {
			t.Errorf("ParsePublicPath(%q) = %q, want not public", p, res)
		}
	}
	if r := core.PublicRoute(core.PublicConfigPath); r != "/public/{projectKey}/config" {
		t.Errorf("PublicRoute(config) = %q", r)
	}
}

// layoutCopyExempt are the sources, relative to the repository root, that may spell the public
// URL layout: the one place.
var layoutCopyExempt = map[string]string{
	"core/publicpath.go": "the one place",
}

// TestPublicLayoutWrittenOnce fails when a copy of the public URL layout appears: a Go string
// literal (comments are free to cite a path), a line of consentd's own JavaScript or an HTML
// template spelling "/api/v1" or "/public/" outside core/publicpath.go, or a line of its
// JavaScript naming a public resource as a path (jsResourceCopy). Tests, testdata, docs and
// vendored (minified) scripts are not searched; comments may cite a path.
func TestPublicLayoutWrittenOnce(t *testing.T) {
	root := filepath.Join("..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "vendor", "node_modules", "docs":
				return filepath.SkipDir
			}
			if strings.HasPrefix(d.Name(), ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if _, ok := layoutCopyExempt[rel]; ok || strings.HasSuffix(rel, "_test.go") || strings.HasSuffix(rel, ".min.js") || strings.HasSuffix(rel, ".standalone.js") {
			return nil
		}
		switch filepath.Ext(rel) {
		case ".go":
			for _, lit := range goStringLiterals(t, p) {
				if layoutCopy(lit.text) {
					t.Errorf("%s:%d: the public URL layout spelt out (%s): use core.APIPrefix, PublicPath or PublicRoute", rel, lit.line, lit.text)
				}
			}
		case ".js", ".html":
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				if l := strings.TrimSpace(line); strings.HasPrefix(l, "//") || strings.HasPrefix(l, "*") || strings.HasPrefix(l, "/*") {
					continue // a comment may cite a path
				}
				if layoutCopy(line) {
					t.Errorf("%s:%d: the public URL layout spelt out: derive it from core/publicpath.go", rel, i+1)
				}
				if filepath.Ext(rel) == ".js" && jsResourceCopy.MatchString(line) {
					t.Errorf("%s:%d: a public resource named in JavaScript: derive it from core/publicpath.go", rel, i+1)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// jsResourceCopy matches a line of JavaScript that names one of the public resources as a path:
// '/config', "/consent", loader.js, banner.js and the like. The runtime's modules get the names
// from core through their build (bannerjs/build.go's consentd:core module).
var jsResourceCopy = regexp.MustCompile(`['"]/(` + regexp.QuoteMeta(core.PublicConfigPath) + `|` + regexp.QuoteMeta(core.PublicConsentPath) + `|` +
	regexp.QuoteMeta(core.PublicDeclaration) + `|` + regexp.QuoteMeta(core.PublicCookiesPage) + `)\b|\b(` +
	strings.ReplaceAll(regexp.QuoteMeta(core.PublicRuntime), `\.`, `\\?\.`) + `|` + strings.ReplaceAll(regexp.QuoteMeta(core.PublicRuntimeMore), `\.`, `\\?\.`) + `|` + strings.ReplaceAll(regexp.QuoteMeta(core.PublicLoader), `\.`, `\\?\.`) + `)`)

// layoutCopy reports whether s spells a part of the public URL layout.
func layoutCopy(s string) bool {
	return strings.Contains(s, core.APIPrefix) || strings.Contains(s, "/public/")
}

type literal struct {
	text string
	line int
}

// goStringLiterals are the string literals of a Go file, without its comments.
func goStringLiterals(t *testing.T, path string) []literal {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) { t.Errorf("%s: %s", pos, msg) }, 0)
	var out []literal
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.STRING {
			out = append(out, literal{lit, fset.Position(pos).Line})
		}
	}
}
