package main

import (
	"encoding/json"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallableAtAVersion: `go install github.com/consentd/consentd/cmd/consentd@VERSION`
// refuses a go.mod with replace or exclude directives (they would make the module read
// differently as a dependency than as the main module), and a go.mod below the root cuts its
// folder out of this module (go build, go vet ./... and the module's zip skip it). The go
// command reads go.mod here, so the test sees what go install sees.
func TestInstallableAtAVersion(t *testing.T) {
	out, err := exec.Command("go", "mod", "edit", "-json", "../../go.mod").Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	var mod struct {
		Module  struct{ Path string }
		Replace []struct {
			Old, New struct{ Path, Version string }
		}
		Exclude []struct{ Path, Version string }
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatal(err)
	}
	if mod.Module.Path != "github.com/consentd/consentd" {
		t.Fatalf("read the go.mod of %q", mod.Module.Path)
	}
	for _, r := range mod.Replace {
		t.Errorf("go.mod replaces %s with %s: go install …@version refuses it; make the code a package of this module or require a published version",
			r.Old.Path, strings.TrimSpace(r.New.Path+" "+r.New.Version))
	}
	for _, x := range mod.Exclude {
		t.Errorf("go.mod excludes %s %s: go install …@version refuses it", x.Path, x.Version)
	}

	// The folders the go command ignores (testdata, and names starting with . or _) and npm's
	// node_modules may hold a go.mod that is not ours.
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "../.." && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" && path != filepath.Join("../..", "go.mod") {
			t.Errorf("%s: a nested module is not part of github.com/consentd/consentd (go build and go vet ./... skip it)", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
