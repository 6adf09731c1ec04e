package crawler

import (
	"slices"
	"sort"

	"github.com/consentd/consentd/crawler/extract"
	"github.com/consentd/consentd/library"
)

// serviceAgg gathers the sightings of one library service over a scan.
type serviceAgg struct {
	svc        *library.Service
	ids        map[string]bool
	pages      map[string]bool
	evidence   map[extract.Evidence]string // evidence without page → first page in sort order
	ungated    bool
	injectTags bool
	// witnessed is true when a sighting is more than a mention (see mention); witnessedIDs
	// are the tracking IDs such a sighting carried.
	witnessed    bool
	witnessedIDs map[string]bool
	// witnessedOn are the pages with such a sighting; namedOn maps each tracking ID seen only
	// in mentions so far to their pages.
	witnessedOn map[string]bool
	namedOn     map[string]map[string]bool
}

// mention reports whether a sighting only names a service: a tracking ID or URL in script text
// (comments, strings, data blocks) or a resource hint, not held by a consent tool. In a deep
// scan the browser is the witness: a service or ID seen only that way is a mention, not a
// detection. Tags (script src, iframes, pixels), tags held until consent, tag manager
// containers, cookies and what the browser requested or stored are witnesses.
func mention(ev extract.Evidence) bool {
	if ev.Gated {
		return false
	}
	switch ev.Kind {
	case extract.EvidenceInlineScript, extract.EvidenceInlineURL, extract.EvidenceLink, extract.EvidenceAttribute:
		return true
	}
	return false
}

// loadedByTag reports whether a mention hit's ID is one the page configures a tag it loaded
// with, a tag that then loads the hit's service (library.Service.LoadedBy): Google Ads through
// the Google tag loaded for Analytics. That is a witness as the tag itself is.
func loadedByTag(rep *extract.Report, h extract.Hit) bool {
	if h.ID == "" || h.Evidence.Kind != extract.EvidenceInlineScript || len(h.Service.LoadedBy) == 0 {
		return false
	}
	for _, t := range rep.Hits {
		if t.Evidence.URL == "" || t.Evidence.Page != h.Evidence.Page || mention(t.Evidence) {
			continue
		}
		for i := range h.Service.LoadedBy {
			if h.Service.LoadedBy[i].Loads(t.Evidence.URL, h.Evidence.Snippet) {
				return true
			}
		}
	}
	return false
}

// unrecAgg gathers the pages loading one unrecognized script.
type unrecAgg struct {
	domain  string
	pages   map[string]bool
	ungated bool
	err     string // the first failure to load it
}

// merge adds a page's findings to the scan; cookies say the hits must not add pages.
func (s *scan) merge(rep *extract.Report, noPages bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range rep.Hits {
		witness := !mention(h.Evidence) || loadedByTag(rep, h)
		a := s.services[h.Service.Slug]
		if a == nil {
			a = &serviceAgg{svc: h.Service, ids: map[string]bool{}, pages: map[string]bool{}, evidence: map[extract.Evidence]string{},
				witnessedIDs: map[string]bool{}, witnessedOn: map[string]bool{}, namedOn: map[string]map[string]bool{}}
			s.services[h.Service.Slug] = a
		}
		if h.ID != "" {
			a.ids[h.ID] = true
		}
		if witness {
			a.witnessed = true
			a.witnessedOn[h.Evidence.Page] = true
			if h.ID != "" {
				a.witnessedIDs[h.ID] = true
			}
		} else if h.ID != "" {
			if a.namedOn[h.ID] == nil {
				a.namedOn[h.ID] = map[string]bool{}
			}
			a.namedOn[h.ID][h.Evidence.Page] = true
		}
		if !noPages {
			a.pages[h.Evidence.Page] = true
		}
		if !h.Evidence.Gated {
			a.ungated = true
		}
		key := h.Evidence
		key.Page = ""
		if p, ok := a.evidence[key]; !ok || h.Evidence.Page < p {
			a.evidence[key] = h.Evidence.Page
		}
	}
	for _, u := range rep.Unrecognized {
		if consentdRuntime(u.Src) {
			continue // the consent tool under test, loaded from another domain
		}
		a := s.unrec[u.Src]
		if a == nil {
			a = &unrecAgg{domain: u.Domain, pages: map[string]bool{}}
			s.unrec[u.Src] = a
		}
		if !u.Gated {
			a.ungated = true
		}
		if a.err == "" {
			a.err = u.Err
		}
		a.pages[u.Page] = true
	}
}

func (s *scan) result() *Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &Result{Pages: s.pages, Services: []DetectedService{}, Unrecognized: []UnrecognizedScript{}, Cookies: []ObservedCookie{}, Errors: s.errs}
	if r.Pages == nil {
		r.Pages = []Page{}
	}
	if r.Errors == nil {
		r.Errors = []PageError{}
	}
	sort.Slice(r.Pages, func(i, j int) bool { return r.Pages[i].URL < r.Pages[j].URL })
	sort.Slice(r.Errors, func(i, j int) bool {
		if r.Errors[i].URL != r.Errors[j].URL {
			return r.Errors[i].URL < r.Errors[j].URL
		}
		return r.Errors[i].Message < r.Errors[j].Message
	})
	for slug, a := range s.services {
		ds := DetectedService{Slug: slug, Name: a.svc.Label, Category: a.svc.Category,
			TrackingIDs: sortedKeys(a.ids), Pages: sortedKeys(a.pages), Gated: !a.ungated, InjectsTags: a.injectTags}
		for ev, page := range a.evidence {
			ev.Page = page
			ds.Evidence = append(ds.Evidence, ev)
		}
		sort.Slice(ds.Evidence, func(i, j int) bool { return evidenceLess(ds.Evidence[i], ds.Evidence[j]) })
		if len(ds.Evidence) > MaxEvidence {
			ds.Evidence = ds.Evidence[:MaxEvidence]
		}
		r.Services = append(r.Services, ds)
	}
	sort.Slice(r.Services, func(i, j int) bool { return r.Services[i].Slug < r.Services[j].Slug })
	for src, a := range s.unrec {
		r.Unrecognized = append(r.Unrecognized, UnrecognizedScript{Src: src, Domain: a.domain, Pages: sortedKeys(a.pages), Gated: !a.ungated, Error: a.err})
	}
	sort.Slice(r.Unrecognized, func(i, j int) bool { return r.Unrecognized[i].Src < r.Unrecognized[j].Src })
	for _, a := range s.cookies {
		c := a.c
		c.URLs, c.Pages = sortedKeys(a.urls), sortedKeys(a.pages)
		r.Cookies = append(r.Cookies, c)
	}
	sort.Slice(r.Cookies, func(i, j int) bool {
		if r.Cookies[i].Name != r.Cookies[j].Name {
			return r.Cookies[i].Name < r.Cookies[j].Name
		}
		return r.Cookies[i].Domain < r.Cookies[j].Domain
	})
	return r
}

func evidenceLess(a, b extract.Evidence) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	if a.URL != b.URL {
		return a.URL < b.URL
	}
	if a.Snippet != b.Snippet {
		return a.Snippet < b.Snippet
	}
	if a.Page != b.Page {
		return a.Page < b.Page
	}
	return !a.Gated && b.Gated
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// CookiesOf returns the observed cookies that the library service slug claims (those whose
// Service is slug), by name and domain: what a scan lists under that detected service.
func (r *Result) CookiesOf(slug string) []ObservedCookie {
	var out []ObservedCookie
	for _, c := range r.Cookies {
		if c.Service == slug && slug != "" {
			out = append(out, c)
		}
	}
	return out
}

// splitMentions moves, in a deep scan's result, the services and tracking IDs seen only as
// mentions from Services to Mentions. The caller holds s.mu.
func (s *scan) splitMentions(r *Result) {
	kept := r.Services[:0]
	for _, ds := range r.Services {
		a := s.services[ds.Slug]
		if a == nil {
			kept = append(kept, ds)
			continue
		}
		var ids, named []string
		for _, id := range ds.TrackingIDs {
			// An ID named in the text of a page where the service is witnessed is the one that
			// page's code runs (an inline snippet's fbq('init', ...)).
			onWitnessedPage := false
			for page := range a.namedOn[id] {
				onWitnessedPage = onWitnessedPage || a.witnessedOn[page]
			}
			if a.witnessedIDs[id] || onWitnessedPage {
				ids = append(ids, id)
			} else {
				named = append(named, id)
			}
		}
		var said []extract.Evidence
		for _, ev := range ds.Evidence {
			if mention(ev) {
				said = append(said, ev)
			}
		}
		switch {
		case !a.witnessed:
			r.Mentions = append(r.Mentions, Mention{Slug: ds.Slug, Name: ds.Name, Category: ds.Category,
				TrackingIDs: ds.TrackingIDs, Pages: ds.Pages, Evidence: ds.Evidence})
			continue
		case len(named) > 0:
			var pages []string
			for _, ev := range said {
				pages = append(pages, ev.Page)
			}
			sort.Strings(pages)
			r.Mentions = append(r.Mentions, Mention{Slug: ds.Slug, Name: ds.Name, Category: ds.Category, Detected: true,
				TrackingIDs: named, Pages: slices.Compact(pages), Evidence: said})
		}
		if ids == nil {
			ids = []string{}
		}
		ds.TrackingIDs = ids
		kept = append(kept, ds)
	}
	r.Services = kept
}
