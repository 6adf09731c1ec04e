package crawler

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/crawler/extract"
	"github.com/consentd/consentd/crawler/netguard"
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
	hooks     *netguard.Hooks
	tlsConfig *tls.Config
	// beforeVisit, set by tests only, runs before the browser loads a page (to crash it).
	beforeVisit func(page string, br *browser.Browser)
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
	fp       *extract.Cache // what repeated script URLs and inline scripts yield

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
	ownSeen  map[string]bool // same-site scripts fetched
	probed   map[string]bool // unrecognized scripts asked for (probe.go)
	// probeClient asks for unrecognized scripts: the scan's transport, without its cookies.
	probeClient *http.Client

	// deep is set for the static pass of a deep scan; htmlPages are the pages it read as HTML,
	// which the browser then loads.
	deep      bool
	htmlPages []string
	tlsConfig *tls.Config
	hooks     netguard.Hooks
	// Deep pass findings, by name and domain (cookies) or kind, origin and key (storage).
	storage    map[string]*storageAgg
	preConsent map[string]*preConsentAgg
	requests   []Request
}

// Crawl scans the start URLs and the same-site pages they link to, breadth first. It returns an
// *Error when the scan as a whole failed: invalid options, no start page could be fetched, the
// target was refused as a private address, a storefront password was missing or wrong, or the
// start page is behind a bot wall. Failures of single pages are in Result.Errors.
func (e *Engine) Crawl(ctx context.Context, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	s, err := e.crawl(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	r := s.result()
	r.Mode = core.ScanStatic
	return r, nil
}

// crawl is the static pass: Crawl's work, leaving the scan's state for a deep pass to build on.
// With deep, cookies set by responses are not findings of their own: the browser says which it
// really holds at the end.
func (e *Engine) crawl(ctx context.Context, opts Options, deep bool) (*scan, error) {
	starts, err := opts.validate()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tlsConfig, err := opts.tlsConfig(e.tlsConfig)
	if err != nil {
		return nil, err
	}
	s := e.newScan(ctx, cancel, opts, starts, tlsConfig)
	s.deep = deep

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
	return s, nil
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

func (e *Engine) newScan(ctx context.Context, cancel context.CancelFunc, opts Options, starts []*url.URL, tlsConfig *tls.Config) *scan {
	s := &scan{
		e: e, opts: opts, ctx: ctx, cancel: cancel,
		domains:  map[string]bool{},
		services: map[string]*serviceAgg{},
		unrec:    map[string]*unrecAgg{},
		cookies:  map[string]*cookieAgg{},
		gtmSeen:  map[string]bool{},
		ownSeen:  map[string]bool{},
		probed:   map[string]bool{},
	}
	for _, u := range starts {
		s.domains[s.domainOf(strings.ToLower(u.Hostname()))] = true
	}
	hooks := netguard.DefaultHooks(opts.PageTimeout)
	if e.hooks != nil {
		hooks = *e.hooks
	}
	s.hooks, s.tlsConfig = hooks, tlsConfig
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would dial on our behalf and bypass the address check
		DialContext:           hooks.Dialer(opts.AllowPrivate, opts.ConnectTo),
		TLSClientConfig:       tlsConfig,
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
	s.probeClient = &http.Client{Transport: tr, Timeout: opts.PageTimeout}

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

func (s *scan) visit(t task) (r visitResult) {
	span := startPage(s.ctx, t)
	var f *fetched
	defer func() {
		if f != nil {
			endPage(span, r, f.status, int64(len(f.body)))
		} else {
			endPage(span, r, 0, 0)
		}
	}()
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
	s.mu.Lock()
	s.htmlPages = append(s.htmlPages, t.url)
	s.mu.Unlock()
	x := extract.New(s.e.ix, s.fp, s.domainOf, f.final, t.url, t.depth < s.opts.MaxDepth)
	x.Run(extract.DecodeHTML(body, ct))
	s.merge(x.Report(), false)
	s.tagManagers(x.Report(), t.url)
	s.ownScripts(x.Report(), t.url)
	if !s.deep {
		// A browser pass follows a deep scan's static pass and sees every load as it happens.
		s.probeScripts(x.Report(), t.url)
	}
	return visitResult{ok: true, links: x.Report().Links, finalURL: final}
}

func isHTML(contentType string, body []byte) bool {
	if contentType == "" {
		contentType = http.DetectContentType(body[:min(len(body), 512)])
	}
	ct := strings.ToLower(contentType)
	return strings.Contains(ct, "html")
}
