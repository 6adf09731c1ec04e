package library

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Limits of an entry's fields.
const (
	MaxSlugLen        = 100
	MaxLabelLen       = 200
	MaxDescriptionLen = 1000
)

var slugRE = regexp.MustCompile(`^[a-z0-9-]+$`)

// sharedHosts serve many unrelated things; a pattern on one of them, or on a subdomain, must
// carry a path or it would claim every service hosted there.
var sharedHosts = []string{"google.com", "gstatic.com", "googleapis.com", "cloudfront.net", "amazonaws.com"}

// Problem is one validation failure of one entry: the file, the field (a JSON path such as
// "cookies[2].match", or "" for the file as a whole) and what is wrong.
type Problem struct {
	File    string
	Field   string
	Message string
}

// Error formats the problem as "file: field: message".
func (p *Problem) Error() string {
	if p.Field == "" {
		return p.File + ": " + p.Message
	}
	return p.File + ": " + p.Field + ": " + p.Message
}

// Problems is every validation failure found while loading or linting, in file order.
type Problems []*Problem

// Error lists the problems, one per line.
func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	if len(ps) > 1 {
		return fmt.Sprintf("%d library problems:\n%s", len(ps), b.String())
	}
	return b.String()
}

// Errors returns the problems as a slice of errors, each a *Problem.
func (ps Problems) Errors() []error {
	out := make([]error, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// Entry is a validated service with its patterns compiled.
type Entry struct {
	// Service is the entry as loaded. It is shared: callers must not modify it.
	Service *Service
	// File names the file the entry was loaded from.
	File string
	// Scripts and Resources are the compiled Service.Scripts and Service.Resources, same order.
	Scripts, Resources []Pattern
	// TrackingIDs are the compiled Service.TrackingIDs patterns, same order.
	TrackingIDs []*regexp.Regexp
}

// validator collects the problems of one file.
type validator struct {
	file     string
	problems Problems
}

func (v *validator) addf(field, format string, args ...any) {
	v.problems = append(v.problems, &Problem{File: v.file, Field: field, Message: fmt.Sprintf(format, args...)})
}

// compileService validates s, loaded from file (whose base name without ".json" is wantSlug, or
// "" to skip that check), and compiles its patterns. It returns every problem found; the entry
// is usable only when there are none.
// attrNameRE is an attribute name a tracking ID may be read from.
var attrNameRE = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

func compileService(s *Service, file, wantSlug string) (*Entry, Problems) {
	v := &validator{file: file}
	e := &Entry{Service: s, File: file}

	switch {
	case s.Slug == "":
		v.addf("slug", "required")
	case len(s.Slug) > MaxSlugLen:
		v.addf("slug", "at most %d characters, got %d", MaxSlugLen, len(s.Slug))
	case !slugRE.MatchString(s.Slug):
		v.addf("slug", "%q must match ^[a-z0-9-]+$", s.Slug)
	case wantSlug != "" && s.Slug != wantSlug:
		v.addf("slug", "%q must equal the file name %q", s.Slug, wantSlug)
	}
	v.text("label", s.Label, MaxLabelLen, true)
	v.text("description", s.Description, MaxDescriptionLen, true)
	v.text("vendor", s.Vendor, MaxLabelLen, true)
	switch s.Category {
	case CategoryEssential, CategoryStatistics, CategoryMarketing:
	case "":
		v.addf("category", "required")
	default:
		v.addf("category", "%q must be essential, statistics or marketing", s.Category)
	}
	if s.Logo != nil {
		v.url("logo", *s.Logo)
	}
	v.url("serviceUrl", s.ServiceURL)
	v.url("privacyPolicyUrl", s.PrivacyPolicyURL)
	v.text("selfHostFix", s.SelfHostFix, MaxDescriptionLen, false)

	seenCookie := make(map[string]int, len(s.Cookies))
	for i, c := range s.Cookies {
		f := fmt.Sprintf("cookies[%d]", i)
		if c.Name == "" {
			v.addf(f+".name", "required")
		}
		switch c.Match {
		case MatchExact, MatchPrefix:
		case MatchRegex:
			if c.Name != "" {
				if _, err := regexp.Compile(c.Name); err != nil {
					v.addf(f+".name", "regex does not compile: %v", err)
				}
			}
		default:
			v.addf(f+".match", "must be exact, prefix or regex")
		}
		if strings.TrimSpace(c.Duration) == "" {
			v.addf(f+".duration", "required")
		}
		if c.Party != "first" && c.Party != "third" {
			v.addf(f+".party", "must be first or third")
		}
		if c.Storage != "cookie" && c.Storage != "localStorage" {
			v.addf(f+".storage", "must be cookie or localStorage")
		}
		key := c.Match + "\x00" + c.Storage + "\x00" + c.Name
		if j, dup := seenCookie[key]; dup && c.Name != "" {
			v.addf(f+".name", "%q duplicates cookies[%d]", c.Name, j)
		} else {
			seenCookie[key] = i
		}
	}

	for i := range s.LoadedBy {
		l := &s.LoadedBy[i]
		f := fmt.Sprintf("loadedBy[%d]", i)
		if l.Script == "" || strings.Contains(l.Script, "://") {
			v.addf(f+".script", "a URL prefix without the scheme required")
		}
		re, err := regexp.Compile(l.Call)
		if l.Call == "" || err != nil {
			v.addf(f+".call", "a regular expression required (%v)", err)
			continue
		}
		l.call = re
	}

	e.Scripts = v.patterns("scripts", s.Scripts)
	e.Resources = v.patterns("resources", s.Resources)

	for i, t := range s.TrackingIDs {
		f := fmt.Sprintf("trackingIds[%d]", i)
		if t.Pattern == "" {
			v.addf(f+".pattern", "required")
			continue
		}
		re, err := regexp.Compile(t.Pattern)
		if err != nil {
			v.addf(f+".pattern", "regex does not compile: %v", err)
			continue
		}
		if n := re.NumSubexp(); n != 1 {
			v.addf(f+".pattern", "must have exactly one capture group, has %d", n)
			continue
		}
		if len(t.Examples) == 0 {
			v.addf(f+".examples", "at least one example required")
		}
		for j, a := range t.Attributes {
			if !attrNameRE.MatchString(a) {
				v.addf(fmt.Sprintf("%s.attributes[%d]", f, j), "%q must be a lower-case attribute name", a)
			}
		}
		for j, ex := range t.Examples {
			m := re.FindStringSubmatch(ex)
			if m == nil || m[1] == "" {
				v.addf(fmt.Sprintf("%s.examples[%d]", f, j), "%q is not matched by the pattern (or the capture group is empty)", ex)
			}
		}
		e.TrackingIDs = append(e.TrackingIDs, re)
	}
	if len(v.problems) > 0 {
		return nil, v.problems
	}
	return e, nil
}

func (v *validator) text(field, s string, max int, required bool) {
	n := utf8.RuneCountInString(s)
	switch {
	case strings.TrimSpace(s) == "":
		if required {
			v.addf(field, "required")
		}
	case !utf8.ValidString(s):
		v.addf(field, "not valid UTF-8")
	case n > max:
		v.addf(field, "at most %d characters, got %d", max, n)
	}
}

func (v *validator) url(field, s string) {
	if s == "" {
		v.addf(field, "required")
		return
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		v.addf(field, "does not parse: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		v.addf(field, "%q must be an absolute http(s) URL", s)
	case u.Host == "":
		v.addf(field, "%q has no host", s)
	}
}

func (v *validator) patterns(field string, raws []string) []Pattern {
	out := make([]Pattern, 0, len(raws))
	for i, raw := range raws {
		f := fmt.Sprintf("%s[%d]", field, i)
		p, err := ParsePattern(raw)
		if err != nil {
			v.addf(f, "%v", err)
			continue
		}
		if p.Path == "" && isSharedHost(p.Host) {
			v.addf(f, "%q is on shared host %s and must carry a path", raw, p.Host)
			continue
		}
		out = append(out, p)
	}
	return out
}

// isSharedHost reports whether host is one of sharedHosts or a subdomain of one.
func isSharedHost(host string) bool {
	for _, h := range sharedHosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}

// Key returns the pattern in normal form: lower-case host, "*." when it covers subdomains, the
// path, and the query condition. Two patterns with the same key match the same URLs.
func (p Pattern) Key() string {
	var b strings.Builder
	if p.Subdomains {
		b.WriteString("*.")
	}
	b.WriteString(p.Host)
	b.WriteString(p.Path)
	if p.Param != "" {
		b.WriteByte('?')
		b.WriteString(p.Param)
		b.WriteByte('=')
		b.WriteString(p.ParamPrefix)
	}
	return b.String()
}

// crossCheck reports script patterns claimed by more than one entry. entries are in slug order,
// so the later entry is the one reported.
func crossCheck(entries []*Entry) Problems {
	var ps Problems
	owner := make(map[string]*Entry)
	for _, e := range entries {
		for i, p := range e.Scripts {
			k := p.Key()
			if o, ok := owner[k]; ok {
				msg := fmt.Sprintf("%q is also claimed by %s (%s)", p.Raw, o.Service.Slug, o.File)
				if o == e {
					msg = fmt.Sprintf("%q is listed twice", p.Raw)
				}
				ps = append(ps, &Problem{File: e.File, Field: fmt.Sprintf("scripts[%d]", i), Message: msg})
				continue
			}
			owner[k] = e
		}
	}
	return ps
}
