package extract

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	"github.com/consentd/consentd/library"
)

// TagManagerSlug is the library slug of Google Tag Manager, whose containers the crawler
// fetches to see the tags they configure.
const TagManagerSlug = "google-tag-manager"

// gtmTemplates maps GTM's built-in tag templates to library slugs. A tag using one of them loads
// that vendor's code even when no URL or ID of the vendor is written in the container.
var gtmTemplates = map[string]string{
	"__ua":                  "google-analytics",
	"__gaawc":               "google-analytics",
	"__gaawe":               "google-analytics",
	"__awct":                "google-ads",
	"__sp":                  "google-ads",
	"__gclidw":              "google-ads",
	"__hjtc":                "hotjar",
	"__bzi":                 "linkedin-insight",
	"__baut":                "microsoft-uet",
	"__pntr":                "pinterest-tag",
	"__twitter_website_tag": "x-pixel",
	"__crto":                "criteo",
	"__cegg":                "crazy-egg",
	"__qcm":                 "quantcast",
	"__asp":                 "adroll",
}

// AnalyzeContainer fingerprints a GTM container script. The container's configuration is the
// JSON object after "resource": tag templates name vendors, custom HTML tags hold vendor
// snippets (extracted like a page), other values hold IDs and URLs. GTM's own runtime code around
// it mentions many Google URLs whatever the container holds, so it is only read when the
// configuration cannot be decoded. Evidence points at the container, on the page that loads it.
func AnalyzeContainer(ix *library.Index, domainOf func(string) string, container *url.URL, page string, body []byte) *Report {
	resource, ok := containerResource(body)
	return analyzeResource(ix, domainOf, container, page, body, resource, ok)
}

// SiteContainer is AnalyzeContainer for a script the site serves itself at src, which may or
// may not be a tag manager container: ok is false unless its configuration decodes and has a
// container's shape (isContainerResource).
func SiteContainer(ix *library.Index, domainOf func(string) string, src *url.URL, page string, body []byte) (rep *Report, ok bool) {
	resource, ok := containerResource(body)
	if !ok || !isContainerResource(resource) {
		return nil, false
	}
	return analyzeResource(ix, domainOf, src, page, body, resource, true), true
}

// analyzeResource is AnalyzeContainer once the configuration is decoded (ok) or not.
func analyzeResource(ix *library.Index, domainOf func(string) string, container *url.URL, page string, body []byte, resource any, ok bool) *Report {
	pu, err := url.Parse(page)
	if err != nil {
		pu = container
	}
	x := New(ix, nil, domainOf, pu, page, false)
	if ok {
		walkContainer(x, "", resource)
	} else {
		x.Inline(body, false)
	}
	rep := x.rep
	for i := range rep.Hits {
		ev := &rep.Hits[i].Evidence
		what := ev.URL
		if what == "" {
			what = ev.Snippet
		}
		*ev = Evidence{Kind: EvidenceTagManager, Page: page, URL: container.String(), Snippet: what, Gated: ev.Gated}
	}
	return rep
}

func containerResource(body []byte) (any, bool) {
	i := bytes.Index(body, []byte(`"resource"`))
	if i < 0 {
		return nil, false
	}
	rest := bytes.TrimLeft(body[i+len(`"resource"`):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return nil, false
	}
	var v any
	if err := json.NewDecoder(bytes.NewReader(rest[1:])).Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

func walkContainer(x *Extractor, key string, v any) {
	switch t := v.(type) {
	case map[string]any:
		if fn, ok := t["function"].(string); ok {
			if slug, ok := gtmTemplates[fn]; ok {
				if svc := x.ix.Service(slug); svc != nil {
					x.rep.Hits = append(x.rep.Hits, Hit{Service: svc, Evidence: Evidence{Snippet: fn}})
				}
			}
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkContainer(x, k, t[k])
		}
	case []any:
		for _, e := range t {
			walkContainer(x, key, e)
		}
	case string:
		if key == "vtp_html" {
			x.Run([]byte(t))
			return
		}
		if t != "" {
			x.Inline([]byte(t), false)
		}
	}
}

// isContainerResource reports whether a decoded "resource" value is a tag manager container's
// configuration: an object with a version and tags, macros or predicates.
func isContainerResource(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := m["version"]; !ok {
		return false
	}
	for _, k := range [...]string{"tags", "macros", "predicates"} {
		if _, ok := m[k].([]any); ok {
			return true
		}
	}
	return false
}

// ContainerIDs are the GTM container IDs written in a container script, sorted and distinct.
func ContainerIDs(ix *library.Index, body []byte) []string {
	seen := map[string]bool{}
	ix.FindTrackingIDs(string(body), func(m library.IDMatch) {
		if m.Service.Slug == TagManagerSlug && strings.HasPrefix(m.ID, "GTM-") {
			seen[strings.Clone(m.ID)] = true
		}
	})
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
