package crawler

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/consentd/consentd/library"
)

// TagManagerSlug is the library slug of Google Tag Manager, whose containers the crawler
// fetches to see the tags they configure.
const TagManagerSlug = "google-tag-manager"

// containerURL is where a GTM container's script is served.
const containerURL = "https://www.googletagmanager.com/gtm.js?id="

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

// tagManagers fetches the containers of the GTM IDs a page revealed, once per scan each.
func (s *scan) tagManagers(rep *pageReport, page string) {
	var ids []string
	for _, h := range rep.hits {
		if h.svc.Slug == TagManagerSlug && strings.HasPrefix(h.id, "GTM-") {
			ids = append(ids, h.id)
		}
	}
	if len(ids) == 0 {
		if hasService(rep, TagManagerSlug) {
			s.markInjects()
		}
		return
	}
	s.markInjects()
	sort.Strings(ids)
	for _, id := range ids {
		s.mu.Lock()
		done := s.gtmSeen[id]
		s.gtmSeen[id] = true
		s.mu.Unlock()
		if !done {
			s.container(id, page)
		}
	}
}

func hasService(rep *pageReport, slug string) bool {
	for _, h := range rep.hits {
		if h.svc.Slug == slug {
			return true
		}
	}
	return false
}

func (s *scan) markInjects() {
	s.mu.Lock()
	if a := s.services[TagManagerSlug]; a != nil {
		a.injectTags = true
	}
	s.mu.Unlock()
}

// container fetches one GTM container and fingerprints the tags it configures.
func (s *scan) container(id, page string) {
	u := containerURL + url.QueryEscape(id)
	req, err := http.NewRequestWithContext(context.WithValue(s.ctx, pageKey{}, page), http.MethodGet, u, nil)
	if err != nil {
		return
	}
	req.Header.Set("User-Agent", s.opts.UserAgent)
	resp, err := s.client.Do(req)
	if err != nil {
		s.pageError(u, 0, "tag manager container could not be fetched: "+fetchMessage(err))
		return
	}
	defer resp.Body.Close()
	body, over, err := readLimited(resp.Body, s.opts.MaxBodyBytes)
	if err != nil {
		s.pageError(u, resp.StatusCode, "tag manager container could not be read: "+err.Error())
		return
	}
	if resp.StatusCode != http.StatusOK {
		s.pageError(u, resp.StatusCode, fmt.Sprintf("tag manager container answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode)))
		return
	}
	if over {
		s.pageError(u, resp.StatusCode, fmt.Sprintf("tag manager container exceeds the limit of %d bytes; only the first %d bytes were scanned", s.opts.MaxBodyBytes, s.opts.MaxBodyBytes))
	}
	cu, _ := url.Parse(u)
	s.merge(analyzeContainer(s.e.ix, s.domainOf, cu, page, body), false)
}

// analyzeContainer fingerprints a GTM container script. The container's configuration is the
// JSON object after "resource": tag templates name vendors, custom HTML tags hold vendor
// snippets (extracted like a page), other values hold IDs and URLs. GTM's own runtime code around
// it mentions many Google URLs whatever the container holds, so it is only read when the
// configuration cannot be decoded. Evidence points at the container, on the page that loads it.
func analyzeContainer(ix *library.Index, domainOf func(string) string, container *url.URL, page string, body []byte) *pageReport {
	resource, ok := containerResource(body)
	return analyzeResource(ix, domainOf, container, page, body, resource, ok)
}

// analyzeResource is analyzeContainer once the configuration is decoded (ok) or not.
func analyzeResource(ix *library.Index, domainOf func(string) string, container *url.URL, page string, body []byte, resource any, ok bool) *pageReport {
	pu, err := url.Parse(page)
	if err != nil {
		pu = container
	}
	x := newExtractor(ix, domainOf, pu, page, false)
	if ok {
		walkContainer(x, "", resource)
	} else {
		x.inline(body, false)
	}
	rep := x.rep
	for i := range rep.hits {
		ev := &rep.hits[i].ev
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

func walkContainer(x *extractor, key string, v any) {
	switch t := v.(type) {
	case map[string]any:
		if fn, ok := t["function"].(string); ok {
			if slug, ok := gtmTemplates[fn]; ok {
				if svc := x.ix.Service(slug); svc != nil {
					x.rep.hits = append(x.rep.hits, hit{svc: svc, ev: Evidence{Snippet: fn}})
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
			x.run([]byte(t))
			return
		}
		if t != "" {
			x.inline([]byte(t), false)
		}
	}
}

// readLimited reads at most limit bytes of r and says whether there was more.
func readLimited(r io.Reader, limit int64) ([]byte, bool, error) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if n > limit {
		return buf.Bytes()[:limit], true, nil
	}
	return buf.Bytes(), false, nil
}
