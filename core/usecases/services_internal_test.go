package usecases

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// coreFiles are the Go files of core and of its packages (the kernel and the capabilities).
func coreFiles() ([]string, error) {
	top, err := filepath.Glob("../*.go")
	if err != nil {
		return nil, err
	}
	pkgs, err := filepath.Glob("../*/*.go")
	return append(top, pkgs...), err
}

// coreTypes are the struct types of core's Go files (tests aside) with their methods, as
// parsed source.
type coreTypes struct {
	structs map[string]*ast.StructType
	methods map[string][]*ast.FuncDecl
}

func parseCore(t *testing.T) coreTypes {
	t.Helper()
	files, err := coreFiles()
	if err != nil {
		t.Fatal(err)
	}
	ct := coreTypes{structs: map[string]*ast.StructType{}, methods: map[string][]*ast.FuncDecl{}}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						if st, ok := ts.Type.(*ast.StructType); ok {
							ct.structs[ts.Name.Name] = st
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil {
					ct.methods[typeName(d.Recv.List[0].Type)] = append(ct.methods[typeName(d.Recv.List[0].Type)], d)
				}
			}
		}
	}
	return ct
}

// typeName is the name of a named type or a pointer to one; "" for any other type.
func typeName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	if se, ok := e.(*ast.SelectorExpr); ok {
		return se.Sel.Name
	}
	return ""
}

// members are the names a value of type typ answers to: its fields and methods.
func (ct coreTypes) members(typ string) []string {
	var out []string
	if st := ct.structs[typ]; st != nil {
		for _, f := range st.Fields.List {
			for _, n := range f.Names {
				out = append(out, n.Name)
			}
			if len(f.Names) == 0 {
				out = append(out, typeName(f.Type))
			}
		}
	}
	for _, m := range ct.methods[typ] {
		out = append(out, m.Name.Name)
	}
	return out
}

// selected are the names the methods of typ select on their receiver (recv.name).
func (ct coreTypes) selected(typ string) map[string]bool {
	out := map[string]bool{}
	for _, m := range ct.methods[typ] {
		if len(m.Recv.List[0].Names) == 0 || m.Body == nil {
			continue
		}
		recv := m.Recv.List[0].Names[0].Name
		ast.Inspect(m.Body, func(n ast.Node) bool {
			if se, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := se.X.(*ast.Ident); ok && id.Name == recv {
					out[se.Sel.Name] = true
				}
			}
			return true
		})
	}
	return out
}

// unused are the fields of typ that none of its methods reaches: a field is reached when a
// method selects it, or, for an embedded field, when a method selects one of its members.
// It also returns the core types of typ's fields that have methods, the helpers to check next.
func (ct coreTypes) unused(typ string) (unused, helpers []string) {
	sel := ct.selected(typ)
	for _, f := range ct.structs[typ].Fields.List {
		ft := typeName(f.Type)
		if ft != "" && len(ct.methods[ft]) > 0 && ct.structs[ft] != nil {
			helpers = append(helpers, ft)
		}
		if len(f.Names) == 0 {
			if !sel[ft] && !slices.ContainsFunc(ct.members(ft), func(m string) bool { return sel[m] }) {
				unused = append(unused, ft)
			}
			continue
		}
		for _, n := range f.Names {
			if !sel[n.Name] {
				unused = append(unused, n.Name)
			}
		}
	}
	return unused, helpers
}

// TestServicesHoldOnlyWhatTheyUse: every field of every service in UseCases (a port, a cache,
// a setting) is used by one of the service's methods, and so is every field of the helpers
// they hold (the audit log's writer, the webhook publisher, the public views): no service can
// reach a port it does not use.
func TestServicesHoldOnlyWhatTheyUse(t *testing.T) {
	ct := parseCore(t)
	var queue []string
	for f := range reflect.TypeFor[UseCases]().Fields() {
		queue = append(queue, f.Type.Elem().Name())
	}
	if len(queue) < 10 {
		t.Fatalf("UseCases has %d services: the walk reads the wrong type", len(queue))
	}
	checked := map[string]bool{}
	for len(queue) > 0 {
		typ := queue[0]
		queue = queue[1:]
		if checked[typ] {
			continue
		}
		checked[typ] = true
		if ct.structs[typ] == nil {
			t.Errorf("%s: no struct type of that name in core's source", typ)
			continue
		}
		if len(ct.methods[typ]) == 0 {
			t.Errorf("%s: no methods", typ)
		}
		unused, helpers := ct.unused(typ)
		for _, f := range unused {
			t.Errorf("%s holds %s, which none of its methods uses", typ, f)
		}
		queue = append(queue, helpers...)
	}
	for _, h := range []string{"Auditor", "Publisher", "PublicViews", "Importer"} {
		if !checked[h] {
			t.Errorf("helper %s was not checked: no service holds it, or the walk misses it", h)
		}
	}
}

// TestServiceReceivers: each service's methods name their receiver alike, after the service.
func TestServiceReceivers(t *testing.T) {
	ct := parseCore(t)
	for f := range reflect.TypeFor[UseCases]().Fields() {
		typ := f.Type.Elem().Name()
		names := map[string]bool{}
		for _, m := range ct.methods[typ] {
			if len(m.Recv.List[0].Names) > 0 {
				names[m.Recv.List[0].Names[0].Name] = true
			}
		}
		if len(names) != 1 || names["m"] {
			t.Errorf("%s's methods name their receiver %v: want one name, after the service", typ, names)
		}
	}
}

// TestCoreImportsNoAdapter: of consentd's own packages, core's Go files import only library
// and core's packages (its tests also memstore, to run the use cases on): never an adapter,
// the crawler or app, which all depend on core.
func TestCoreImportsNoAdapter(t *testing.T) {
	files, err := coreFiles()
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/consentd/consentd"
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			switch {
			case !strings.HasPrefix(path, module+"/"):
			case path == module+"/library", path == module+"/core", strings.HasPrefix(path, module+"/core/"):
			case strings.HasSuffix(name, "_test.go") && path == module+"/adapters/memstore":
			default:
				t.Errorf("%s imports %s: core depends on no adapter, on neither the crawler nor app", name, path)
			}
		}
	}
}
