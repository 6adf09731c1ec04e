package library

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// embedded holds the built-in catalog, one <slug>.json file per service.
//
//go:embed services/*.json
var embedded embed.FS

// Catalog is a loaded, validated set of services with their patterns compiled. It is immutable
// and safe for concurrent use; the *Service values it hands out are shared and must not be
// modified.
type Catalog struct {
	entries  []*Entry // sorted by slug
	services []*Service
	bySlug   map[string]*Entry
	hay      []haystack // parallel to entries
}

// haystack is the lower-cased text Search looks at, computed once at load.
type haystack struct {
	slug, label string
	// category is the category's words (categoryWords); named holds the vendor and cookie
	// names, and description the description. Separated by NUL so that a query never matches
	// across two of them (queries have NUL removed).
	category, named, description string
}

// categoryWords are the words a search finds a category's services by: its slug and what
// people call what it holds ("analytics" finds the statistics services before a video player
// whose description mentions its viewer analytics).
var categoryWords = map[string]string{
	CategoryEssential:  "essential\x00necessary\x00functional",
	CategoryStatistics: "statistics\x00analytics\x00measurement",
	CategoryMarketing:  "marketing\x00advertising\x00ads\x00retargeting",
}

// Load returns the built-in catalog, extended by every *.json file in extraDir when extraDir is
// not "". An extra entry whose slug exists replaces the built-in one. Every entry is validated
// (see README.md); on failure the error is a Problems listing each problem with its file and
// field, or an error naming extraDir when it cannot be read.
func Load(extraDir string) (*Catalog, error) {
	entries, problems, err := readDir(embedded, "services", "services")
	if err != nil {
		return nil, err
	}
	if extraDir != "" {
		extra, eps, err := readDir(os.DirFS(extraDir), ".", extraDir)
		if err != nil {
			return nil, err
		}
		problems = append(problems, eps...)
		entries = merge(entries, extra)
	}
	return build(entries, problems)
}

// LoadFS loads the catalog made of the *.json files in directory dir of fsys alone, validated as
// Load validates. File names in errors are dir-relative paths ("dir/x.json").
func LoadFS(fsys fs.FS, dir string) (*Catalog, error) {
	entries, problems, err := readDir(fsys, dir, dir)
	if err != nil {
		return nil, err
	}
	return build(entries, problems)
}

// FromServices builds a catalog from services held in memory, validated as Load validates
// (except the file-name rule). Errors name each service as "<slug>.json".
func FromServices(svcs []*Service) (*Catalog, error) {
	var (
		entries  []*Entry
		problems Problems
	)
	for i, s := range svcs {
		if s == nil {
			problems = append(problems, &Problem{File: fmt.Sprintf("services[%d]", i), Message: "nil service"})
			continue
		}
		e, ps := compileService(s, s.Slug+".json", "")
		problems = append(problems, ps...)
		if e != nil {
			entries = merge(entries, []*Entry{e})
		}
	}
	return build(entries, problems)
}

// Lint validates the directory dir as a catalog of its own, with the rules Load applies, and
// returns every problem found (each a *Problem), or one error when dir cannot be read. A nil
// result means the directory would load.
func Lint(dir string) []error {
	_, err := LoadFS(os.DirFS(dir), ".")
	return lintErrors(err, dir)
}

// LintExtension validates dir as an extension of the built-in catalog, as Load(dir) would load
// it: besides each entry's own rules, it reports script patterns that clash with built-in
// services that are not overridden.
func LintExtension(dir string) []error {
	_, err := Load(dir)
	return lintErrors(err, dir)
}

func lintErrors(err error, dir string) []error {
	if err == nil {
		return nil
	}
	var ps Problems
	if errors.As(err, &ps) {
		return ps.Errors()
	}
	return []error{fmt.Errorf("library dir %s: %w", dir, err)}
}

// readDir reads and validates every *.json file of dir in fsys. display is the directory name
// used in problems.
func readDir(fsys fs.FS, dir, display string) ([]*Entry, Problems, error) {
	des, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, nil, fmt.Errorf("library dir %s: %w", display, err)
	}
	var (
		entries  []*Entry
		problems Problems
	)
	for _, de := range des {
		name := de.Name()
		if de.IsDir() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		file := filepath.Join(display, name)
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			problems = append(problems, &Problem{File: file, Message: err.Error()})
			continue
		}
		s, p := decodeService(data, file)
		if p != nil {
			problems = append(problems, p)
			continue
		}
		e, ps := compileService(s, file, strings.TrimSuffix(name, ".json"))
		problems = append(problems, ps...)
		if e != nil {
			entries = append(entries, e)
		}
	}
	return entries, problems, nil
}

// decodeService decodes one entry strictly: unknown fields, wrong types and trailing data are
// problems.
func decodeService(data []byte, file string) (*Service, *Problem) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Service
	if err := dec.Decode(&s); err != nil {
		return nil, jsonProblem(err, data, file)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &Problem{File: file, Message: "trailing data after the JSON object"}
	}
	return &s, nil
}

// jsonProblem turns a decoding error into a problem naming the field or the line.
func jsonProblem(err error, data []byte, file string) *Problem {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		return &Problem{File: file, Message: fmt.Sprintf("invalid JSON at line %d, column %d: %v", line, col, syn)}
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "(document)"
		}
		return &Problem{File: file, Field: field, Message: fmt.Sprintf("must be %s, got JSON %s", typ.Type, typ.Value)}
	case errors.Is(err, io.EOF):
		return &Problem{File: file, Message: "empty file"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Problem{File: file, Message: "invalid JSON: unexpected end of file"}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &Problem{File: file, Field: strings.Trim(name, `"`), Message: "unknown field"}
	}
	return &Problem{File: file, Message: err.Error()}
}

func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// merge returns base with every entry of over added, replacing the entry of base with the same
// slug.
func merge(base, over []*Entry) []*Entry {
	idx := make(map[string]int, len(base))
	for i, e := range base {
		idx[e.Service.Slug] = i
	}
	for _, e := range over {
		if i, ok := idx[e.Service.Slug]; ok {
			base[i] = e
			continue
		}
		idx[e.Service.Slug] = len(base)
		base = append(base, e)
	}
	return base
}

// build sorts the entries, runs the checks across entries and precomputes the search haystacks.
func build(entries []*Entry, problems Problems) (*Catalog, error) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].Service.Slug < entries[j].Service.Slug })
	problems = append(problems, crossCheck(entries)...)
	if len(problems) > 0 {
		return nil, problems
	}
	c := &Catalog{
		entries:  entries,
		services: make([]*Service, len(entries)),
		bySlug:   make(map[string]*Entry, len(entries)),
		hay:      make([]haystack, len(entries)),
	}
	for i, e := range entries {
		s := e.Service
		c.services[i] = s
		c.bySlug[s.Slug] = e
		var named strings.Builder
		named.WriteString(strings.ToLower(s.Vendor))
		for _, ck := range s.Cookies {
			named.WriteByte(0)
			named.WriteString(strings.ToLower(ck.Name))
		}
		c.hay[i] = haystack{slug: s.Slug, label: strings.ToLower(s.Label), category: categoryWords[s.Category], named: named.String(),
			description: strings.ToLower(s.Description)}
	}
	return c, nil
}

// Len returns the number of services.
func (c *Catalog) Len() int { return len(c.entries) }

// Services returns every service, sorted by slug. The slice is the caller's; the services are
// shared.
func (c *Catalog) Services() []*Service {
	return append([]*Service(nil), c.services...)
}

// Service returns the service with the given slug.
func (c *Catalog) Service(slug string) (*Service, bool) {
	e, ok := c.bySlug[slug]
	if !ok {
		return nil, false
	}
	return e.Service, true
}

// Entries returns every entry with its compiled patterns, sorted by slug. The slice is the
// caller's; the entries are shared.
func (c *Catalog) Entries() []*Entry {
	return append([]*Entry(nil), c.entries...)
}

// Entry returns the compiled entry of the service with the given slug.
func (c *Catalog) Entry(slug string) (*Entry, bool) {
	e, ok := c.bySlug[slug]
	return e, ok
}
