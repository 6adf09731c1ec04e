package crawler

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/consentd/consentd/library"
)

// A tag manager container can be served from the site's own domain (server-side tagging, a
// first-party proxy, a copy under /assets/), at any path: the static pass fetches the page's
// same-site scripts that no library pattern claims and recognises a container by its content.

// Bounds of the same-site scripts fetched per scan, and of what is read of each.
const (
	maxOwnScripts     = 16
	maxOwnScriptBytes = 4 << 20
)

// ownScripts fetches, once per scan each and at most maxOwnScripts in all, the same-site
// scripts of a page, and fingerprints those that are tag manager containers.
func (s *scan) ownScripts(rep *pageReport, page string) {
	for _, o := range rep.own {
		s.mu.Lock()
		done := s.ownSeen[o.url] || len(s.ownSeen) >= maxOwnScripts
		if !done {
			s.ownSeen[o.url] = true
		}
		s.mu.Unlock()
		if !done {
			s.ownScript(o, page)
		}
	}
}

// ownScript fetches one same-site script. A script that cannot be fetched is no finding and no
// page error: the page itself was scanned.
func (s *scan) ownScript(o ownScript, page string) {
	req, err := http.NewRequestWithContext(context.WithValue(s.ctx, pageKey{}, page), http.MethodGet, o.url, nil)
	if err != nil {
		return
	}
	req.Header.Set("User-Agent", s.opts.UserAgent)
	resp, err := s.client.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return
	}
	body, _, err := readLimited(resp.Body, min(s.opts.MaxBodyBytes, maxOwnScriptBytes))
	if err != nil {
		return
	}
	resource, ok := containerResource(body)
	if !ok || !isContainerResource(resource) {
		return
	}
	cu, err := url.Parse(o.url)
	if err != nil {
		return
	}
	crep := analyzeResource(s.e.ix, s.domainOf, cu, page, body, resource, true)
	ids := containerIDs(s.e.ix, body)
	if svc := s.e.ix.Service(TagManagerSlug); svc != nil {
		ev := Evidence{Kind: EvidenceTagManager, Page: page, URL: o.url, Snippet: "tag manager container served by the site"}
		if len(ids) == 0 {
			crep.hits = append(crep.hits, hit{svc: svc, ev: ev})
		}
		for _, id := range ids {
			crep.hits = append(crep.hits, hit{svc: svc, id: id, ev: ev})
		}
	}
	if o.gated {
		for i := range crep.hits {
			crep.hits[i].ev.Gated = true
		}
	}
	s.mu.Lock()
	for _, id := range ids {
		s.gtmSeen[id] = true // the container is read; Google's copy need not be fetched
	}
	s.mu.Unlock()
	s.merge(crep, false)
	s.markInjects()
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

// containerIDs are the GTM container IDs written in a container script, sorted and distinct.
func containerIDs(ix *library.Index, body []byte) []string {
	seen := map[string]bool{}
	ix.FindTrackingIDs(string(body), func(m library.IDMatch) {
		if m.Service.Slug == TagManagerSlug && strings.HasPrefix(m.ID, "GTM-") {
			seen[strings.Clone(m.ID)] = true
		}
	})
	return sortedKeys(seen)
}
