package crawler

import (
	"cmp"
	"context"
	"errors"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/browser"

	"github.com/consentd/consentd/library"
)

// pageObs is what one page of a state did: the requests its tab made, the cookies of the
// browser context after it, and observeScript's answer.
type pageObs struct {
	page    string
	mu      sync.Mutex
	seen    map[string]bool
	reqs    []tabRequest
	cookies []*network.Cookie
	info    pageInfo
	at      time.Time
}

type tabRequest struct{ url, typ string }

// loadAll loads every page in the state's browser context, in its tabs (StatePagesAtOnce of
// them, each loading one page after another). With first, the first page is loaded alone before the others, as a visitor lands
// on it before going on (the runtime caches its configuration there, and on the later pages
// holds tags by it from the start). With merge, what the pages did also goes into the scan's
// result as a deep scan's pages do (the no_decision state is a deep scan).
func (v *verifier) loadAll(ctx context.Context, sc *stateCtx, first, merge bool) ([]*pageObs, error) {
	s := v.d.s
	obs := make([]*pageObs, len(v.pages))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var fail error
	for i, p := range v.pages {
		if first && i == 1 {
			wg.Wait()
		}
		t, err := sc.takeTab(ctx)
		if err != nil {
			mu.Lock()
			fail = cmp.Or(fail, err)
			mu.Unlock()
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, err := v.loadPage(ctx, sc, t, p)
			sc.giveTab(t)
			mu.Lock()
			defer mu.Unlock()
			obs[i] = o
			if err != nil && fail == nil {
				fail = err
			}
		}()
	}
	wg.Wait()
	if fail != nil {
		return nil, fail
	}
	if merge {
		records := sc.proxy.Records()
		for _, o := range obs {
			s.mergeVisit(o.visit(records, v.injected))
		}
	}
	return obs, nil
}

// visit is a page of the state as DeepCrawl's merge reads it: the proxy's records of the
// URLs its tab requested.
func (o *pageObs) visit(records []browser.Record, injected map[string]bool) *visit {
	v := &visit{page: o.page, types: map[string]requestInfo{}, injected: injected, cookies: o.cookies, at: o.at,
		storage: pageStorage{Host: o.info.Host, Local: o.info.Local, Session: o.info.Session, Tags: o.info.Tags}}
	for _, r := range o.reqs {
		v.types[r.url] = requestInfo{typ: r.typ}
	}
	taken := map[string]bool{}
	for _, r := range records {
		if o.seen[r.URL] && !taken[r.URL] {
			taken[r.URL] = true
			v.records = append(v.records, r)
		}
	}
	return v
}

// loadPage loads one page in tab t of the state's browser context and observes it. A page
// that fails while the browser still answers is a page error, not the scan's failure; the tab
// is then not used again.
func (v *verifier) loadPage(ctx context.Context, sc *stateCtx, t *stateTab, p string) (*pageObs, error) {
	s := v.d.s
	o := &pageObs{page: p, seen: map[string]bool{}, info: pageInfo{ConsentDefault: -1, GoogleRequest: -1}}
	pctx, pcancel := context.WithTimeout(t.ctx, s.opts.PageTimeout)
	defer pcancel()
	stop := context.AfterFunc(ctx, pcancel)
	defer stop()
	failed := func(err error) (*pageObs, error) {
		t.broken = true
		return o, v.pageFailed(ctx, p, err)
	}
	if err := v.readyTab(ctx, pctx, sc, t); err != nil {
		return failed(err)
	}
	t.cur.Store(o)
	defer t.cur.Store(nil)
	navCtx, navCancel := context.WithTimeout(pctx, s.opts.PageTimeout*3/4)
	navErr := chromedp.Do(navCtx, chromedp.Navigate(p))
	navCancel()
	if navErr != nil && pctx.Err() == nil && !errors.Is(navErr, context.DeadlineExceeded) {
		if !v.br.Alive() {
			t.broken = true
			return o, errBrowserBroken
		}
		s.pageError(p, 0, "the browser reported a failed load: "+navErr.Error())
	}
	_ = browser.Settle(pctx, sc.proxy, s.opts.QuietFor, s.opts.QuietMax)
	info, err := chromedp.Run(pctx, chromedp.Evaluate[pageInfo](observeScript))
	if err != nil {
		return failed(err)
	}
	o.info = info
	res, err := chromedp.CallBrowser(pctx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: sc.id})
	if err != nil {
		return failed(err)
	}
	o.mu.Lock()
	o.cookies, o.at = res.Cookies, time.Now()
	o.mu.Unlock()
	// The page is left (to about:blank) while its recording goes on, so that what it still
	// starts as it goes counts for it, never for the next page. What a tab keeps across its
	// pages, and a visitor's new tab would not have, goes first: the next page finds the tab
	// as it would find a new one (TestVerifyTabPerPage).
	if _, err := chromedp.Run(pctx, chromedp.Evaluate[bool](leaveTabScript)); err != nil {
		t.broken = true
	} else if err := chromedp.Do(pctx, chromedp.Navigate("about:blank")); err != nil {
		t.broken = true
	}
	return o, nil
}

// pageFailed is nil (and a page error) when the browser still answers, else the failure.
func (v *verifier) pageFailed(ctx context.Context, p string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !v.br.Alive() || !v.br.Responsive() {
		return errors.Join(errBrowserBroken, err)
	}
	v.d.s.pageError(p, 0, "not verified in the browser: "+err.Error())
	return nil
}

// record attributes what a state's pages did: requests of library services and unclaimed
// third-party ones; cookies held at the end that are not as they were in base (when given:
// what was set or set again after the decision), of a service or third-party; storage keys
// of a service; the tags the runtime held back unmarked.
func (v *verifier) record(name string, obs []*pageObs, base map[string]string) core.VerifiedState {
	s, limit := v.d.s, v.vo.MaxItems
	st := core.VerifiedState{State: name, Pages: append([]string{}, v.pages...), Requests: []core.VerifiedRequest{},
		Cookies: []core.VerifiedStorage{}, Storage: []core.VerifiedStorage{}, HeldUnmarked: []core.HeldTag{}}
	vendorOf := map[string]*library.Service{}
	ambiguous := map[string]bool{}
	for _, o := range obs {
		pageURL, err := url.Parse(o.page)
		if err != nil {
			continue
		}
		pageDom := s.domainOf(strings.ToLower(pageURL.Hostname()))
		for _, r := range o.reqs {
			u, err := url.Parse(r.url)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || consentdOwn(u) {
				continue
			}
			dom := s.domainOf(strings.ToLower(u.Hostname()))
			third := dom != pageDom
			f := s.fp.URL(s.e.ix, r.url)
			svc := f.Service
			if svc == nil && len(f.IDs) > 0 {
				svc = f.IDs[0].Service
			}
			if svc == nil && !third {
				continue
			}
			if svc != nil && third {
				if o, ok := vendorOf[dom]; ok && o != svc {
					ambiguous[dom] = true
				}
				vendorOf[dom] = svc
			}
			if len(st.Requests) < limit {
				st.Requests = append(st.Requests, core.VerifiedRequest{URL: r.url, Page: o.page, Service: slugOf(svc),
					Category: categoryOf(svc), Type: r.typ, ThirdParty: third})
			}
		}
		for _, h := range o.info.Held {
			if len(st.HeldUnmarked) >= limit {
				break
			}
			st.HeldUnmarked = append(st.HeldUnmarked, core.HeldTag{URL: h.URL, Page: o.page, Service: h.Service,
				Category: h.Category, Requested: o.seen[h.URL], Element: heldElement(h.Element)})
		}
	}
	// A cookie's page is the first page (in the order they finished) after which it was held.
	byTime := append([]*pageObs(nil), obs...)
	sort.SliceStable(byTime, func(i, j int) bool { return byTime[i].at.Before(byTime[j].at) })
	seen := map[string]bool{}
	for _, o := range byTime {
		for _, c := range o.cookies {
			dom := strings.TrimPrefix(strings.ToLower(c.Domain), ".")
			key := c.Name + "\x00" + dom
			if seen[key] || consentdStorage(c.Name) || v.injected[key] || (base != nil && base[key] == cookieState(c)) {
				continue
			}
			seen[key] = true
			third := !s.domains[s.domainOf(dom)]
			svc := s.cookieOwner(c.Name, dom, third, vendorOf, ambiguous)
			if (svc == nil && !third) || len(st.Cookies) >= limit {
				continue
			}
			st.Cookies = append(st.Cookies, core.VerifiedStorage{Kind: core.StorageCookie, Name: c.Name, Domain: dom, Page: o.page,
				Service: slugOf(svc), Category: categoryOf(svc), ThirdParty: third})
		}
		for _, kk := range []struct {
			kind string
			keys []string
		}{{core.StorageLocal, o.info.Local}, {core.StorageSession, o.info.Session}} {
			for _, k := range kk.keys {
				key := kk.kind + "\x00" + o.info.Host + "\x00" + k
				if seen[key] || consentdStorage(k) {
					continue
				}
				seen[key] = true
				m, ok := s.e.ix.MatchCookie(k)
				if !ok || len(st.Storage) >= limit {
					continue
				}
				st.Storage = append(st.Storage, core.VerifiedStorage{Kind: kk.kind, Name: k, Domain: o.info.Host, Page: o.page,
					Service: m.Service.Slug, Category: m.Service.Category})
			}
		}
	}
	sort.SliceStable(st.Requests, func(i, j int) bool {
		a, b := st.Requests[i], st.Requests[j]
		if a.Page != b.Page {
			return a.Page < b.Page
		}
		return a.URL < b.URL
	})
	for _, l := range [][]core.VerifiedStorage{st.Cookies, st.Storage} {
		sort.SliceStable(l, func(i, j int) bool {
			if l[i].Name != l[j].Name {
				return l[i].Name < l[j].Name
			}
			return l[i].Domain < l[j].Domain
		})
	}
	return st
}

func slugOf(svc *library.Service) string {
	if svc == nil {
		return ""
	}
	return svc.Slug
}

func categoryOf(svc *library.Service) string {
	if svc == nil {
		return ""
	}
	return svc.Category
}

// heldElement is the element the page reported the runtime held (core.HeldScript or
// core.HeldIframe), a script for anything else.
func heldElement(e string) string {
	if e == core.HeldIframe {
		return e
	}
	return core.HeldScript
}
