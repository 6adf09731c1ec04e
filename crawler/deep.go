package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/browser"
)

// DeepCrawl is Crawl followed by a browser pass: the static pass discovers the pages (limits,
// robots.txt and the storefront password as in Crawl) and reads their HTML, tag manager
// containers and same-site scripts; then each HTML page is loaded in a fresh browser context of
// one of the pool's browsers, with no consent given, and what the browser requested and held at
// the end is matched against the library. Services the static pass found stay (a tag held back
// by markup never runs, yet the owner must configure it); cookies are the browser's only.
//
// A browser that crashes or hangs is replaced and the page tried once more; when it fails
// again the scan fails with a temporary *Error (KindBrowser). With no browser installed it
// fails at once with KindNoBrowser.
func (e *Engine) DeepCrawl(ctx context.Context, opts Options, browsers *browser.Pool) (*Result, error) {
	if err := needBrowser(browsers); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	d, err := e.browserPass(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer d.tr.CloseIdleConnections()
	s := d.s
	pages := append([]string(nil), s.htmlPages...)
	sort.Strings(pages)
	br, err := browsers.Acquire(ctx)
	if err != nil {
		return nil, browserError(err)
	}
	d.browsers, d.br = browsers, br
	defer func() {
		if d.br != nil {
			browsers.Release(d.br, !d.br.Alive())
		}
	}()
	// Pages reachable only through links the pages' scripts make (router links, click
	// handlers by address, client-side navigations) are loaded in the browser too, in further
	// waves, within MaxPages and robots.txt.
	known := map[string]bool{}
	s.mu.Lock()
	for _, p := range s.pages {
		known[p.URL] = true
		if p.FinalURL != "" {
			known[p.FinalURL] = true
		}
	}
	count := len(s.pages)
	s.mu.Unlock()
	robots := newRobotsCache(d.tr, opts)
	for wave := 0; len(pages) > 0; wave++ {
		if err := d.loadPages(ctx, pages); err != nil {
			return nil, err
		}
		if wave == maxLinkWaves || ctx.Err() != nil {
			break
		}
		var next []string
		for _, l := range d.takeLinks() {
			u, err := url.Parse(l)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
				continue
			}
			k := normalizeURL(u)
			if known[k] || !s.sameSite(k) || count >= opts.MaxPages || !robots.allowed(ctx, u) {
				continue
			}
			known[k] = true
			count++
			next = append(next, k)
		}
		sort.Strings(next)
		d.mu.Lock()
		for _, p := range next {
			d.linked[p] = true
		}
		d.mu.Unlock()
		pages = next
	}
	if d.budget.Hit() && len(s.htmlPages) > 0 {
		s.pageError(s.htmlPages[0], 0, fmt.Sprintf("the scan's download budget of %d bytes was used up; later requests of the browser were refused", d.budget.Limit()))
	}
	r := s.result()
	r.Mode = core.ScanDeep
	s.deepResult(r)
	return r, nil
}

// maxLinkWaves bounds how many times a deep scan follows links made by script from the pages
// it loaded.
const maxLinkWaves = 3

// takeLinks returns and forgets the links the loaded pages made.
func (d *deepScan) takeLinks() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.links
	d.links = nil
	return out
}

// loadPages loads pages in the scan's browser, PagesAtOnce at a time, each in a context of
// its own.
func (d *deepScan) loadPages(ctx context.Context, pages []string) error {
	s, opts := d.s, d.s.opts
	sem := make(chan struct{}, max(opts.PagesAtOnce, 1))
	var wg sync.WaitGroup
	var failMu sync.Mutex
	var fail error
	for _, page := range pages {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if ctx.Err() != nil {
				s.pageError(page, 0, "not loaded in the browser: the scan's time limit was reached")
				return
			}
			if err := d.page(ctx, page); err != nil {
				failMu.Lock()
				if fail == nil {
					fail = err
				}
				failMu.Unlock()
			}
		}()
	}
	wg.Wait()
	return fail
}

// browserPass runs the static pass that discovers the pages (limits, robots.txt, storefront
// password) and prepares the browser pass of a deep scan or a verification: its transport,
// download budget and empty browser-side tallies. The caller closes d.tr's idle connections.
func (e *Engine) browserPass(ctx context.Context, opts Options) (*deepScan, error) {
	s, err := e.crawl(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	d := &deepScan{s: s, budget: browser.NewBudget(opts.MaxBrowserBytes), tr: s.scanTransport(), jar: s.client.Jar, linked: map[string]bool{}}
	// The browser replaces what Set-Cookie headers said: only what it holds at the end counts.
	s.storage, s.preConsent, s.cookies = map[string]*storageAgg{}, map[string]*preConsentAgg{}, map[string]*cookieAgg{}
	return d, nil
}

// deepScan is the browser pass of one scan.
type deepScan struct {
	s        *scan
	browsers *browser.Pool
	mu       sync.Mutex
	br       *browser.Browser // nil after a broken one was given back
	budget   *browser.Budget
	tr       *http.Transport
	jar      http.CookieJar
	// links are the same-site links the loaded pages made, not yet followed; linked the
	// pages only such links reached (no static pass read them).
	links  []string
	linked map[string]bool
}

// errBrowserBroken marks a page that failed because its browser crashed or hung.
var errBrowserBroken = errors.New("browser crashed or hung")

// page loads one page, on a fresh browser when the first one breaks.
func (d *deepScan) page(ctx context.Context, page string) error {
	var last error
	for attempt := 0; attempt < 2; attempt++ {
		br, err := d.browser(ctx)
		if err != nil {
			return err
		}
		v, err := d.visit(ctx, br, page)
		if err == nil {
			d.s.mergeVisit(v)
			d.mu.Lock()
			d.links = append(d.links, v.storage.Links...)
			linked := d.linked[page]
			d.mu.Unlock()
			if linked {
				d.s.addBrowserPage(v)
			}
			return nil
		}
		if ctx.Err() != nil {
			d.s.pageError(page, 0, "not loaded in the browser: the scan's time limit was reached")
			return nil
		}
		if !errors.Is(err, errBrowserBroken) && br.Alive() {
			d.s.pageError(page, 0, "not loaded in the browser: "+err.Error())
			return nil
		}
		d.replace(ctx, br)
		last = err
	}
	return &Error{Kind: KindBrowser, Temporary: true, Err: last,
		Message: fmt.Sprintf("the browser crashed or stopped answering twice while loading %s; the scan will be retried", page)}
}

// browser is the scan's current browser.
func (d *deepScan) browser(ctx context.Context) (*browser.Browser, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.br == nil {
		br, err := d.browsers.Acquire(ctx)
		if err != nil {
			return nil, browserError(err)
		}
		d.br = br
	}
	return d.br, nil
}

// replace gives back a broken browser; the next page starts a new one. Pages running on the
// same broken browser replace it once.
func (d *deepScan) replace(_ context.Context, broken *browser.Browser) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.br == broken {
		d.browsers.Release(broken, true)
		d.br = nil
	}
}

// visit is what one page left: the proxy's records, the browser's account of them, cookies
// and storage keys.
type visit struct {
	page     string
	records  []browser.Record
	types    map[string]requestInfo
	cookies  []*network.Cookie
	injected map[string]bool // name and domain of cookies the scan put in the browser
	storage  pageStorage
	at       time.Time
}

type requestInfo struct{ typ, initiator string }

type pageStorage struct {
	Host    string   `json:"host"`
	Local   []string `json:"local"`
	Session []string `json:"session"`
	// Tags are the addresses of the scripts and iframes the page was given (browser.TagsJS);
	// Links the addresses it links to once its scripts ran (browser.LinksJS).
	Tags  []string `json:"tags"`
	Links []string `json:"links"`
}

// storageScript lists the page's storage keys and tags; it runs in the top frame.
const storageScript = `(function () {
  function keys(s) { try { var out = []; for (var i = 0; i < s.length; i++) out.push(s.key(i)); return out; } catch (e) { return []; } }
  return {host: location.hostname, local: keys(window.localStorage), session: keys(window.sessionStorage), tags: ` + browser.TagsJS + `,
    links: ` + browser.LinksJS + `};
})()`

func (d *deepScan) visit(ctx context.Context, br *browser.Browser, page string) (*visit, error) {
	s := d.s
	if s.e.beforeVisit != nil {
		s.e.beforeVisit(page, br)
	}
	proxy, err := br.NewProxy(d.tr, d.budget, MaxRequests)
	if err != nil {
		return nil, err
	}
	defer proxy.Close()
	cctx, cancel := chromedp.NewContext(br.Context(), chromedp.WithNewBrowserContext(func(p *target.CreateBrowserContextParams) {
		p.ProxyServer = proxy.Addr()
		p.ProxyBypassList = "<-loopback>"
	}))
	defer cancel()
	pctx, pcancel := context.WithTimeout(cctx, s.opts.PageTimeout)
	defer pcancel()
	stop := context.AfterFunc(ctx, pcancel)
	defer stop()

	v := &visit{page: page, types: map[string]requestInfo{}, injected: map[string]bool{}}
	var mu sync.Mutex
	if err := chromedp.Listen(pctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request != nil {
			info := requestInfo{typ: string(e.Type)}
			if in := e.Initiator; in != nil {
				info.initiator = in.URL
				if in.Stack != nil && len(in.Stack.CallFrames) > 0 {
					info.initiator = in.Stack.CallFrames[0].URL
				}
			}
			mu.Lock()
			if _, ok := v.types[e.Request.URL]; !ok {
				v.types[e.Request.URL] = info
			}
			mu.Unlock()
		}
	}); err != nil {
		return nil, d.browserErr(br, pctx, err)
	}
	if _, err := chromedp.Call(pctx, network.Enable, network.EnableParams{}); err != nil {
		return nil, d.browserErr(br, pctx, err)
	}
	if err := browser.InstallClock(pctx); err != nil {
		return nil, d.browserErr(br, pctx, err)
	}
	bctxID := chromedp.FromContext(cctx).BrowserContextID
	if err := d.injectCookies(pctx, bctxID, page, v); err != nil {
		return nil, d.browserErr(br, pctx, err)
	}
	navCtx, navCancel := context.WithTimeout(pctx, s.opts.PageTimeout*3/4)
	navErr := chromedp.Do(navCtx, chromedp.Navigate(page))
	navCancel()
	if navErr != nil && pctx.Err() == nil && !errors.Is(navErr, context.DeadlineExceeded) {
		if !br.Alive() {
			return nil, errBrowserBroken
		}
		// The page may still have run: what it did is recorded below.
		s.pageError(page, 0, "the browser reported a failed load: "+navErr.Error())
	}
	_ = browser.Settle(pctx, proxy, s.opts.QuietFor, s.opts.QuietMax)
	st, err := chromedp.Run(pctx, chromedp.Evaluate[pageStorage](storageScript))
	if err != nil {
		return nil, d.browserErr(br, pctx, err)
	}
	v.storage = st
	res, err := chromedp.CallBrowser(pctx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: bctxID})
	if err != nil {
		return nil, d.browserErr(br, pctx, err)
	}
	v.cookies, v.at = res.Cookies, time.Now()
	mu.Lock()
	v.records = proxy.Records()
	mu.Unlock()
	return v, nil
}

// browserErr classifies a failed browser command: a dead browser, or one that no longer
// answers when the page's time ran out, is broken; a browser that still answers had a page
// that did not finish in time (an endless script), which is the page's failure.
func (d *deepScan) browserErr(br *browser.Browser, pctx context.Context, err error) error {
	if !br.Alive() {
		return fmt.Errorf("%w: %v", errBrowserBroken, err)
	}
	if errors.Is(pctx.Err(), context.DeadlineExceeded) {
		if !br.Responsive() {
			return fmt.Errorf("%w: %v", errBrowserBroken, err)
		}
		return fmt.Errorf("the page did not finish within %v", d.s.opts.PageTimeout)
	}
	return err
}

// injectCookies gives the browser context, when the static pass unlocked a storefront, the
// cookies the static pass holds for the page (the storefront's password cookie among them), so
// the browser sees the unlocked shop. Those cookies are the scan's doing and not reported: their
// keys go into v.injected when v is given.
func (d *deepScan) injectCookies(ctx context.Context, id cdp.BrowserContextID, page string, v *visit) error {
	params, keys := d.storefrontCookies(page)
	if v != nil {
		for _, k := range keys {
			v.injected[k] = true
		}
	}
	if len(params) == 0 {
		return nil
	}
	_, err := chromedp.CallBrowser(ctx, storage.SetCookies, storage.SetCookiesParams{Cookies: params, BrowserContextID: id})
	return err
}

// storefrontCookies are the cookies injectCookies gives a browser context for page, and their
// keys ("name\x00host"); none when the static pass unlocked no storefront.
func (d *deepScan) storefrontCookies(page string) ([]*network.CookieParam, []string) {
	d.s.unlockMu.Lock()
	unlocked := d.s.unlocked
	d.s.unlockMu.Unlock()
	u, err := url.Parse(page)
	if err != nil || d.jar == nil || !unlocked {
		return nil, nil
	}
	var params []*network.CookieParam
	var keys []string
	for _, c := range d.jar.Cookies(u) {
		params = append(params, &network.CookieParam{Name: c.Name, Value: c.Value, URL: page, Path: "/"})
		keys = append(keys, c.Name+"\x00"+strings.ToLower(u.Hostname()))
	}
	return params, keys
}

// addBrowserPage lists a page only the browser loaded (reached by a link a script made), with
// the status the browser got for it.
func (s *scan) addBrowserPage(v *visit) {
	p := Page{URL: v.page, Depth: 1}
	for _, r := range v.records {
		if r.URL == v.page {
			p.Status, p.Bytes = r.Status, r.Bytes
			break
		}
	}
	s.mu.Lock()
	s.pages = append(s.pages, p)
	s.mu.Unlock()
}

// scanTransport is the deep scan's upstream transport: the static engine's guarded dialer and
// TLS configuration, no proxy of its own.
func (s *scan) scanTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           s.hooks.Dialer(s.opts.AllowPrivate, s.opts.ConnectTo),
		TLSClientConfig:       s.tlsConfig,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: s.opts.PageTimeout,
	}
}
