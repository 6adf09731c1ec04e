package crawler

import (
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/extract"
	"github.com/consentd/consentd/library"
)

// storageAgg gathers the pages after which one storage key was held.
type storageAgg struct {
	k     StorageKey
	pages map[string]bool
}

// preConsentAgg gathers what one service did in the browser before consent.
type preConsentAgg struct {
	svc                               *library.Service
	requests, cookies, storage, pages map[string]bool
}

func (s *scan) preConsentOf(svc *library.Service) *preConsentAgg {
	a := s.preConsent[svc.Slug]
	if a == nil {
		a = &preConsentAgg{svc: svc, requests: map[string]bool{}, cookies: map[string]bool{}, storage: map[string]bool{}, pages: map[string]bool{}}
		s.preConsent[svc.Slug] = a
	}
	return a
}

// consentdOwn reports whether a URL is one of consentd's own public resources (the banner
// runtime, a site's loader, configuration, consent records, cookie declaration and page), on
// whatever host and under whatever path prefix consentd is served: the consent tool under
// test is not a finding.
func consentdOwn(u *url.URL) bool {
	_, _, ok := core.ParsePublicPath(u.EscapedPath())
	return ok
}

// consentdRuntime reports whether an absolute script URL is consentd's banner runtime, alone,
// in a site's loader or its lazily loaded part, which is no unrecognized script on the sites
// that embed it.
func consentdRuntime(abs string) bool {
	u, err := url.Parse(abs)
	if err != nil {
		return false
	}
	r, _, ok := core.ParsePublicPath(u.EscapedPath())
	return ok && (r == core.PublicRuntime || r == core.PublicRuntimeMore || r == core.PublicLoader)
}

// consentdStorage reports whether a cookie or storage key is consentd's own: the visitor's
// decision (cookie "consentd") and the runtime's cached configuration ("consentd:<key>").
func consentdStorage(name string) bool {
	return name == "consentd" || strings.HasPrefix(name, "consentd:")
}

// mergeVisit matches what the browser did on one page against the library and adds it to the
// scan: requests (URL patterns and IDs), script bodies (IDs of the vendor the script belongs
// to; tag manager containers and loaders served by the site itself, read as the static pass
// reads inline code), cookies and storage keys (the library's cookie names, else the vendor
// whose requests came from the cookie's domain), and everything a service did as pre-consent.
func (s *scan) mergeVisit(v *visit) {
	pageURL, err := url.Parse(v.page)
	if err != nil {
		return
	}
	ix := s.e.ix
	x := extract.New(ix, s.fp, s.domainOf, pageURL, v.page, false)
	var containers []*extract.Report
	// vendorOf maps the registrable domain of matched requests to their service, when one.
	vendorOf := map[string]*library.Service{}
	ambiguous := map[string]bool{}
	type did struct {
		svc  *library.Service
		what string
		kind int // 0 request, 1 cookie, 2 storage
	}
	var acts []did
	var reqs []Request
	for _, r := range v.records {
		u, err := url.Parse(r.URL)
		if err != nil {
			continue
		}
		info := v.types[r.URL]
		host := strings.ToLower(u.Hostname())
		third, dom := x.ThirdParty(host)
		req := Request{Page: v.page, URL: r.URL, Type: info.typ, Initiator: info.initiator, ThirdParty: third,
			Status: r.Status, Bytes: r.Bytes, Error: r.Err}
		if r.Refused {
			s.pageError(r.URL, 0, r.Err+" (requested by the browser on "+v.page+")")
		}
		if consentdOwn(u) {
			reqs = append(reqs, req)
			continue
		}
		loaded := r.Status > 0
		f := s.fp.URL(ix, r.URL)
		if f.Service != nil {
			req.Service = f.Service.Slug
			x.Report().AddHit(extract.Hit{Service: f.Service, Evidence: extract.Evidence{Kind: extract.EvidenceRequest, Page: v.page, URL: r.URL}})
			if loaded {
				acts = append(acts, did{f.Service, r.URL, 0})
			}
			if third {
				if o, ok := vendorOf[dom]; ok && o != f.Service {
					ambiguous[dom] = true
				}
				vendorOf[dom] = f.Service
			}
		}
		for _, id := range f.IDs {
			x.Report().AddHit(extract.Hit{Service: id.Service, ID: id.ID, Evidence: extract.Evidence{Kind: extract.EvidenceRequest, Page: v.page, URL: r.URL}})
			if loaded && id.Service != f.Service {
				acts = append(acts, did{id.Service, r.URL, 0})
			}
		}
		isScript := info.typ == "Script" || r.Dest == "script"
		switch {
		case len(r.Body) > 0 && r.Status == 200 && f.Service != nil:
			// A vendor's own script: the IDs of that vendor written in it.
			body := string(r.Body)
			ix.FindTrackingIDs(body, func(m library.IDMatch) {
				if m.Service == f.Service {
					x.Report().AddHit(extract.Hit{Service: m.Service, ID: strings.Clone(m.ID),
						Evidence: extract.Evidence{Kind: extract.EvidenceScriptBody, Page: v.page, URL: r.URL, Snippet: extract.Snippet(body, m.Start, m.End)}})
				}
			})
		case len(r.Body) > 0 && r.Status == 200 && !third:
			// The site's own script: a self-served container, or loader code.
			if crep, ok := extract.SiteContainer(ix, s.domainOf, u, v.page, r.Body); ok {
				if svc := ix.Service(extract.TagManagerSlug); svc != nil {
					ev := extract.Evidence{Kind: extract.EvidenceTagManager, Page: v.page, URL: r.URL, Snippet: "tag manager container served by the site"}
					crep.Hits = append(crep.Hits, extract.Hit{Service: svc, Evidence: ev})
					for _, id := range extract.ContainerIDs(ix, r.Body) {
						crep.Hits = append(crep.Hits, extract.Hit{Service: svc, ID: id, Evidence: ev})
					}
				}
				containers = append(containers, crep)
			} else {
				x.Inline(r.Body, false)
			}
		case isScript && third && f.Service == nil && len(f.IDs) == 0 && (loaded || r.Unreachable):
			// The browser requests a non-ASCII address percent-encoded: the script the static
			// pass listed as written is the same one.
			src := r.URL
			if dec, err := url.PathUnescape(src); err == nil && dec != src {
				s.mu.Lock()
				if _, ok := s.unrec[dec]; ok {
					src = dec
				}
				s.mu.Unlock()
			}
			// A script the page asks for that never arrived (its host does not resolve, the
			// connection was refused, a CDN is down) is listed with why: the owner must hear of it.
			u := extract.Unrecognized{Src: src, Domain: dom, Page: v.page, Err: loadError(r.Status, r.Err)}
			x.Report().Unrecognized = append(x.Report().Unrecognized, u)
		}
		reqs = append(reqs, req)
	}
	// Tags the page was given that the browser never requested: held until consent (by markup,
	// a consent tool or consentd's runtime), they would load their vendor, which the owner must
	// configure. Detections, not pre-consent actions.
	requested := map[string]bool{}
	for _, r := range v.records {
		requested[r.URL] = true
	}
	for _, tag := range v.storage.Tags {
		if requested[tag] {
			continue
		}
		f := s.fp.URL(ix, tag)
		if f.Service != nil {
			x.Report().AddHit(extract.Hit{Service: f.Service, Evidence: extract.Evidence{Kind: extract.EvidenceScript, Page: v.page, URL: tag, Snippet: "held in the browser", Gated: true}})
		}
		for _, id := range f.IDs {
			x.Report().AddHit(extract.Hit{Service: id.Service, ID: id.ID, Evidence: extract.Evidence{Kind: extract.EvidenceScript, Page: v.page, URL: tag, Snippet: "held in the browser", Gated: true}})
		}
	}
	// Script text read above can name vendors (loaders, containers) whose code never ran:
	// those are detections, not pre-consent actions.
	for _, c := range v.cookies {
		dom := strings.TrimPrefix(strings.ToLower(c.Domain), ".")
		if v.injected[c.Name+"\x00"+dom] || consentdStorage(c.Name) {
			continue
		}
		third := !s.domains[s.domainOf(dom)]
		svc := s.cookieOwner(c.Name, dom, third, vendorOf, ambiguous)
		var life time.Duration
		if !c.Session && c.Expires > 0 {
			// Measured from the end of the page, seconds after the cookie was written: lifetimes
			// of an hour or more are given to the minute, so a year stays a year.
			life = max(time.Unix(int64(c.Expires), 0).Sub(v.at).Round(time.Second), 0)
			if life >= time.Hour {
				life = life.Round(time.Minute)
			}
		}
		s.mu.Lock()
		key := c.Name + "\x00" + dom
		a := s.cookies[key]
		if a == nil {
			a = &cookieAgg{c: ObservedCookie{Name: c.Name, Domain: dom, Path: c.Path, Session: c.Session, ThirdParty: third,
				HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: string(c.SameSite)}, urls: map[string]bool{}, pages: map[string]bool{}}
			s.cookies[key] = a
		}
		a.c.MaxAge = max(a.c.MaxAge, life)
		a.pages[v.page] = true
		if svc != nil && a.c.Service == "" {
			a.c.Service = svc.Slug
		}
		s.mu.Unlock()
		if svc != nil {
			x.Report().AddHit(extract.Hit{Service: svc, Evidence: extract.Evidence{Kind: extract.EvidenceCookie, Page: v.page, Snippet: c.Name}})
			acts = append(acts, did{svc, c.Name, 1})
		}
	}
	for _, kk := range []struct {
		kind string
		keys []string
	}{{core.StorageLocal, v.storage.Local}, {core.StorageSession, v.storage.Session}} {
		for _, name := range kk.keys {
			// consentd's own keys are no finding; a key holding NUL cannot be stored as text.
			if consentdStorage(name) || strings.IndexByte(name, 0) >= 0 {
				continue
			}
			var svc *library.Service
			if m, ok := ix.MatchCookie(name); ok {
				svc = m.Service
			}
			s.mu.Lock()
			key := kk.kind + "\x00" + v.storage.Host + "\x00" + name
			a := s.storage[key]
			if a == nil {
				a = &storageAgg{k: StorageKey{Kind: kk.kind, Name: name, Host: v.storage.Host}, pages: map[string]bool{}}
				s.storage[key] = a
			}
			a.pages[v.page] = true
			if svc != nil {
				a.k.Service = svc.Slug
			}
			s.mu.Unlock()
			if svc != nil {
				x.Report().AddHit(extract.Hit{Service: svc, Evidence: extract.Evidence{Kind: extract.EvidenceStorage, Page: v.page, Snippet: name}})
				acts = append(acts, did{svc, name, 2})
			}
		}
	}
	s.merge(x.Report(), false)
	for _, c := range containers {
		s.merge(c, false)
	}
	if len(containers) > 0 {
		s.markInjects()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range acts {
		p := s.preConsentOf(a.svc)
		p.pages[v.page] = true
		switch a.kind {
		case 0:
			p.requests[a.what] = true
		case 1:
			p.cookies[a.what] = true
		case 2:
			p.storage[a.what] = true
		}
	}
	for _, r := range reqs {
		if len(s.requests) < MaxRequests {
			s.requests = append(s.requests, r)
		}
	}
}

// cookieOwner is the service a cookie belongs to: the library's service of that cookie name
// (when its party fits), else the vendor whose requests came from the cookie's third-party
// domain (vendorOf, unless ambiguous); nil when none.
func (s *scan) cookieOwner(name, dom string, third bool, vendorOf map[string]*library.Service, ambiguous map[string]bool) *library.Service {
	if m, ok := s.e.ix.MatchCookie(name); ok && (m.Cookie.Party == "" || (m.Cookie.Party == "third") == third) {
		return m.Service
	}
	if d := s.domainOf(dom); third && !ambiguous[d] {
		return vendorOf[d]
	}
	return nil
}

// deepResult adds the browser pass's own lists to a result.
func (s *scan) deepResult(r *Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.splitMentions(r)
	r.Storage = make([]StorageKey, 0, len(s.storage))
	for _, a := range s.storage {
		k := a.k
		k.Pages = sortedKeys(a.pages)
		r.Storage = append(r.Storage, k)
	}
	sort.Slice(r.Storage, func(i, j int) bool {
		a, b := r.Storage[i], r.Storage[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Host != b.Host {
			return a.Host < b.Host
		}
		return a.Name < b.Name
	})
	r.PreConsent = make([]core.PreConsentFinding, 0, len(s.preConsent))
	for slug, a := range s.preConsent {
		r.PreConsent = append(r.PreConsent, core.PreConsentFinding{Slug: slug, Name: a.svc.Label, Category: a.svc.Category,
			Requests: capped(a.requests), Cookies: capped(a.cookies), Storage: capped(a.storage), Pages: sortedKeys(a.pages)})
	}
	sort.Slice(r.PreConsent, func(i, j int) bool { return r.PreConsent[i].Slug < r.PreConsent[j].Slug })
	r.Requests = append([]Request{}, s.requests...)
	sort.SliceStable(r.Requests, func(i, j int) bool {
		if r.Requests[i].Page != r.Requests[j].Page {
			return r.Requests[i].Page < r.Requests[j].Page
		}
		return r.Requests[i].URL < r.Requests[j].URL
	})
}

func capped(m map[string]bool) []string {
	out := sortedKeys(m)
	if len(out) > core.MaxPreConsentItems {
		out = out[:core.MaxPreConsentItems]
	}
	return out
}
