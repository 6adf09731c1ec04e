package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// spellings are the words written one way across the console, the API, the runtime and the
// docs: the way the contract (interface-spec.md) writes them, by the other spelling.
var spellings = map[string]string{
	"unrecogni" + "sed": "unrecognized", // the contract's unrecognizedScripts
}

// TestOneSpellingPerWord fails on the other spelling of a word in the repository's sources,
// templates and docs (recorded sites under testdata and vendored third-party files aside: a
// folder named vendor, one holding a VERSION or VERSION.md file, minified scripts).
func TestOneSpellingPerWord(t *testing.T) {
	t.Parallel()
	var res []*regexp.Regexp
	for bad := range spellings {
		res = append(res, regexp.MustCompile(`(?i)\b`+bad))
	}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata", "vendor":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".min.js") || vendored(filepath.Dir(p)) {
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".html", ".md", ".js", ".json", ".yaml", ".yml", ".css":
		default:
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, re := range res {
			if loc := re.FindIndex(b); loc != nil {
				line := strings.Count(string(b[:loc[0]]), "\n") + 1
				t.Errorf("%s:%d: %q: write %q", p, line, b[loc[0]:loc[1]], spellings[strings.ToLower(string(b[loc[0]:loc[1]]))])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// vendored reports whether dir holds a vendored third-party package (its VERSION file).
func vendored(dir string) bool {
	for _, n := range []string{"VERSION", "VERSION.md"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}
