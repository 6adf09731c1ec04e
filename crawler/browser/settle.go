package browser

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Late tags. Many sites hold their third-party tags back a little ("delay third-party
// scripts"): a timer half a second to a few seconds after load, an idle callback, or the
// visitor's first interaction (a scroll, a pointer move, a touch). A page read soon after its
// network goes quiet would miss them, and watching every page for seconds would not fit the
// time budget, so the browser runs the page's clock forward instead: clockScript, installed
// before any script of every document, keeps the callbacks of the page's pending timers
// (setTimeout of 50 ms to 15 s) and idle callbacks; after the page has loaded and gone quiet,
// the scan moves the pointer, scrolls to the bottom, then runs every pending timer and idle
// callback at once (cancelling the original), waits for the network to be quiet for half of
// quietFor from then, and does so again while new ones keep coming, at most flushRounds times.

// clockScript keeps the page's pending timers and idle callbacks so that flushScript can run
// them early. Timers given code as a string, and intervals, are left alone.
const clockScript = `(function () {
  if (window.__consentdClock) return;
  var timers = new Map(), idles = new Map(), tags = new Set();
  // Every script and iframe put in the document, by the parser or by script, with its address:
  // a tag held until consent never makes a request, yet it would load its vendor.
  function note(n) {
    try {
      if (n.nodeType !== 1 || (n.tagName !== 'SCRIPT' && n.tagName !== 'IFRAME')) return;
      var u = n.getAttribute('src') || n.getAttribute('data-src');
      if (u && tags.size < 500) tags.add(new URL(u, document.baseURI).href);
    } catch (e) {}
  }
  // Client-side navigations: the addresses a single-page app's router moves to.
  var navs = new Set();
  ['pushState', 'replaceState'].forEach(function (m) {
    var orig = history[m];
    if (typeof orig !== 'function') return;
    history[m] = function (st, title, url) {
      try { if (url != null && navs.size < 200) navs.add(new URL(String(url), location.href).href); } catch (e) {}
      return orig.apply(this, arguments);
    };
  });
  try {
    new MutationObserver(function (ms) { ms.forEach(function (m) { m.addedNodes.forEach(note); }); })
      .observe(document, { childList: true, subtree: true });
  } catch (e) {}
  var st = window.setTimeout, ct = window.clearTimeout;
  var ric = window.requestIdleCallback, cic = window.cancelIdleCallback;
  window.setTimeout = function (fn, ms) {
    if (typeof fn !== 'function') return st.apply(window, arguments);
    var args = Array.prototype.slice.call(arguments, 2), id;
    var run = function () { timers.delete(id); return fn.apply(window, args); };
    id = st.call(window, run, ms);
    var d = Number(ms) || 0;
    if (d >= 50 && d <= 15000) timers.set(id, run);
    return id;
  };
  window.clearTimeout = function (id) { timers.delete(id); return ct.call(window, id); };
  if (typeof ric === 'function') {
    window.requestIdleCallback = function (fn, opts) {
      if (typeof fn !== 'function') return ric.apply(window, arguments);
      var id;
      var run = function (dl) { idles.delete(id); return fn.call(window, dl); };
      id = ric.call(window, run, opts);
      idles.set(id, run);
      return id;
    };
    window.cancelIdleCallback = function (id) { idles.delete(id); return cic.call(window, id); };
  }
  Object.defineProperty(window, '__consentdClock', { value: { tags: tags, navs: navs, flush: function () {
    var n = 0, dl = { didTimeout: false, timeRemaining: function () { return 50; } };
    Array.from(timers.entries()).forEach(function (e) {
      timers.delete(e[0]); ct.call(window, e[0]); n++;
      try { e[1](); } catch (err) {}
    });
    Array.from(idles.entries()).forEach(function (e) {
      idles.delete(e[0]); cic.call(window, e[0]); n++;
      try { e[1](dl); } catch (err) {}
    });
    return n;
  } } });
})();`

// TagsJS is an expression: the addresses of the scripts and iframes the document was given
// (clockScript) and of the tags consentd's runtime held back unmarked, at most 500.
const TagsJS = `(function () {
  var c = window.__consentdClock, out = c ? Array.from(c.tags) : [];
  try { (window.consentd && window.consentd.heldUnmarked || []).forEach(function (h) { out.push(new URL(String(h.url), location.href).href); }); } catch (e) {}
  return out.slice(0, 500);
})()`

// LinksJS is an expression: the addresses the page links to once its scripts ran — anchors
// (router links included, whatever handles their clicks), elements whose click handlers go by
// an address in a data attribute, and the client-side navigations of its router — at most 500.
const LinksJS = `(function () {
  var out = new Set(), c = window.__consentdClock;
  function add(u) { try { if (u && out.size < 500) out.add(new URL(String(u), document.baseURI).href); } catch (e) {} }
  try {
    document.querySelectorAll('a[href], area[href]').forEach(function (a) { add(a.getAttribute('href')); });
    document.querySelectorAll('[data-href], [data-url], [data-to], [data-route], [data-link], [routerlink]').forEach(function (el) {
      add(el.getAttribute('data-href') || el.getAttribute('data-url') || el.getAttribute('data-to') ||
        el.getAttribute('data-route') || el.getAttribute('data-link') || el.getAttribute('routerlink'));
    });
    if (c) c.navs.forEach(add);
  } catch (e) {}
  return Array.from(out).filter(function (u) { return /^https?:/.test(u); });
})()`

// flushScript runs the pending timers and idle callbacks now and returns how many ran.
const flushScript = `(function () { var c = window.__consentdClock; return c ? c.flush() : 0; })()`

// touchScript is a first touch and wheel turn, for pages that wait for one to load their tags.
const touchScript = `(function () {
  var t = document.body || document.documentElement;
  try { t.dispatchEvent(new Event('touchstart', { bubbles: true })); } catch (e) {}
  try { t.dispatchEvent(new WheelEvent('wheel', { bubbles: true, deltaY: 100 })); } catch (e) {}
  return true;
})()`

// flushRounds bounds how many times a page's clock is run forward.
const flushRounds = 3

// InstallClock makes clockScript run before any script of the tab's documents: call it on a
// tab before it navigates, for Settle to run the page's clock forward.
func InstallClock(ctx context.Context) error {
	_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: clockScript})
	return err
}

// Settle watches a loaded page until what it would do within seconds of a visit has happened:
// quiet network for quietFor (waiting at most quietMax each time), a first interaction
// (pointer move, touch, wheel, scroll to the bottom a viewport at a time), then its clock run
// forward while timers keep coming. It returns the scroll's error (the page's context is gone
// or the page hangs); the rest is best effort.
func Settle(ctx context.Context, p *Proxy, quietFor, quietMax time.Duration) error {
	p.WaitQuiet(ctx, quietFor, quietMax)
	for _, at := range [][2]float64{{120, 160}, {240, 320}} {
		_, _ = chromedp.Call(ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: at[0], Y: at[1]})
	}
	_, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](touchScript))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](scrollScript, chromedp.EvalAwaitPromise)); err != nil {
		return err
	}
	p.WaitQuiet(ctx, quietFor, quietMax)
	for range flushRounds {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](flushScript))
		if err != nil || n == 0 {
			break
		}
		// What the callbacks inserted starts its requests within milliseconds: the network
		// counts as busy from the flush, so the wait sees them.
		p.Touch()
		p.WaitQuiet(ctx, quietFor/2, quietMax)
	}
	return nil
}

// scrollScript scrolls to the bottom a viewport at a time, at most 10 steps, pausing 40 ms
// after each so that the page renders there and lazy loads (IntersectionObserver, loading=lazy)
// start: synchronous scrollTo calls in a row would only render the last position.
const scrollScript = `(async function () {
  var h = Math.max(document.body ? document.body.scrollHeight : 0, document.documentElement.scrollHeight);
  var step = Math.max(window.innerHeight || 800, Math.ceil(h / 10));
  for (var y = step; y < h + step; y += step) {
    window.scrollTo(0, Math.min(y, h));
    await new Promise(function (r) { setTimeout(r, 40); });
  }
  return true;
})()`

// WaitQuiet waits until the page's network has been idle for quietFor, at most quietMax.
func (p *Proxy) WaitQuiet(ctx context.Context, quietFor, quietMax time.Duration) {
	deadline := time.Now().Add(quietMax)
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	for !p.Quiet(quietFor) && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
