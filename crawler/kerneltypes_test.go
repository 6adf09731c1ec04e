package crawler_test

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// kernel is the package of the report types and their vocabulary that the crawler returns.
const kernel = "github.com/consentd/consentd/core"

// TestNoCopyOfKernelTypes: the crawler (this package and its subpackages) returns the kernel's
// report types and speaks its words; it defines no struct type whose fields (names and types,
// package names aside, tags aside) are those of a struct type of the kernel, and no constant
// with the name and value of a kernel constant. A copy would need a mapping from one to the
// other, which is how the two drift apart.
func TestNoCopyOfKernelTypes(t *testing.T) {
	pkgs := typeCheck(t, kernel, "github.com/consentd/consentd/crawler/...")
	kernelStructs := map[string][]string{} // fields → kernel type names
	kernelConsts := map[string]constant.Value{}
	for _, td := range declared(pkgs[kernel]) {
		switch o := td.(type) {
		case *types.TypeName:
			if f := fieldsOf(o); f != "" {
				kernelStructs[f] = append(kernelStructs[f], "core."+o.Name())
			}
		case *types.Const:
			kernelConsts[o.Name()] = o.Val()
		}
	}
	if len(kernelStructs) == 0 || len(kernelConsts) == 0 {
		t.Fatalf("no struct types or constants found in %s", kernel)
	}
	var paths []string
	for p := range pkgs {
		if p != kernel {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	checked := 0
	for _, p := range paths {
		pkg := pkgs[p]
		for _, o := range declared(pkg) {
			name := pkg.Name() + "." + o.Name()
			switch o := o.(type) {
			case *types.TypeName:
				f := fieldsOf(o)
				if f == "" {
					continue
				}
				checked++
				if k := kernelStructs[f]; k != nil {
					t.Errorf("%s (%s) has the fields of %s {%s}: use the kernel's type", name, pkg.fset.Position(o.Pos()), strings.Join(k, ", "), f)
				}
			case *types.Const:
				if v, ok := kernelConsts[o.Name()]; ok && constant.Compare(v, token.EQL, o.Val()) {
					t.Errorf("%s (%s) restates core.%s = %s: use the kernel's constant", name, pkg.fset.Position(o.Pos()), o.Name(), v)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no struct type of the crawler was checked")
	}
}

// declared are the type names (package level or local) and package-level constants a package
// defines, in source order.
func declared(pkg *checked) []types.Object {
	var out []types.Object
	for _, o := range pkg.info.Defs {
		if o == nil {
			continue
		}
		switch o := o.(type) {
		case *types.TypeName:
			if !o.IsAlias() {
				out = append(out, o)
			}
		case *types.Const:
			if o.Parent() == pkg.Scope() {
				out = append(out, o)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos() < out[j].Pos() })
	return out
}

// fieldsOf is the signature of a named struct type with at least two fields: its fields'
// names and types, sorted, the types written without package names (so that a copy's field of
// the copied type's mirror matches too); "" for any other type.
func fieldsOf(o *types.TypeName) string {
	st, ok := o.Type().Underlying().(*types.Struct)
	if !ok || st.NumFields() < 2 {
		return ""
	}
	noPkg := func(*types.Package) string { return "" }
	fields := make([]string, 0, st.NumFields())
	for i := range st.NumFields() {
		f := st.Field(i)
		fields = append(fields, f.Name()+" "+types.TypeString(f.Type(), noPkg))
	}
	sort.Strings(fields)
	return strings.Join(fields, "; ")
}

// checked is a package type-checked from its source.
type checked struct {
	*types.Package
	info *types.Info
	fset *token.FileSet
}

// typeCheck type-checks the packages patterns name from their non-test sources, importing
// their dependencies from the export data the go command builds.
func typeCheck(t *testing.T, patterns ...string) map[string]*checked {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages: %v", err)
	}
	targets := exec.Command(goTool, append([]string{"list", "-f", "{{.ImportPath}}"}, patterns...)...)
	targets.Stderr = os.Stderr
	out, err := targets.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", patterns, err)
	}
	want := strings.Fields(string(out))
	cmd := exec.Command(goTool, append([]string{"list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export"}, patterns...)...)
	cmd.Stderr = os.Stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list -export %v: %v", patterns, err)
	}
	type listed struct {
		ImportPath, Dir, Export string
		GoFiles                 []string
	}
	all := map[string]listed{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var l listed
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		all[l.ImportPath] = l
	}
	fs := token.NewFileSet()
	imp := importer.ForCompiler(fs, "gc", func(path string) (io.ReadCloser, error) {
		l, ok := all[path]
		if !ok || l.Export == "" {
			return nil, errors.New("no export data for " + path)
		}
		return os.Open(l.Export)
	})
	res := map[string]*checked{}
	for _, p := range want {
		l := all[p]
		var files []*ast.File
		for _, name := range l.GoFiles {
			f, err := parser.ParseFile(fs, filepath.Join(l.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
		pkg, err := (&types.Config{Importer: imp}).Check(p, fs, files, info)
		if err != nil {
			t.Fatalf("type-checking %s: %v", p, err)
		}
		res[p] = &checked{Package: pkg, info: info, fset: fs}
	}
	if !slices.Contains(want, kernel) {
		t.Fatalf("%s not listed", kernel)
	}
	return res
}
