package crawler

import (
	"context"
	"net/http"
	"net/url"

	"github.com/consentd/consentd/crawler/extract"
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
func (s *scan) ownScripts(rep *extract.Report, page string) {
	for _, o := range rep.Own {
		s.mu.Lock()
		done := s.ownSeen[o.URL] || len(s.ownSeen) >= maxOwnScripts
		if !done {
			s.ownSeen[o.URL] = true
		}
		s.mu.Unlock()
		if !done {
			s.ownScript(o, page)
		}
	}
}

// ownScript fetches one same-site script. A script that cannot be fetched is no finding and no
// page error: the page itself was scanned.
func (s *scan) ownScript(o extract.OwnScript, page string) {
	req, err := http.NewRequestWithContext(context.WithValue(s.ctx, pageKey{}, page), http.MethodGet, o.URL, nil)
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
	cu, err := url.Parse(o.URL)
	if err != nil {
		return
	}
	crep, ok := extract.SiteContainer(s.e.ix, s.domainOf, cu, page, body)
	if !ok {
		return
	}
	ids := extract.ContainerIDs(s.e.ix, body)
	if svc := s.e.ix.Service(extract.TagManagerSlug); svc != nil {
		ev := extract.Evidence{Kind: extract.EvidenceTagManager, Page: page, URL: o.URL, Snippet: "tag manager container served by the site"}
		if len(ids) == 0 {
			crep.Hits = append(crep.Hits, extract.Hit{Service: svc, Evidence: ev})
		}
		for _, id := range ids {
			crep.Hits = append(crep.Hits, extract.Hit{Service: svc, ID: id, Evidence: ev})
		}
	}
	if o.Gated {
		for i := range crep.Hits {
			crep.Hits[i].Evidence.Gated = true
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
