package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/library"
)

// stateCtx is one browser context of a verification: its proxy (every request of its pages),
// and its control tab, where the banner is driven.
type stateCtx struct {
	proxy *browser.Proxy
	// gpc is whether the context's browser sends a Global Privacy Control signal.
	gpc    bool
	ctx    context.Context // the control tab; its cancel disposes of the browser context
	cancel context.CancelFunc
	id     cdp.BrowserContextID
	// release gives the verifier's slot back.
	release func()
	// tabs are the tabs that load the state's pages, StatePagesAtOnce of them (no more than
	// the pages known when the state opened), each in turn (a tab is made and readied once:
	// that takes as long as loading a page).
	tabs chan *stateTab
}

// stateTab is a tab of a state's browser context that loads the state's pages one after
// another, recording its requests into the page it is on (cur), and goes to about:blank after
// each.
type stateTab struct {
	ctx    context.Context
	cancel context.CancelFunc
	ready  bool // network events on, the scripts installed
	broken bool // a page failed in it: it is closed, a new one takes its place
	cur    atomic.Pointer[pageObs]
}

func (sc *stateCtx) newTab() *stateTab {
	ctx, cancel := chromedp.NewContext(sc.ctx)
	return &stateTab{ctx: ctx, cancel: cancel}
}

// takeTab waits for a tab free to load a page.
func (sc *stateCtx) takeTab(ctx context.Context) (*stateTab, error) {
	select {
	case t := <-sc.tabs:
		return t, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// giveTab gives t back for the next page; a broken tab is closed and replaced.
func (sc *stateCtx) giveTab(t *stateTab) {
	if t.broken {
		t.cancel()
		t = sc.newTab()
	}
	sc.tabs <- t
}

// readyTab readies t for its first page: it turns the tab's network events on (recording
// into the page it is on) and installs the scripts. Making the tab's target is bound to the
// tab's own context (chromedp binds a tab's life to its first use), so it is waited for only
// until pctx ends: then the tab is closed, which ends the making, and is not used again.
func (v *verifier) readyTab(ctx, pctx context.Context, sc *stateCtx, t *stateTab) error {
	if t.ready {
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- v.prepareTab(ctx, t.ctx, pctx, t.cur.Load, sc.gpc) }()
	select {
	case err := <-done:
		if err != nil {
			t.broken = true
			return err
		}
		t.ready = true
		return nil
	case <-pctx.Done():
		t.broken = true
		t.cancel()
		<-done
		return pctx.Err()
	}
}

// warmTabs readies the state's tabs while its first steps run (a decision in the control tab,
// the first page alone), each in a goroutine: a tab taken meanwhile is readied by its user,
// and one that could not be readied is replaced.
func (v *verifier) warmTabs(ctx context.Context, sc *stateCtx) {
	for range cap(sc.tabs) {
		go func() {
			var t *stateTab
			select {
			case t = <-sc.tabs:
			default:
				return
			}
			pctx, cancel := context.WithTimeout(t.ctx, v.d.s.opts.PageTimeout)
			stop := context.AfterFunc(ctx, cancel)
			_ = v.readyTab(ctx, pctx, sc, t)
			stop()
			cancel()
			sc.giveTab(t)
		}()
	}
}

// initScript runs before any script of every document: it notes when Google Consent Mode's
// default command first reaches window.dataLayer (performance.now() ms; -1 never), however
// the page creates the array.
const initScript = `(function () {
  if (window.__consentdVerify) return;
  var st = window.__consentdVerify = { cmd: -1 };
  function seen(a) { try { if (st.cmd < 0 && a && a[0] === 'consent' && a[1] === 'default') st.cmd = performance.now(); } catch (e) {} }
  function patch(arr) {
    if (!arr || typeof arr.push !== 'function' || arr.__cdv) return;
    try { for (var i = 0; i < arr.length; i++) seen(arr[i]); Object.defineProperty(arr, '__cdv', { value: 1 }); } catch (e) {}
    var push = arr.push;
    arr.push = function () { for (var i = 0; i < arguments.length; i++) seen(arguments[i]); return push.apply(this, arguments); };
  }
  var dl;
  try {
    Object.defineProperty(window, 'dataLayer', { configurable: true, enumerable: true,
      get: function () { return dl; }, set: function (v) { dl = v; patch(v); } });
  } catch (e) {}
})();`

// observeScript reads, at the end of a page: its storage keys, whether consentd's runtime
// ran and what it held back unmarked, the runtime's project key and script URL, and the times
// of the Consent Mode default and of the first Google tag request.
var observeScript = `(function () {
  function keys(s) { try { var out = []; for (var i = 0; i < s.length; i++) out.push(s.key(i)); return out; } catch (e) { return []; } }
  var c = window.consentd, st = window.__consentdVerify || { cmd: -1 };
  // firstLayer reports whether consentd's banner shows its first layer (with the button of
  // data-action action, when given).
  function firstLayer(action) {
    var host = document.querySelector('consentd-ui'), root = host && host.shadowRoot;
    if (!root) return false;
    return Array.prototype.some.call(root.querySelectorAll('button[data-action]'), function (b) {
      return !b.closest('[data-preferences]') && (!action || b.getAttribute('data-action') === action);
    });
  }
  var me = document.querySelector('script[data-project-key]');
  var held = [], heldURL = {};
  try {
    (c && c.heldUnmarked || []).forEach(function (h) {
      var u = new URL(String(h.url), location.href).href;
      heldURL[u] = true;
      // The runtime holds an iframe by moving its src to data-src, a script by its type.
      var frame = Array.prototype.some.call(document.querySelectorAll('iframe[data-src]'), function (f) {
        try { return new URL(f.getAttribute('data-src'), location.href).href === u; } catch (e) { return false; }
      });
      held.push({ url: u, service: String(h.service || ''), category: String(h.category || ''), element: frame ? 'iframe' : 'script' });
    });
  } catch (e) {}
  // A tag the runtime held never ran, so its fetch by the preload scanner read no Consent Mode
  // state: it does not count as a Google tag acting before the default.
  var google = -1;
  try {
    performance.getEntriesByType('resource').forEach(function (e) {
      if (/^https?:\/\/([^\/]*\.)?(` + googleHostsRE() + `)\//.test(e.name) &&
        !heldURL[e.name] && (google < 0 || e.startTime < google)) google = e.startTime;
    });
  } catch (e) {}
  return { host: location.hostname, local: keys(window.localStorage), session: keys(window.sessionStorage),
    consentd: !!(c && c.version), held: held, projectKey: me ? me.getAttribute('data-project-key') || '' : '',
    src: me ? me.src || '' : '', consentDefault: st.cmd, banner: firstLayer(''), doNotSell: firstLayer('do-not-sell'), googleRequest: google, tags: ` + browser.TagsJS + `,
    links: ` + browser.LinksJS + ` };
})()`

// publicBase is the base URL of consentd's public endpoints (".../api/v1/public") for the
// runtime a page loads from src: the part before core.PublicPrefix's resources when src is one
// of them (banner.js, a site's loader.js), else, as the runtime itself reads its address, src
// without its last path segment; "" without src.
func publicBase(src string) string {
	u, err := url.Parse(src)
	if err != nil || src == "" {
		return ""
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	p := u.EscapedPath()
	if _, _, ok := core.ParsePublicPath(p); ok {
		p = p[:strings.LastIndex(p, core.PublicPrefix+"/")+len(core.PublicPrefix)]
	} else {
		p = p[:max(strings.LastIndex(p, "/"), 0)]
	}
	u.Path, u.RawPath = "", ""
	return u.String() + p
}

// googleHostsRE is the alternation of the library's Google tag hosts, for a JavaScript RegExp.
func googleHostsRE() string {
	hosts := library.GoogleTagHosts()
	for i, h := range hosts {
		hosts[i] = regexp.QuoteMeta(h)
	}
	return strings.Join(hosts, "|")
}

// pageInfo is what observeScript returns.
type pageInfo struct {
	Host           string    `json:"host"`
	Local          []string  `json:"local"`
	Session        []string  `json:"session"`
	Consentd       bool      `json:"consentd"`
	Held           []heldTag `json:"held"`
	ProjectKey     string    `json:"projectKey"`
	Src            string    `json:"src"`
	ConsentDefault float64   `json:"consentDefault"`
	GoogleRequest  float64   `json:"googleRequest"`
	Tags           []string  `json:"tags"`
	Links          []string  `json:"links"`
	// Banner is whether consentd's first layer was shown, DoNotSell whether it offered the Do
	// Not Sell or Share control.
	Banner    bool `json:"banner"`
	DoNotSell bool `json:"doNotSell"`
}

type heldTag struct {
	URL      string `json:"url"`
	Service  string `json:"service"`
	Category string `json:"category"`
	Element  string `json:"element"`
}

// open starts a state's browser context for rr's place (sending GPC when gpc), with a proxy
// of its own, once one of the verification's slots is free; close gives the slot back.
func (v *verifier) open(ctx context.Context, rr *ruleRun, gpc bool) (*stateCtx, error) {
	select {
	case v.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	proxy, err := v.br.NewProxy(v.d.tr, v.d.budget, MaxRequests)
	if err != nil {
		<-v.slots
		return nil, err
	}
	cctx, cancel := chromedp.NewContext(v.br.Context(), chromedp.WithNewBrowserContext(func(p *target.CreateBrowserContextParams) {
		p.ProxyServer = proxy.Addr()
		p.ProxyBypassList = "<-loopback>"
	}))
	// No more tabs than pages: each is a renderer to start and ready (a one-page site's
	// states made five and used one).
	sc := &stateCtx{proxy: proxy, ctx: cctx, cancel: cancel, gpc: gpc, release: func() { <-v.slots },
		tabs: make(chan *stateTab, max(min(v.d.s.opts.StatePagesAtOnce, len(v.pages)), 1))}
	proxy.Rewrite = v.rewrite(rr.place, sc.gpc)
	if err := v.prepareTab(ctx, cctx, cctx, nil, sc.gpc); err != nil {
		sc.close()
		return nil, err
	}
	sc.id = chromedp.FromContext(cctx).BrowserContextID
	// A storefront the static pass unlocked stays unlocked in the browser; those cookies are
	// the scan's doing, never recorded nor cleared (v.injected).
	if err := v.d.injectCookies(cctx, sc.id, v.pages[0], nil); err != nil {
		sc.close()
		return nil, err
	}
	for range cap(sc.tabs) {
		sc.tabs <- sc.newTab()
	}
	v.warmTabs(ctx, sc)
	return sc, nil
}

func (sc *stateCtx) close() {
	for more := true; more; {
		select {
		case t := <-sc.tabs:
			t.cancel()
		default:
			more = false
		}
	}
	sc.cancel()
	sc.proxy.Close()
	sc.release()
}

// prepareTab enables the network domain (recording the tab's requests, when cur is given,
// into the page it names, if any) and installs initScript (and gpcScript for a browser
// sending the GPC signal). life is the tab's own context, which its first use binds the tab
// and the recording to (chromedp.NewContext); tab, derived from it, bounds the steps.
func (v *verifier) prepareTab(ctx, life, tab context.Context, cur func() *pageObs, gpc bool) error {
	if cur != nil {
		if err := chromedp.Listen(life, func(ev any) {
			obs := cur()
			if obs == nil {
				return
			}
			if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request != nil {
				obs.mu.Lock()
				if !obs.seen[e.Request.URL] {
					obs.seen[e.Request.URL] = true
					obs.reqs = append(obs.reqs, tabRequest{url: e.Request.URL, typ: string(e.Type)})
				}
				obs.mu.Unlock()
			}
		}); err != nil {
			return err
		}
	}
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		return err
	}
	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: initScript}); err != nil {
		return err
	}
	if gpc {
		if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: gpcScript}); err != nil {
			return err
		}
	}
	return browser.InstallClock(tab)
}

// navigate loads url in the control tab; a load that fails or times out is no error (the
// page may have run), a dead browser is.
func (sc *stateCtx) navigate(ctx context.Context, url string, timeout time.Duration) error {
	nctx, cancel := context.WithTimeout(sc.ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	err := chromedp.Do(nctx, chromedp.Navigate(url))
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && chromedp.FromContext(sc.ctx) != nil && sc.ctx.Err() != nil {
		return err
	}
	return nil
}

func (sc *stateCtx) eval(ctx context.Context, js string) error {
	ectx, cancel := context.WithTimeout(sc.ctx, 5*time.Second)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	_, err := chromedp.Run(ectx, chromedp.Evaluate[any](js))
	return err
}

// Where a button is looked for: the banner's first layer, the preferences dialog, the reopen
// button's host.
const (
	layerBanner = "banner"
	layerPrefs  = "prefs"
	layerReopen = "reopen"
)

// Outcomes of clickScript.
const (
	clickDone    = "clicked"
	clickMissing = "missing" // the layer is shown without that button
	clickAbsent  = "absent"  // the layer is not shown (yet)
)

// clickScript clicks the button with data-action in a layer of consentd's open Shadow DOM.
const clickScript = `(function (layer, action) {
  var host = document.querySelector(layer === 'reopen' ? 'consentd-reopen' : 'consentd-ui');
  var root = host && host.shadowRoot;
  if (!root) return 'absent';
  var btns = Array.prototype.filter.call(root.querySelectorAll('button[data-action]'), function (b) {
    var inPrefs = !!b.closest('[data-preferences]');
    return layer === 'prefs' ? inPrefs : !inPrefs;
  });
  if (!btns.length) return 'absent';
  for (var i = 0; i < btns.length; i++) {
    if (btns[i].getAttribute('data-action') === action) { btns[i].click(); return 'clicked'; }
  }
  return 'missing';
})(%q, %q)`

// click clicks action in layer, waiting up to wait for the layer to be shown.
func (sc *stateCtx) click(ctx context.Context, layer, action string, wait time.Duration) (string, error) {
	deadline := time.Now().Add(wait)
	for {
		cctx, cancel := context.WithTimeout(sc.ctx, 5*time.Second)
		stop := context.AfterFunc(ctx, cancel)
		res, err := chromedp.Run(cctx, chromedp.Evaluate[string](fmt.Sprintf(clickScript, layer, action)))
		stop()
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", err
		}
		if res != clickAbsent || time.Now().After(deadline) {
			return res, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// mustClick clicks a button that must be there.
func (sc *stateCtx) mustClick(ctx context.Context, layer, action string) error {
	const wait = 5 * time.Second
	res, err := sc.click(ctx, layer, action, wait)
	if err != nil {
		return err
	}
	switch res {
	case clickMissing:
		return fmt.Errorf("consentd's %s has no %q button", layer, action)
	case clickAbsent:
		return fmt.Errorf("consentd's %s was not shown within %v (did the runtime get its configuration?)", layer, wait)
	}
	return nil
}

// rejectElsewhere rejects when the first layer has no reject button: in the preferences when
// the first layer opens them, else through the runtime.
func (sc *stateCtx) rejectElsewhere(ctx context.Context) error {
	if res, err := sc.click(ctx, layerBanner, "preferences", 0); err != nil {
		return err
	} else if res == clickDone {
		if res, err := sc.click(ctx, layerPrefs, "reject", 2*time.Second); err != nil || res == clickDone {
			return err
		}
	}
	return sc.eval(ctx, "window.consentd && window.consentd.rejectAll()")
}

// chooseCategory switches one category on (and every other optional one off) in the open
// preferences dialog, and saves.
func (sc *stateCtx) chooseCategory(ctx context.Context, slug string, wait time.Duration) error {
	js := fmt.Sprintf(`(function (slug) {
  var host = document.querySelector('consentd-ui'), root = host && host.shadowRoot;
  var dlg = root && root.querySelector('[data-preferences]');
  if (!dlg) return 'absent';
  var found = false;
  dlg.querySelectorAll('input[data-category]').forEach(function (i) {
    if (i.disabled) return;
    var want = i.getAttribute('data-category') === slug;
    found = found || want;
    if (i.checked !== want) i.click();
  });
  return found ? 'clicked' : 'missing';
})(%q)`, slug)
	deadline := time.Now().Add(wait)
	for {
		cctx, cancel := context.WithTimeout(sc.ctx, 5*time.Second)
		res, err := chromedp.Run(cctx, chromedp.Evaluate[string](js))
		cancel()
		if err != nil {
			return err
		}
		if res == clickMissing {
			return fmt.Errorf("the preferences have no switch for the category %q", slug)
		}
		if res == clickDone {
			return sc.mustClick(ctx, layerPrefs, "save")
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return errors.New("the preferences dialog did not open")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// What a clearing after a decision deletes.
type clearMode int

const (
	keepAll      clearMode = iota // nothing (accept_all)
	keepConsentd                  // every cookie but consentd's own decision
	deniedOnly                    // the cookies of services of non-essential categories
)

// clearStorage deletes every storage key of the open page's origin but consentd's own.
func (sc *stateCtx) clearStorage(ctx context.Context) error {
	return sc.eval(ctx, `(function () {
  [window.localStorage, window.sessionStorage].forEach(function (s) {
    try { for (var i = s.length - 1; i >= 0; i--) { var k = s.key(i); if (k !== 'consentd' && k.indexOf('consentd:') !== 0) s.removeItem(k); } } catch (e) {}
  });
})()`)
}

// clearCookies deletes cookies as mode says and returns what the browser context still holds
// ("name\x00domain" → value and expiry): the baseline against which what is set again
// afterwards is told apart.
func (sc *stateCtx) clearCookies(s *scan, mode clearMode, injected map[string]bool) (map[string]string, error) {
	res, err := chromedp.CallBrowser(sc.ctx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: sc.id})
	if err != nil {
		return nil, err
	}
	base := map[string]string{}
	for _, c := range res.Cookies {
		dom := strings.TrimPrefix(strings.ToLower(c.Domain), ".")
		del := c.Name != "consentd" && !injected[c.Name+"\x00"+dom]
		if del && mode == deniedOnly {
			svc := s.cookieOwner(c.Name, dom, !s.domains[s.domainOf(dom)], nil, nil)
			del = svc != nil && !isEssential(svc.Category)
		}
		if !del {
			base[c.Name+"\x00"+dom] = cookieState(c)
			continue
		}
		if _, err := chromedp.Call(sc.ctx, network.DeleteCookies, network.DeleteCookiesParams{Name: c.Name, Domain: c.Domain, Path: c.Path}); err != nil {
			return nil, err
		}
	}
	return base, nil
}

func cookieState(c *network.Cookie) string { return fmt.Sprintf("%s\x00%.0f", c.Value, c.Expires) }

// isEssential reports whether a library category is strictly necessary.
func isEssential(category string) bool {
	return category == "" || category == library.CategoryEssential
}

// leaveTabScript empties what a tab keeps across its pages and a new tab would not have: the
// page's session storage and the window's name.
const leaveTabScript = `(function () {
  try { window.sessionStorage.clear(); } catch (e) {}
  try { window.name = ''; } catch (e) {}
  return true;
})()`
