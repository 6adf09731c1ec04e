package library

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// OCDSourceURL is the Open Cookie Database project. Imported services that name no web address
// of their own point there, the source of what is known about them.
const OCDSourceURL = "https://github.com/jkwakman/Open-Cookie-Database"

// ocdColumns are the columns ImportOCD reads, by header name.
var ocdColumns = []string{
	"Platform", "Category", "Cookie / Data Key name", "Domain", "Description",
	"Retention period", "Data Controller", "User Privacy & GDPR Rights Portals", "Wildcard match",
}

const (
	colPlatform = iota
	colCategory
	colName
	colDomain
	colDescription
	colRetention
	colController
	colPortal
	colWildcard
)

// ocdCategories maps the Open Cookie Database categories to library categories.
var ocdCategories = map[string]string{
	"analytics":  CategoryStatistics,
	"marketing":  CategoryMarketing,
	"functional": CategoryEssential,
	"security":   CategoryEssential,
	"necessary":  CategoryEssential,
}

// categoryStrictness orders categories: a platform whose cookies span several takes the
// strictest, since loading it before that consent would set those cookies.
var categoryStrictness = map[string]int{CategoryEssential: 0, CategoryStatistics: 1, CategoryMarketing: 2}

// ocdGroup gathers the rows of one resulting service.
type ocdGroup struct {
	svc      *Service
	builtin  bool
	added    int
	platform string // first platform name seen, for warnings
	urlHint  []string
}

// ImportOCD converts an Open Cookie Database CSV export (columns ID, Platform, Category,
// Cookie / Data Key name, Domain, Description, Retention period, Data Controller,
// User Privacy & GDPR Rights Portals, Wildcard match; found by header name) into library
// services, one per platform. See README.md ("Importing the Open Cookie Database") for how each
// field is filled.
//
// A platform whose slug or label (case-insensitively) is that of a service of builtin (which may
// be nil) yields that service enriched with the cookies it lacks, not a new service; a built-in
// service that lacks none is left out. Rows that cannot be used (unknown category, no name, no
// platform) are skipped with a warning. Every returned service passes validation. The error is
// for input that is not such a CSV.
func ImportOCD(r io.Reader, builtin *Catalog) ([]*Service, []string, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("open cookie database: reading header: %w", err)
	}
	idx, err := ocdHeader(header)
	if err != nil {
		return nil, nil, err
	}

	var (
		warnings []string
		groups   = map[string]*ocdGroup{}
		byLabel  = map[string]*Service{}
	)
	warnf := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	if builtin != nil {
		for _, s := range builtin.services {
			byLabel[strings.ToLower(s.Label)] = s
		}
	}

	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, warnings, fmt.Errorf("open cookie database: %w", err)
		}
		line, _ := cr.FieldPos(0)
		field := func(col int) string {
			if i := idx[col]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		platform, name := field(colPlatform), field(colName)
		switch {
		case platform == "":
			warnf("line %d: cookie %q has no platform; skipped", line, name)
			continue
		case name == "":
			warnf("line %d: %s: row has no cookie name; skipped", line, platform)
			continue
		case !utf8.ValidString(platform + name):
			warnf("line %d: not valid UTF-8; skipped", line)
			continue
		}
		category, ok := ocdCategories[strings.ToLower(field(colCategory))]
		if !ok {
			warnf("line %d: %s: cookie %q has category %q, which maps to no library category; skipped", line, platform, name, field(colCategory))
			continue
		}

		g := groups[resolveSlug(platform, builtin, byLabel)]
		if g == nil {
			g = newGroup(platform, field(colController), builtin, byLabel)
			if g == nil {
				warnf("line %d: platform %q gives no usable slug; skipped", line, platform)
				continue
			}
			groups[g.svc.Slug] = g
		}
		if !g.builtin && categoryStrictness[category] > categoryStrictness[g.svc.Category] {
			g.svc.Category = category
		}
		g.urlHint = append(g.urlHint, field(colPortal), domainURL(field(colDomain)))

		match := MatchExact
		switch field(colWildcard) {
		case "1":
			match = MatchPrefix
		case "0", "":
		default:
			warnf("line %d: %s: wildcard match %q is neither 0 nor 1; taken as exact", line, platform, field(colWildcard))
		}
		c := Cookie{
			Name:        name,
			Match:       match,
			Duration:    field(colRetention),
			Description: field(colDescription),
			Party:       "first",
			Storage:     "cookie",
		}
		if c.Duration == "" {
			c.Duration = "unknown"
		}
		if d := strings.ToLower(field(colDomain)); strings.Contains(d, "3rd party") || strings.Contains(d, "third party") {
			c.Party = "third"
		}
		if covered(g.svc.Cookies, c) {
			continue
		}
		g.svc.Cookies = append(g.svc.Cookies, c)
		g.added++
	}

	slugs := make([]string, 0, len(groups))
	for s := range groups {
		slugs = append(slugs, s)
	}
	sort.Strings(slugs)
	out := make([]*Service, 0, len(slugs))
	for _, slug := range slugs {
		g := groups[slug]
		if g.builtin {
			if g.added == 0 {
				warnf("%s: built-in service %s already has every cookie; left out", g.platform, slug)
				continue
			}
		} else {
			fillURLs(g)
			if g.svc.ServiceURL == OCDSourceURL {
				warnf("%s: no web address in the data; serviceUrl and privacyPolicyUrl point to %s", g.platform, OCDSourceURL)
			}
			g.svc.Description = fmt.Sprintf("%s, imported from the Open Cookie Database: %d cookies.", g.svc.Label, len(g.svc.Cookies))
		}
		if _, ps := compileService(g.svc, slug+".json", slug); len(ps) > 0 {
			warnf("%s: result does not validate; left out: %v", g.platform, ps)
			continue
		}
		out = append(out, g.svc)
	}
	return out, warnings, nil
}

// ocdHeader finds the index of each needed column.
func ocdHeader(header []string) ([]int, error) {
	pos := make(map[string]int, len(header))
	for i, h := range header {
		pos[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	idx := make([]int, len(ocdColumns))
	var missing []string
	for i, name := range ocdColumns {
		j, ok := pos[strings.ToLower(name)]
		if !ok {
			missing = append(missing, name)
		}
		idx[i] = j
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("open cookie database: header lacks column(s) %q", missing)
	}
	return idx, nil
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slugify makes a slug of a name: lower-case ASCII letters and digits, other runs become '-'.
func slugify(name string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > MaxSlugLen {
		s = strings.TrimRight(s[:MaxSlugLen], "-")
	}
	return s
}

// builtinFor returns the built-in service a platform stands for: same slug, or same label.
func builtinFor(platform string, builtin *Catalog, byLabel map[string]*Service) *Service {
	if builtin == nil {
		return nil
	}
	if s, ok := builtin.Service(slugify(platform)); ok {
		return s
	}
	return byLabel[strings.ToLower(platform)]
}

// resolveSlug returns the slug of the service a platform's rows go to.
func resolveSlug(platform string, builtin *Catalog, byLabel map[string]*Service) string {
	if s := builtinFor(platform, builtin, byLabel); s != nil {
		return s.Slug
	}
	return slugify(platform)
}

func newGroup(platform, controller string, builtin *Catalog, byLabel map[string]*Service) *ocdGroup {
	if s := builtinFor(platform, builtin, byLabel); s != nil {
		return &ocdGroup{svc: cloneService(s), builtin: true, platform: platform}
	}
	slug := slugify(platform)
	if slug == "" {
		return nil
	}
	if controller == "" {
		controller = platform
	}
	return &ocdGroup{platform: platform, svc: &Service{
		Slug:     slug,
		Label:    truncateRunes(platform, MaxLabelLen),
		Vendor:   truncateRunes(controller, MaxLabelLen),
		Category: CategoryEssential,
		Cookies:  []Cookie{},
	}}
}

// fillURLs sets the service and privacy URLs: the first portal URL of the platform's rows as
// privacy policy and its origin as service URL; failing that the first cookie domain; failing
// that the platform name when it is a domain; failing that the Open Cookie Database project.
func fillURLs(g *ocdGroup) {
	for _, h := range g.urlHint {
		if u := httpURL(h); u != nil {
			g.svc.PrivacyPolicyURL = u.String()
			g.svc.ServiceURL = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}).String()
			return
		}
	}
	if u := httpURL(domainURL(g.platform)); u != nil {
		g.svc.ServiceURL, g.svc.PrivacyPolicyURL = u.String(), u.String()
		return
	}
	g.svc.ServiceURL, g.svc.PrivacyPolicyURL = OCDSourceURL, OCDSourceURL
}

// httpURL parses s as an absolute http(s) URL, or returns nil.
func httpURL(s string) *url.URL {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(u.Host, " ,") {
		return nil
	}
	return u
}

var domainRE = regexp.MustCompile(`^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$`)

// domainURL turns an OCD domain cell ("*.example.com (3rd party)", ".example.com") into
// "https://example.com/", or "" when it holds no domain name.
func domainURL(d string) string {
	d = strings.ToLower(strings.TrimSpace(d))
	if i := strings.IndexAny(d, " ,;/("); i >= 0 {
		d = d[:i]
	}
	d = strings.TrimLeft(d, "*.")
	if !domainRE.MatchString(d) {
		return ""
	}
	return "https://" + d + "/"
}

// covered reports whether cookies already describe c: same name, or a prefix or regex entry
// that matches it.
func covered(cookies []Cookie, c Cookie) bool {
	for _, k := range cookies {
		if k.Storage != c.Storage {
			continue
		}
		switch k.Match {
		case MatchExact:
			if k.Name == c.Name && c.Match == MatchExact {
				return true
			}
		case MatchPrefix:
			if strings.HasPrefix(c.Name, k.Name) {
				return true
			}
		case MatchRegex:
			if re, err := regexp.Compile(k.Name); err == nil && c.Match == MatchExact && re.MatchString(c.Name) {
				return true
			}
		}
	}
	return false
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// cloneService deep-copies s so that enriching it leaves the catalog's copy alone.
func cloneService(s *Service) *Service {
	c := *s
	if s.Logo != nil {
		l := *s.Logo
		c.Logo = &l
	}
	c.Cookies = append([]Cookie{}, s.Cookies...)
	c.Scripts = append([]string(nil), s.Scripts...)
	c.Resources = append([]string(nil), s.Resources...)
	c.TrackingIDs = make([]TrackingID, len(s.TrackingIDs))
	for i, t := range s.TrackingIDs {
		c.TrackingIDs[i] = TrackingID{Pattern: t.Pattern, Examples: append([]string(nil), t.Examples...)}
	}
	return &c
}

// WriteServices writes each service to dir/<slug>.json in the entry format Load reads, creating
// dir if needed. It refuses a slug that is not a valid file name of the catalog.
func WriteServices(dir string, svcs []*Service) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range svcs {
		if s == nil || !slugRE.MatchString(s.Slug) || len(s.Slug) > MaxSlugLen {
			return fmt.Errorf("write services: invalid slug %q", sSlug(s))
		}
		data, err := MarshalService(s)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, s.Slug+".json"), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func sSlug(s *Service) string {
	if s == nil {
		return "<nil>"
	}
	return s.Slug
}

// MarshalService encodes s as an entry file: indented JSON, empty lists as [] rather than null,
// no HTML escaping, a final newline.
func MarshalService(s *Service) ([]byte, error) {
	c := *s
	if c.Cookies == nil {
		c.Cookies = []Cookie{}
	}
	if c.Scripts == nil {
		c.Scripts = []string{}
	}
	if c.Resources == nil {
		c.Resources = []string{}
	}
	if c.TrackingIDs == nil {
		c.TrackingIDs = []TrackingID{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return nil, fmt.Errorf("encode service %s: %w", s.Slug, err)
	}
	return buf.Bytes(), nil
}
