package crawler

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/consentd/consentd/library"
	"github.com/gocolly/colly/v2"
	"golang.org/x/net/publicsuffix"
)

// Engine scans sites against a compiled library index. It holds no per-scan state and is safe
// for concurrent use; every Crawl builds its own collector, client and connection pool.
type Engine struct {
	ix *library.Index
	// hooks and tlsConfig are replaced by tests only, to route every host to a loopback
	// replay server; the production path resolves and dials for real.
	hooks     *netHooks
	tlsConfig *tls.Config
}

// New returns an engine matching against ix.
func New(ix *library.Index) *Engine { return &Engine{ix: ix} }

type task struct {
	url   string
	depth int
}

// visitResult is what a page hands back to the frontier.
type visitResult struct {
	ok       bool
	links    []string
	finalURL string
	err      error // for start pages: why the page could not be scanned
}

// scan is the state of one Crawl.
type scan struct {
	e      *Engine
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc
	c      *colly.Collector
	client *http.Client

	domains  map[string]bool // registrable domains of the start URLs
	domCache sync.Map
	fp       *fingerprints // what repeated script URLs and inline scripts yield

	unlockMu sync.Mutex
	unlocked bool

	mu       sync.Mutex
	fatal    error
	pages    []Page
	errs     []PageError
	services map[string]*serviceAgg
	unrec    map[string]*unrecAgg
	cookies  map[string]*cookieAgg
	gtmSeen  map[string]bool
}

type serviceAgg struct {
	svc        *library.Service
	ids        map[string]bool
	pages      map[string]bool
	evidence   map[Evidence]string // evidence without page → first page in sort order
	ungated    bool
	injectTags bool
}

type unrecAgg struct {
	domain  string
	pages   map[string]bool
	ungated bool
}

type cookieAgg struct {
	c    ObservedCookie
	urls map[string]bool
}

// Crawl scans the start URLs and the same-site pages they link to, breadth first. It returns an
// *Error when the scan as a whole failed: invalid options, no start page could be fetched, the
// target was refused as a private address, a storefront password was missing or wrong, or the
// start page is behind a bot wall. Failures of single pages are in Result.Errors.
func (e *Engine) Crawl(ctx context.Context, opts Options) (*Result, error) {
	starts, err := opts.validate()
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	s := e.newScan(ctx, cancel, opts, starts)

	seen := map[string]bool{}
	var level []task
	for _, u := range starts {
		k := normalizeURL(u)
		if !seen[k] {
			seen[k] = true
			level = append(level, task{url: k})
		}
	}
	for depth := 0; len(level) > 0; depth++ {
		results := s.runLevel(level)
		if err := s.fatalErr(); err != nil {
			return nil, err
		}
		if depth == 0 {
			if err := startFailure(level, results); err != nil {
				return nil, err
			}
		}
		if ctx.Err() != nil {
			s.pageError(level[0].url, 0, "scan stopped: "+ctx.Err().Error())
			break
		}
		if depth >= opts.MaxDepth {
			break
		}
		for _, r := range results {
			if r.finalURL != "" {
				seen[r.finalURL] = true
			}
		}
		var next []task
		for _, r := range results {
			for _, l := range r.links {
				if len(seen) >= opts.MaxPages {
					break
				}
				if !seen[l] && s.sameSite(l) {
					seen[l] = true
					next = append(next, task{url: l, depth: depth + 1})
				}
			}
		}
		level = next
	}
	return s.result(), nil
}

// startFailure returns the scan error when no start page could be scanned.
func startFailure(level []task, results []visitResult) error {
	var first error
	for i, r := range results {
		if r.ok {
			return nil
		}
		if first == nil {
			first = r.err
			if first == nil {
				first = &Error{Kind: KindFetch, Message: "start page " + level[i].url + " could not be scanned"}
			}
		}
	}
	return first
}

func (e *Engine) newScan(ctx context.Context, cancel context.CancelFunc, opts Options, starts []*url.URL) *scan {
	s := &scan{
		e: e, opts: opts, ctx: ctx, cancel: cancel,
		domains:  map[string]bool{},
		services: map[string]*serviceAgg{},
		unrec:    map[string]*unrecAgg{},
		cookies:  map[string]*cookieAgg{},
		gtmSeen:  map[string]bool{},
	}
	for _, u := range starts {
		s.domains[s.domainOf(strings.ToLower(u.Hostname()))] = true
	}
	hooks := defaultHooks(opts.PageTimeout)
	if e.hooks != nil {
		hooks = *e.hooks
	}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would dial on our behalf and bypass the address check
		DialContext:           hooks.dialer(opts.AllowPrivate),
		TLSClientConfig:       e.tlsConfig,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          2 * opts.Concurrency,
		MaxIdleConnsPerHost:   opts.Concurrency,
		MaxConnsPerHost:       opts.Concurrency,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: opts.PageTimeout,
	}
	jar, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
	s.client = &http.Client{Transport: &cookieRecorder{rt: tr, s: s}, Jar: jar, Timeout: opts.PageTimeout}

	c := colly.NewCollector(colly.UserAgent(opts.UserAgent), colly.ParseHTTPErrorResponse(), colly.AllowURLRevisit())
	c.MaxBodySize = int(min(opts.MaxBodyBytes+1, int64(^uint(0)>>1)))
	c.IgnoreRobotsTxt = opts.IgnoreRobots
	c.Context = ctx
	c.SetClient(s.client)
	c.SetRedirectHandler(func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return fmt.Errorf("stopped after %d redirects", len(via))
		}
		return nil
	})
	c.OnResponse(func(r *colly.Response) {
		if f, ok := r.Ctx.GetAny("fetch").(*fetched); ok {
			f.status, f.body, f.final = r.StatusCode, r.Body, r.Request.URL
			if r.Headers != nil {
				f.header = *r.Headers
			}
		}
	})
	s.c = c
	return s
}

// cookieRecorder sees every response, redirect hops included, and records its Set-Cookie headers.
type cookieRecorder struct {
	rt http.RoundTripper
	s  *scan
}

func (r *cookieRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rt.RoundTrip(req)
	if err == nil {
		if lines := resp.Header.Values("Set-Cookie"); len(lines) > 0 {
			r.s.recordCookies(req.URL, lines)
		}
	}
	return resp, err
}

func (s *scan) runLevel(level []task) []visitResult {
	results := make([]visitResult, len(level))
	sem := make(chan struct{}, s.opts.Concurrency)
	var wg sync.WaitGroup
	for i, t := range level {
		if s.ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = s.visit(t)
		}()
	}
	wg.Wait()
	return results
}

// fetched is one response as colly handed it over.
type fetched struct {
	status int
	header http.Header
	body   []byte
	final  *url.URL
}

func (s *scan) fetch(method, u string, form url.Values) (*fetched, error) {
	f := &fetched{}
	cctx := colly.NewContext()
	cctx.Put("fetch", f)
	hdr := http.Header{}
	hdr.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
		hdr.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if err := s.c.Request(method, u, body, cctx, hdr); err != nil {
		return nil, err
	}
	if f.final == nil {
		return nil, errors.New("no response")
	}
	return f, nil
}

func (s *scan) visit(t task) visitResult {
	f, err := s.fetch(http.MethodGet, t.url, nil)
	if err == nil && s.isPasswordPage(f) {
		if err := s.unlock(f); err != nil {
			s.setFatal(err)
			return visitResult{err: err}
		}
		f, err = s.fetch(http.MethodGet, t.url, nil)
		if err == nil && s.isPasswordPage(f) {
			err = errors.New("still answered with the storefront password page after unlocking")
		}
	}
	if err != nil {
		msg := fetchMessage(err)
		s.pageError(t.url, 0, msg)
		return visitResult{err: s.startError(t.url, err, msg)}
	}
	final := normalizeURL(f.final)
	page := Page{URL: t.url, Status: f.status, Depth: t.depth, Bytes: int64(min(len(f.body), int(s.opts.MaxBodyBytes)))}
	if final != t.url {
		page.FinalURL = final
	}
	s.mu.Lock()
	s.pages = append(s.pages, page)
	s.mu.Unlock()
	if f.status >= 400 {
		return visitResult{finalURL: final, err: s.statusError(t.url, f)}
	}
	body := f.body
	if int64(len(body)) > s.opts.MaxBodyBytes {
		body = body[:s.opts.MaxBodyBytes]
		s.pageError(t.url, f.status, fmt.Sprintf("response body exceeds the limit of %d bytes; only the first %d bytes were scanned", s.opts.MaxBodyBytes, s.opts.MaxBodyBytes))
	}
	ct := f.header.Get("Content-Type")
	if !isHTML(ct, body) {
		return visitResult{ok: true, finalURL: final}
	}
	x := newExtractor(s.e.ix, s.domainOf, f.final, t.url, t.depth < s.opts.MaxDepth)
	x.fp = s.fp
	x.run(decodeHTML(body, ct))
	s.merge(x.rep, false)
	s.tagManagers(x.rep, t.url)
	return visitResult{ok: true, links: x.rep.links, finalURL: final}
}

func isHTML(contentType string, body []byte) bool {
	if contentType == "" {
		contentType = http.DetectContentType(body[:min(len(body), 512)])
	}
	ct := strings.ToLower(contentType)
	return strings.Contains(ct, "html")
}

// statusError records a 4xx/5xx page and says why it stops the scan if it is a start page.
func (s *scan) statusError(u string, f *fetched) error {
	status := f.status
	text := fmt.Sprintf("%d %s", status, http.StatusText(status))
	botWall := status == http.StatusForbidden || status == http.StatusTooManyRequests ||
		(status == http.StatusServiceUnavailable && f.header.Get("Cf-Mitigated") != "")
	if botWall {
		s.pageError(u, status, "answered "+text+": blocked as a bot")
		return &Error{Kind: KindBotWall, Temporary: status != http.StatusForbidden,
			Message: fmt.Sprintf("start page %s answered %s: the site blocks automated clients (bot protection)", u, text)}
	}
	s.pageError(u, status, "answered "+text)
	return &Error{Kind: KindHTTPStatus, Temporary: status >= 500,
		Message: fmt.Sprintf("start page %s answered %s", u, text)}
}

// startError wraps a transport error of a start page as a scan error.
func (s *scan) startError(u string, err error, msg string) error {
	var refused *refusedError
	if errors.As(err, &refused) {
		return &Error{Kind: KindRefused, Message: refused.Error(), Err: err}
	}
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	return &Error{Kind: KindFetch, Temporary: isTemporaryNet(err), Message: fmt.Sprintf("start page %s could not be fetched: %s", u, msg), Err: err}
}

// fetchMessage turns a transport error into a short message without Go's wrapping noise.
func fetchMessage(err error) string {
	var refused *refusedError
	if errors.As(err, &refused) {
		return refused.Error()
	}
	if errors.Is(err, colly.ErrRobotsTxtBlocked) {
		return "disallowed by robots.txt"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

func (s *scan) setFatal(err error) {
	s.mu.Lock()
	if s.fatal == nil {
		s.fatal = err
	}
	s.mu.Unlock()
	s.cancel()
}

func (s *scan) fatalErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fatal
}

func (s *scan) pageError(u string, status int, msg string) {
	s.mu.Lock()
	s.errs = append(s.errs, PageError{URL: u, Status: status, Message: msg})
	s.mu.Unlock()
}

func (s *scan) domainOf(host string) string {
	if d, ok := s.domCache.Load(host); ok {
		return d.(string)
	}
	d := registrableDomain(host)
	s.domCache.Store(host, d)
	return d
}

// registrableDomain is the public suffix plus one label, or the host itself for IP addresses,
// single-label hosts and public suffixes.
func registrableDomain(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}

func (s *scan) sameSite(u string) bool {
	host, _, _, ok := splitHostOnly(u)
	return ok && s.domains[s.domainOf(strings.ToLower(host))]
}

// normalizeURL drops the fragment and gives an empty path as "/", so links to one page compare
// equal.
func normalizeURL(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	if c.Path == "" && c.RawPath == "" {
		c.Path = "/"
	}
	c.Host = strings.ToLower(c.Host)
	return c.String()
}

// merge adds a page's findings to the scan; cookies say the hits must not add pages.
func (s *scan) merge(rep *pageReport, noPages bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range rep.hits {
		a := s.services[h.svc.Slug]
		if a == nil {
			a = &serviceAgg{svc: h.svc, ids: map[string]bool{}, pages: map[string]bool{}, evidence: map[Evidence]string{}}
			s.services[h.svc.Slug] = a
		}
		if h.id != "" {
			a.ids[h.id] = true
		}
		if !noPages {
			a.pages[h.ev.Page] = true
		}
		if !h.ev.Gated {
			a.ungated = true
		}
		key := h.ev
		key.Page = ""
		if p, ok := a.evidence[key]; !ok || h.ev.Page < p {
			a.evidence[key] = h.ev.Page
		}
	}
	for _, u := range rep.unrec {
		a := s.unrec[u.src]
		if a == nil {
			a = &unrecAgg{domain: u.domain, pages: map[string]bool{}}
			s.unrec[u.src] = a
		}
		if !u.gated {
			a.ungated = true
		}
		a.pages[u.page] = true
	}
}

func (s *scan) recordCookies(reqURL *url.URL, lines []string) {
	host := strings.ToLower(reqURL.Hostname())
	page := normalizeURL(reqURL)
	var rep pageReport
	s.mu.Lock()
	for _, line := range lines {
		c, err := http.ParseSetCookie(line)
		if err != nil {
			continue
		}
		dom := strings.TrimPrefix(strings.ToLower(c.Domain), ".")
		if dom == "" {
			dom = host
		}
		key := c.Name + "\x00" + dom
		a := s.cookies[key]
		if a == nil {
			a = &cookieAgg{c: ObservedCookie{Name: c.Name, Domain: dom, Session: c.MaxAge == 0 && c.Expires.IsZero()}, urls: map[string]bool{}}
			a.c.ThirdParty = !s.domains[s.domainOf(dom)]
			// A service's cookie counts only on the side it is documented on: a site's own
			// "uid" cookie is not Criteo's third-party "uid".
			if m, ok := s.e.ix.MatchCookie(c.Name); ok &&
				(m.Cookie.Party == "" || (m.Cookie.Party == "third") == a.c.ThirdParty) {
				a.c.Service = m.Service.Slug
			}
			s.cookies[key] = a
		}
		a.urls[page] = true
		if a.c.Service != "" {
			rep.hits = append(rep.hits, hit{svc: s.e.ix.Service(a.c.Service), ev: Evidence{Kind: EvidenceCookie, Page: page, Snippet: c.Name}})
		}
	}
	s.mu.Unlock()
	if len(rep.hits) > 0 {
		s.merge(&rep, true)
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
		r.Unrecognized = append(r.Unrecognized, UnrecognizedScript{Src: src, Domain: a.domain, Pages: sortedKeys(a.pages), Gated: !a.ungated})
	}
	sort.Slice(r.Unrecognized, func(i, j int) bool { return r.Unrecognized[i].Src < r.Unrecognized[j].Src })
	for _, a := range s.cookies {
		c := a.c
		c.URLs = sortedKeys(a.urls)
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

func evidenceLess(a, b Evidence) bool {
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
