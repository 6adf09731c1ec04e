/*
 * consentd banner runtime.
 *
 * Loaded synchronously, first thing in <head>, by the per-site loader, which is this script
 * preceded by the site's configuration (window.__consentdBoot):
 *   <script src="https://consentd.example/api/v1/public/pk_…/loader.js" data-project-key="pk_…"></script>
 * or, as older snippets do, on its own (the configuration is then fetched):
 *   <script src="https://consentd.example/api/v1/public/banner.js?v=…" data-project-key="pk_…"></script>
 *
 * In order, it:
 *  1. sets the Google Consent Mode v2 default (everything denied but functionality and security)
 *     before any other script on the page can run;
 *  2. starts guarding script and iframe insertion, so that with site-wide blocking on an element
 *     whose URL matches a blocking rule is held back until its category is allowed;
 *  3. reads the stored decision (first-party cookie) and the site's configuration (inlined by
 *     the loader; otherwise a cached copy first, then a fresh one from /public/{projectKey}/config),
 *     so that parser-inserted scripts and iframes matching a blocking rule are switched to
 *     type="text/plain" / data-src by a MutationObserver before they run;
 *  4. activates marked elements (<script type="text/plain" data-category="…">,
 *     <iframe data-src="…" data-category="…">) whose categories are allowed, and shows the banner
 *     when a decision is needed;
 *  5. records every decision with /public/{projectKey}/consent and tells Consent Mode, the page
 *     (`consentd:change` event) and, when configured, the storefront's customer-privacy API.
 *
 * The UI lives in a Shadow DOM styled by a constructable stylesheet (no inline style attributes,
 * no eval), so it works under a strict Content-Security-Policy that allows this script's origin
 * in script-src and connect-src. The stylesheet sources (banner.css, and banner-more.css for what
 * the first view does not show) are inlined into the served file in place of the CSS placeholders
 * by the Go package that serves it (bannerjs.go).
 */
(function () {
  'use strict';
  var w = window;
  var d = document;
  if (w.consentd && w.consentd.version) return; // loaded twice: the first copy stays in charge

  var CSS = "__CONSENTD_CSS__";
  var MORE = "__CONSENTD_CSS_MORE__"; // preferences, placeholder, reopen button, choice box
  var VERSION = "__CONSENTD_VERSION__";
  var COOKIE = 'consentd';
  var MARKED = 'script[type="text/plain"][data-category],iframe[data-src][data-category]';
  // What Consent Mode is told (core.ConsentMode, put here by the build): the default, sent
  // before the configuration is known, grants what needs no category.
  var GCM = "__CONSENTD_GCM__";

  var T0 = now(), busy = 0, depth = 1, shownAt = 0; // our own main-thread work (consentd.timing())
  var boot = w.__consentdBoot || null; // the configuration the loader inlined
  w.__consentdBoot = undefined;
  var me = d.currentScript || d.querySelector('script[data-project-key]');
  var pk = boot ? boot.projectKey : me && me.getAttribute('data-project-key');
  // The API base: .../public from .../public/banner.js or .../public/{projectKey}/loader.js.
  var api = me ? me.src.replace(/[?#].*$/, '').replace(boot ? /\/[^/]*\/[^/]*$/ : /\/[^/]*$/, '') : '';
  // On consentd's own cookie declaration page the runtime shows the visitor's choice there.
  var declPage = !!me && me.getAttribute('data-consentd-page') === 'declaration';
  function now() { return w.performance ? performance.now() : Date.now(); }
  // timed wraps fn so that its run time counts as our main-thread time (once, when nested).
  function timed(fn) {
    return function () {
      var s = depth++ ? -1 : now();
      try { return fn.apply(this, arguments); } finally { if (!--depth && s >= 0) busy += now() - s; }
    };
  }

  var cfg = null;       // the site's configuration, once fetched
  var cached = null;    // the configuration of the previous page view: its blocking rules apply
                        // until the fresh one arrives; decisions wait for the fresh one
  var rules = [];       // compiled blocking rules
  var stored = readCookie();
  var allowed = {};     // effective category -> boolean
  var decided = false;  // true once a current decision exists (stored or made on this page)
  var held = [];        // elements held back by a blocking rule
  var ui = null;        // {host, root} of the banner's Shadow DOM
  var lastFocus = null;
  // deepFocus is the focused element, inside shadow roots too (the reopen button).
  function deepFocus() {
    var a = d.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  }
  var gpc = navigator.globalPrivacyControl === true;
  var heldUnmarked = [];  // {url, service, category} of each unmarked page tag held back

  // ---- 1. Google Consent Mode v2 default, before any tag runs. ----
  w.dataLayer = w.dataLayer || [];
  function gtag() { w.dataLayer.push(arguments); }
  if (typeof w.gtag !== 'function') w.gtag = gtag;
  // consentMode is Consent Mode's state for signals when the categories in al are allowed.
  function consentMode(signals, al) {
    var m = granted(signals, al);
    for (var k in m) m[k] = m[k] ? 'granted' : 'denied';
    return m;
  }
  function redact(cm, al) {
    var r = granted(cm.redact, al);
    for (var k in r) gtag('set', k, !r[k]);
  }
  var gcmSent = JSON.stringify(consentMode(GCM.signals, {}));
  gtag('consent', 'default', Object.assign(consentMode(GCM.signals, {}), { wait_for_update: 500 }));
  redact(GCM, {});
  // updateConsentMode sends an update on every decision (force), and otherwise when the
  // effective state differs from the last one sent.
  function updateConsentMode(force) {
    var cm = cfg.policy.consentMode, m = consentMode(cm.signals, allowed);
    var key = JSON.stringify(m);
    if (key === gcmSent && !force) return;
    gcmSent = key;
    gtag('consent', 'update', m);
    redact(cm, allowed);
  }

  // ---- Policy: applies the server's decision (core.DecidePolicy), recomputing none of it. ----
  // every reports whether every category in cats is allowed in al.
  function every(cats, al) { return cats.every(function (c) { return al[c] === true; }); }
  // granted maps each of signals (signal -> categories it needs) to whether al grants it.
  function granted(signals, al) {
    var o = {};
    for (var k in signals) o[k] = every(signals[k], al);
    return o;
  }
  // fixed is the categories whose state no decision changes: required ones on, and with a GPC
  // signal (g) those it turns off.
  function fixed(P, g) {
    var o = {};
    for (var s in P.categories) if (P.categories[s].required) o[s] = true;
    if (g && P.gpc.honored) P.gpc.off.forEach(function (s) { o[s] = false; });
    return o;
  }
  // effective is the state of every category after a decision choosing c.
  function effective(P, c, g) {
    var o = {}, fx = fixed(P, g);
    for (var s in P.categories) o[s] = fx.hasOwnProperty(s) ? fx[s] : c[s] === true;
    return o;
  }
  // initial is the state of every category before the visitor decides.
  function initial(P) {
    var o = {};
    for (var s in P.categories) o[s] = P.categories[s].initial;
    return o;
  }
  // dontSell reports whether a visitor allowing al (with a GPC signal g or not) asks not to sell.
  function dontSell(P, al, g) {
    return (g && P.gpc.honored && P.gpc.doNotSell) || (P.doNotSellWithout.length > 0 && !every(P.doNotSellWithout, al));
  }

  // ---- Pattern language (library/README.md; mirrors library/pattern.go). ----
  function compile(raw) {
    if (typeof raw !== 'string' || !raw || raw.trim() !== raw || raw.indexOf('://') >= 0) return null;
    var s = raw, param = '', pre = '';
    var qi = s.indexOf('?');
    if (qi >= 0) {
      var q = s.slice(qi + 1), eq = q.indexOf('=');
      s = s.slice(0, qi);
      if (eq <= 0) return null;
      param = q.slice(0, eq);
      pre = q.slice(eq + 1);
      if (!pre || /[&=?]/.test(pre)) return null;
    }
    var si = s.indexOf('/');
    var host = (si < 0 ? s : s.slice(0, si)).toLowerCase();
    var path = si < 0 ? '' : '/' + s.slice(si + 1);
    if (path === '/') path = '';
    var sub = host.slice(0, 2) === '*.';
    if (sub) host = host.slice(2);
    if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(host) || /[# \t\n]/.test(raw)) return null;
    var glob = null;
    if (path.indexOf('*') >= 0) {
      glob = globRegExp(path);
      if (!glob) return null;
    }
    return { host: host, sub: sub, path: path, glob: glob, param: param, pre: pre };
  }
  // globRegExp translates Go's path.Match syntax (*, ?, [class], \escape) to an anchored RegExp.
  function globRegExp(g) {
    var r = '^', i = 0, esc = function (c) { return c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'); };
    while (i < g.length) {
      var c = g[i++];
      if (c === '*') r += '[^/]*';
      else if (c === '?') r += '[^/]';
      else if (c === '\\') { if (i >= g.length) return null; r += esc(g[i++]); }
      else if (c === '[') {
        var cls = '[';
        if (g[i] === '^') { cls += '^'; i++; }
        var n = 0;
        for (;;) {
          if (i >= g.length) return null;
          var k = g[i++];
          if (k === ']' && n > 0) break;
          if (k === '\\') { if (i >= g.length) return null; k = g[i++]; }
          if (k === '-' && n > 0 && g[i] !== ']') { cls += '-'; continue; }
          cls += esc(k);
          n++;
        }
        r += cls + ']';
      } else r += esc(c);
    }
    try { return new RegExp(r + '$'); } catch (e) { return null; }
  }
  function matches(p, u) {
    var h = u.hostname.toLowerCase();
    if (h !== p.host && !(p.sub && h.length > p.host.length &&
        h.slice(-p.host.length - 1) === '.' + p.host)) return false;
    var path = u.pathname || '/';
    if (p.path && (p.glob ? !p.glob.test(path) : path.indexOf(p.path) !== 0)) return false;
    if (!p.param) return true;
    var pairs = u.search.slice(1).split('&');
    for (var i = 0; i < pairs.length; i++) {
      if (!pairs[i] || pairs[i].indexOf(';') >= 0) continue;
      var eq = pairs[i].indexOf('=');
      var k = eq < 0 ? pairs[i] : pairs[i].slice(0, eq), v = eq < 0 ? '' : pairs[i].slice(eq + 1);
      try {
        k = decodeURIComponent(k.replace(/\+/g, ' '));
        v = decodeURIComponent(v.replace(/\+/g, ' '));
      } catch (e) { continue; }
      if (k === p.param && v.indexOf(p.pre) === 0) return true;
    }
    return false;
  }
  // compileRules compiles the blocking rules br; a pattern on one of the hosts unheld (or their
  // subdomains) never holds anything.
  function compileRules(br, unheld) {
    var out = [];
    ((br && br.rules) || []).forEach(function (r) {
      (r.patterns || []).forEach(function (raw) {
        var p = compile(raw);
        if (!p) return;
        p.svc = r.serviceSlug;
        p.cat = r.categorySlug;
        p.free = (unheld || []).some(function (g) { return p.host === g || p.host.slice(-g.length - 1) === '.' + g; });
        out.push(p);
      });
    });
    return out;
  }
  // ruleFor returns the blocking rule matching url (resolved against the page), or null.
  function ruleFor(url) {
    if (!url) return null;
    var u;
    try { u = new URL(url, d.baseURI); } catch (e) { return null; }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    for (var i = 0; i < rules.length; i++) if (matches(rules[i], u)) return rules[i];
    return null;
  }
  // PENDING holds a dynamically inserted cross-origin element while no configuration is known
  // yet (first visit, before the config arrives): it is re-evaluated as soon as it is.
  var PENDING = { cat: '', svc: '' };
  function crossOrigin(url) {
    try {
      var o = new URL(url, d.baseURI).origin;
      return /^https?:/.test(o) && o !== location.origin && api.indexOf(o) !== 0;
    } catch (e) { return false; }
  }
  // holdFor returns the rule that must hold url back now, or null when it may load. dyn is true
  // for elements created by script, which may be held before the configuration is known.
  function holdFor(url, dyn) {
    var c = cfg || cached;
    if (!c) return dyn && pk && crossOrigin(url) ? PENDING : null;
    if (!c.blockingRules || !c.blockingRules.siteWide) return null;
    var r = ruleFor(url);
    if (!r || r.free) return null;
    return allowed[r.cat] ? null : r;
  }

  // ---- 2. Guarding script and iframe insertion. ----
  var SRC = {
    SCRIPT: Object.getOwnPropertyDescriptor(HTMLScriptElement.prototype, 'src'),
    IFRAME: Object.getOwnPropertyDescriptor(HTMLIFrameElement.prototype, 'src')
  };
  var TYPE = Object.getOwnPropertyDescriptor(HTMLScriptElement.prototype, 'type');
  var setAttr = Element.prototype.setAttribute;
  var getAttr = Element.prototype.getAttribute;

  // hold marks el (a script or iframe not yet run or loaded) as blocked by rule r.
  function hold(el, r, url) {
    setAttr.call(el, 'data-category', r.cat);
    setAttr.call(el, 'data-consentd-service', r.svc || '');
    if (el.tagName === 'SCRIPT') {
      if (!el.hasAttribute('data-consentd-type')) setAttr.call(el, 'data-consentd-type', getAttr.call(el, 'type') || '');
      setAttr.call(el, 'type', 'text/plain');
    } else {
      setAttr.call(el, 'data-src', url);
      el.removeAttribute('src');
    }
    if (held.indexOf(el) < 0) held.push(el);
  }
  function guard(el) {
    var tag = el.tagName;
    var desc = SRC[tag];
    if (!desc || el.__consentd) return;
    el.__consentd = 1;
    Object.defineProperty(el, 'src', {
      configurable: true,
      get: function () { return tag === 'IFRAME' && getAttr.call(this, 'data-src') && !getAttr.call(this, 'src') ? getAttr.call(this, 'data-src') : desc.get.call(this); },
      set: function (v) {
        var r = holdFor(v, true);
        if (!r) return desc.set.call(this, v);
        if (tag === 'SCRIPT') { desc.set.call(this, v); hold(this, r, v); } else hold(this, r, String(v));
      }
    });
    if (tag === 'SCRIPT') {
      Object.defineProperty(el, 'type', {
        configurable: true,
        get: function () { return TYPE.get.call(this); },
        set: function (v) {
          if (held.indexOf(this) >= 0) setAttr.call(this, 'data-consentd-type', v);
          else TYPE.set.call(this, v);
        }
      });
    }
    el.setAttribute = function (name, value) {
      var n = String(name).toLowerCase();
      if (n === 'src') { this.src = value; return; }
      if (n === 'type' && tag === 'SCRIPT') { this.type = value; return; }
      return setAttr.call(this, name, value);
    };
  }
  var createElement = Document.prototype.createElement;
  Document.prototype.createElement = function () {
    var el = createElement.apply(this, arguments);
    if (el.tagName === 'SCRIPT' || el.tagName === 'IFRAME') guard(el);
    return el;
  };
  // Parser-inserted elements and those built by innerHTML or cloneNode are caught here, before a
  // parser-inserted script runs.
  function inspect(el) {
    if (el.nodeType !== 1 || el === me) return;
    if (held.indexOf(el) >= 0) { activateSoon(); return; }
    if (el.tagName === 'SCRIPT' || el.tagName === 'IFRAME') {
      var type = getAttr.call(el, 'type');
      if (el.tagName === 'SCRIPT' && type === 'text/plain') {
        if (el.hasAttribute('data-category')) activateSoon();
        return;
      }
      if (el.tagName === 'IFRAME' && el.hasAttribute('data-src') && el.hasAttribute('data-category')) {
        activateSoon();
        return;
      }
      var src = getAttr.call(el, 'src');
      var r = src && holdFor(src);
      if (r) {
        var page = !el.__consentd;
        hold(el, r, src);
        if (el.tagName === 'IFRAME') {
          // A parser-inserted iframe started loading on insertion: send it nowhere.
          if (page) { setAttr.call(el, 'src', 'about:blank'); el.removeAttribute('src'); }
          placeholder(el);
        }
        if (page && r !== PENDING) heldUnmarked.push({ url: src, service: r.svc, category: r.cat });
      }
    } else if (el.querySelectorAll) {
      var list = el.querySelectorAll('script,iframe');
      for (var i = 0; i < list.length; i++) inspect(list[i]);
    }
  }
  new MutationObserver(timed(function (recs) {
    recs.forEach(function (rec) { rec.addedNodes.forEach(inspect); });
    if (bodyWaiters.length) flushBody();
  })).observe(d.documentElement, { childList: true, subtree: true });

  // ---- Activation of allowed elements. ----
  function cats(el) { return (getAttr.call(el, 'data-category') || '').split(/[\s,]+/).filter(Boolean); }
  function isAllowed(el) {
    var c = cats(el);
    return c.length > 0 && c.every(function (s) { return allowed[s] === true; });
  }
  function activate(el) {
    if (!el.parentNode) return;
    var i = held.indexOf(el);
    if (i >= 0) held.splice(i, 1);
    var ph = el.__consentdPh;
    if (ph) { ph.remove(); el.__consentdPh = null; el.style.removeProperty('display'); }
    if (el.tagName === 'IFRAME') {
      setAttr.call(el, 'src', getAttr.call(el, 'data-src'));
      el.removeAttribute('data-src');
      return;
    }
    var type = getAttr.call(el, 'data-consentd-type') || '';
    if (el.__consentd && i >= 0) {
      // Held at creation by this runtime, never prepared: reinserting it runs it and keeps the
      // page's own handlers (onload, listeners) attached to the element.
      var parent = el.parentNode, next = el.nextSibling;
      if (type) setAttr.call(el, 'type', type); else el.removeAttribute('type');
      el.removeAttribute('data-consentd-type');
      el.async = false; // held scripts run in document order, async ones too
      parent.removeChild(el);
      parent.insertBefore(el, next);
      return;
    }
    // Written in the page's markup: a fresh element is run in its place.
    var s = createElement.call(d, 'script');
    s.__consentd = 1;
    for (var a = 0; a < el.attributes.length; a++) {
      var at = el.attributes[a];
      if (at.name !== 'type' && at.name !== 'data-consentd-type') setAttr.call(s, at.name, at.value);
    }
    if (type) setAttr.call(s, 'type', type);
    else if (el.hasAttribute('data-type')) setAttr.call(s, 'type', getAttr.call(el, 'data-type'));
    if (el.nonce) s.nonce = el.nonce;
    if (s.src) s.async = false;
    else s.text = el.text;
    el.parentNode.replaceChild(s, el);
  }
  var activating = false;
  function activateSoon() {
    if (activating) return;
    activating = true;
    Promise.resolve().then(function () { activating = false; activateAll(); });
  }
  // activateAll runs, in document order, every held or marked element whose categories are
  // allowed (a held script that is not in the document yet runs when it is inserted).
  var activateAll = timed(function () {
    var list = Array.prototype.slice.call(d.querySelectorAll(MARKED));
    held.forEach(function (el) { if (list.indexOf(el) < 0) list.push(el); });
    list.sort(function (a, b) { return a.compareDocumentPosition(b) & 2 ? 1 : -1; });
    list.forEach(function (el) {
      if (held.indexOf(el) >= 0) {
        var r = holdFor(getAttr.call(el, el.tagName === 'IFRAME' ? 'data-src' : 'src'), true);
        if (!r || isAllowed(el)) activate(el);
        else if (r !== PENDING) {
          setAttr.call(el, 'data-category', r.cat);
          setAttr.call(el, 'data-consentd-service', r.svc || '');
          if (el.tagName === 'IFRAME') placeholder(el);
        }
      } else if (cfg) {
        if (isAllowed(el)) activate(el);
        else if (el.tagName === 'IFRAME') placeholder(el);
      }
    });
  });

  // ---- Stored decision. ----
  // The decision {v: consentVersion, id: visitorId, r: recordId, c: categories, a: action,
  // t: time, p: 1 while not yet recorded} is kept in a first-party cookie; on the declaration
  // page it comes in the link's fragment (#consentd=...) from the site's runtime.
  function parseStored(raw) {
    try {
      var v = JSON.parse(decodeURIComponent(raw));
      return v && typeof v.c === 'object' && v.c ? v : null;
    } catch (e) { return null; }
  }
  function readCookie() {
    var m = declPage ? /#consentd=([^&]*)/.exec(location.hash) : d.cookie.match(new RegExp('(?:^|;\\s*)' + COOKIE + '=([^;]*)'));
    return m ? parseStored(m[1]) : null;
  }
  // cookieDomain is the configured domain of the consent cookie when this page is on it.
  function cookieDomain() {
    var dom = cfg && cfg.banner.cookieDomain, h = location.hostname;
    return dom && (h === dom || h.slice(-dom.length - 1) === '.' + dom) ? dom : '';
  }
  function writeCookie(v) {
    var enc = encodeURIComponent(JSON.stringify(v));
    if (declPage) { history.replaceState(null, '', '#consentd=' + enc); return; }
    var days = (cfg && cfg.banner.cookieExpirationDays) || 365, dom = cookieDomain();
    if (dom) d.cookie = COOKIE + '=;path=/;max-age=0'; // the host-only copy gives way to the shared one
    d.cookie = COOKIE + '=' + enc + ';path=/;max-age=' + Math.round(days * 86400) + ';samesite=lax' +
      (dom ? ';domain=' + dom : '') + (location.protocol === 'https:' ? ';secure' : '');
  }
  function current(s) {
    if (!s || !cfg || s.v < cfg.banner.consentVersion) return false;
    return cfg.categories.every(function (c) { return typeof s.c[c.slug] === 'boolean'; });
  }
  // gpcOn is true when the visitor's GPC signal changes something under the policy.
  function gpcOn() { return gpc && !!cfg && cfg.policy.gpc.honored; }

  // ---- 3. Configuration. ----
  var cacheKey = 'consentd:' + pk;
  // useConfig makes c the configuration. quiet (the loader's configuration in a language other
  // than the page's, while the right one is fetched) applies the stored decision or the defaults
  // and nothing else: no banner, no recording.
  function useConfig(c, quiet) {
    if (!c || !c.banner || !c.policy || !Array.isArray(c.categories)) throw new Error('config: bad shape');
    cfg = c;
    cfg.categories = c.categories.slice().sort(function (a, b) { return (a.sortOrder || 0) - (b.sortOrder || 0); });
    var P = c.policy;
    rules = compileRules(c.blockingRules, P.unheldHosts);
    if (quiet) {
      decided = current(stored);
      apply(decided ? stored.c : initial(P), false);
      return;
    }
    if (current(stored)) {
      decided = true;
      apply(stored.c, false);
      // A GPC signal turns categories off over a stored decision too.
      if (gpcOn() && P.gpc.off.some(function (s) { return stored.c[s] !== false; })) decide(stored.c, 'gpc');
      else if (stored.p) post(stored);
    } else if (gpcOn()) {
      decide(initial(P), 'gpc');
    } else {
      decided = false;
      apply(initial(P), false);
      if (P.ask && !declPage) whenBody(showBanner);
    }
    whenReady(function () { reopenButton(); declarations(); });
  }
  // apply makes the categories in c the effective consent.
  function apply(c, isDecision) {
    var next = effective(cfg.policy, c, gpc);
    var revoked = Object.keys(allowed).filter(function (s) { return allowed[s] && !next[s]; });
    var changed = JSON.stringify(next) !== JSON.stringify(allowed);
    allowed = next;
    updateConsentMode(isDecision);
    if (revoked.length) revoke(revoked);
    activateAll();
    if (changed || isDecision) {
      d.dispatchEvent(new CustomEvent('consentd:change', { bubbles: true, detail: getConsent() }));
    }
    storefront();
    if (isDecision) { reopenButton(); renderChoices(); }
  }
  // revoke deletes the first-party cookies of the withdrawn categories' services that the
  // configuration's cookie rules name (exact names and prefixes), on this host, its parent
  // domains and the configured cookie domain, and re-blocks their iframes.
  function revoke(slugs) {
    var cr = (cfg.cookieRules || []).filter(function (r) { return slugs.indexOf(r.category) >= 0; });
    d.cookie.split(';').forEach(function (kv) {
      var name = kv.split('=')[0].trim();
      if (!name || name === COOKIE || !cr.some(function (r) {
        return r.match === 'prefix' ? name.indexOf(r.name) === 0 : name === r.name;
      })) return;
      // This host's parent domains include the configured cookie domain, when it applies here.
      var parts = location.hostname.split('.'), doms = [''];
      for (var i = 0; i < parts.length - 1; i++) doms.push(';domain=' + parts.slice(i).join('.'));
      doms.forEach(function (dm) { d.cookie = name + '=;path=/;max-age=0' + dm; });
    });
    d.querySelectorAll('iframe[data-category][src]').forEach(function (f) {
      if (cats(f).some(function (s) { return slugs.indexOf(s) >= 0; })) {
        setAttr.call(f, 'data-src', getAttr.call(f, 'src'));
        f.removeAttribute('src');
        placeholder(f);
      }
    });
  }
  function storefront() {
    var sf = cfg && cfg.policy.storefront, shop = w.Shopify;
    if (!decided || !shop || !Object.keys(sf).length) return;
    var send = function () {
      var cp = shop.customerPrivacy;
      if (!cp || typeof cp.setTrackingConsent !== 'function') return;
      cp.setTrackingConsent(granted(sf, allowed), function () {});
    };
    if (shop.customerPrivacy) send();
    else if (typeof shop.loadFeatures === 'function') {
      shop.loadFeatures([{ name: 'consent-tracking-api', version: '0.1' }], function (err) { if (!err) send(); });
    }
  }
  function doNotSell() { return !!cfg && dontSell(cfg.policy, allowed, gpc); }

  // decide records a visitor's decision: categories c, taken by action.
  function decide(c, action) {
    if (!cfg) return;
    var full = effective(cfg.policy, c, gpc);
    decided = true;
    stored = { v: cfg.banner.consentVersion, id: stored && stored.id, r: stored && stored.r, c: full, a: action, t: Date.now(), p: 1 };
    writeCookie(stored);
    apply(full, true);
    post(stored);
  }
  function post(s) {
    // language, runtime and page go into the record's snapshot of what was shown
    var body = { categories: s.c, consentVersion: s.v, action: s.a, doNotSell: doNotSell(),
      language: cfg.lang || '', runtimeVersion: VERSION, pageUrl: location.origin + location.pathname };
    if (s.id) body.visitorId = s.id;
    if (gpc) body.gpc = true;
    fetch(api + '/' + encodeURIComponent(pk) + '/consent', {
      method: 'POST', credentials: 'omit', keepalive: true,
      headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body)
    }).then(function (r) {
      if (!r.ok) throw new Error('consent: HTTP ' + r.status);
      return r.json();
    }).then(function (rec) {
      if (stored !== s) return; // a newer decision was taken meanwhile
      s.id = rec.visitorId || s.id;
      s.r = rec.id || s.r;
      delete s.p;
      writeCookie(s);
      renderChoices();
    }).catch(function (e) { console.warn('consentd:', e.message); });
  }

  // ---- Texts. ----
  // The configuration carries the texts of one language, which the server chose (built-in
  // texts under the site's overrides and translations); the runtime only says which language:
  // the page's lang, then the browser's languages, as the server matches them.
  function langs() {
    var out = [];
    if (d.documentElement.lang) out.push(d.documentElement.lang);
    return out.concat(navigator.languages || [navigator.language]).map(function (l) { return String(l || '').toLowerCase(); });
  }
  // langFor returns the first of the visitor's languages the site speaks (exactly, else by its
  // primary subtag), or '' when none is.
  function langFor(speaks) {
    var ls = langs();
    for (var i = 0; i < ls.length; i++) {
      if (speaks.indexOf(ls[i]) >= 0) return ls[i];
      var base = ls[i].split('-')[0];
      if (speaks.indexOf(base) >= 0) return base;
    }
    return '';
  }
  function t(key, vars) { return fill((cfg.texts || {})[key] || '', vars); }
  function fill(s, vars) {
    return s.replace(/\{(\w+)\}/g, function (m, k) { return vars && vars[k] != null ? vars[k] : m; });
  }
  function catName(k) { return k.name || k.slug; }
  function catDesc(k) { return k.description || ''; }

  // ---- DOM helpers. ----
  function h(tag, attrs, kids) {
    var el = createElement.call(d, tag);
    for (var k in attrs || {}) {
      var v = attrs[k];
      if (v == null || v === false) continue;
      if (k === 'text') el.textContent = v;
      else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v);
      else setAttr.call(el, k, v === true ? '' : v);
    }
    (kids || []).forEach(function (c) { if (c) el.appendChild(typeof c === 'string' ? d.createTextNode(c) : c); });
    return el;
  }
  // Constructable stylesheets, parsed on first use: the banner's, then the others' (more).
  var sheets = {};
  var adopt = w.CSSStyleSheet && 'adoptedStyleSheets' in Document.prototype;
  function sheet(k, text) {
    if (!sheets[k]) {
      sheets[k] = new CSSStyleSheet();
      sheets[k].replaceSync(text);
    }
    return sheets[k];
  }
  // styleMore adds the styles beyond the banner's to a shadow root.
  function styleMore(root) {
    if (root.__more) return;
    root.__more = 1;
    if (adopt) root.adoptedStyleSheets = root.adoptedStyleSheets.concat(sheet('m', MORE));
    else root.appendChild(h('style', { text: MORE }));
  }
  function shadowHost(tag, more) {
    var host = createElement.call(d, tag);
    host.style.setProperty('all', 'initial', 'important');
    var root = host.attachShadow({ mode: 'open' });
    if (adopt) root.adoptedStyleSheets = [sheet('b', CSS)];
    else root.appendChild(h('style', { text: CSS }));
    if (more) styleMore(root);
    var col = (cfg && cfg.banner.colors) || {};
    [['primary', '--cd-primary'], ['background', '--cd-bg'], ['text', '--cd-text'],
      ['acceptButton', '--cd-accept'], ['rejectButton', '--cd-reject']].forEach(function (p) {
      if (col[p[0]]) host.style.setProperty(p[1], col[p[0]]);
    });
    host.style.setProperty('--cd-accept-text', onColor(col.acceptButton));
    host.style.setProperty('--cd-reject-text', onColor(col.rejectButton));
    return { host: host, root: root };
  }
  // onColor picks black or white text for a hex background, by relative luminance.
  function onColor(bg) {
    var m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(bg || '');
    if (!m) return '#ffffff';
    var x = m[1].length === 3 ? m[1].replace(/./g, '$&$&') : m[1];
    var lum = [0, 2, 4].map(function (i) {
      var c = parseInt(x.substr(i, 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    var l = 0.2126 * lum[0] + 0.7152 * lum[1] + 0.0722 * lum[2];
    return l > 0.4 ? '#111111' : '#ffffff';
  }
  // whenBody runs fn once <body> exists: at once, or as soon as the parser inserts it (so that
  // the banner is painted with the page's first content), at the latest on DOMContentLoaded.
  var bodyWaiters = [];
  function whenBody(fn) {
    if (d.body) fn();
    else if (bodyWaiters.push(fn) === 1) d.addEventListener('DOMContentLoaded', timed(flushBody));
  }
  function flushBody() {
    if (d.body) bodyWaiters.splice(0).forEach(function (fn) { fn(); });
  }
  function whenReady(fn) {
    if (d.readyState !== 'loading') fn();
    else d.addEventListener('DOMContentLoaded', timed(fn));
  }
  function mount() {
    if (ui) return ui;
    ui = shadowHost('consentd-ui');
    ui.root.addEventListener('keydown', onKey);
    (d.body || d.documentElement).appendChild(ui.host);
    return ui;
  }
  function focusables(box) {
    return Array.prototype.filter.call(
      box.querySelectorAll('button,a[href],input:not([disabled]),summary,[tabindex]:not([tabindex="-1"])'),
      function (e) { return e.offsetParent !== null || e.getClientRects().length > 0; });
  }
  function onKey(e) {
    var box = ui.prefs || (ui.banner && ui.banner.tagName === 'DIALOG' ? ui.banner : null);
    if (e.key === 'Escape' && ui.prefs) {
      e.preventDefault();
      closePrefs();
      return;
    }
    if (e.key !== 'Tab' || !box) return;
    var f = focusables(box);
    if (!f.length) return;
    var a = ui.root.activeElement;
    if (e.shiftKey && (a === f[0] || box === a)) { e.preventDefault(); f[f.length - 1].focus(); }
    else if (!e.shiftKey && a === f[f.length - 1]) { e.preventDefault(); f[0].focus(); }
  }
  function policyLinks() {
    var b = cfg.banner, kids = [], cp = b.cookiePolicyUrl;
    // consentd's own declaration page learns the visitor's choice from the link's fragment.
    if (cp && cp.indexOf(api + '/') === 0 && stored) cp = cp.replace(/#.*$/, '') + '#consentd=' + encodeURIComponent(JSON.stringify(stored));
    if (b.privacyPolicyUrl) kids.push(h('a', { href: b.privacyPolicyUrl, target: '_blank', rel: 'noopener', text: t('privacyLabel') }));
    if (cp) kids.push(h('a', { href: cp, target: '_blank', rel: 'noopener', text: t('cookiePolicyLabel') }));
    return kids.length ? h('p', { 'class': 'lk' }, kids) : null;
  }
  function heading(id, text) {
    var b = cfg.banner;
    return h('div', { 'class': 'hd' }, [
      b.logoUrl ? h('img', { 'class': 'lg', src: b.logoUrl, alt: '' }) : null,
      h('h2', { id: id, text: text })
    ]);
  }
  function buttons(withPrefs) {
    return h('div', { 'class': 'ac' }, [
      h('button', { type: 'button', 'class': 'no', 'data-action': 'reject', text: t('rejectLabel'), onclick: function () { api_.rejectAll(); } }),
      withPrefs ? h('button', { type: 'button', 'class': 'pf', 'data-action': 'preferences', text: t('preferencesLabel'), onclick: function () { api_.showPreferences(); } }) : null,
      h('button', { type: 'button', 'class': 'ok', 'data-action': 'accept', text: t('acceptLabel'), onclick: function () { api_.acceptAll(); } })
    ]);
  }

  // ---- 4. The banner. ----
  var showBanner = timed(function () {
    if (!cfg || decided || (ui && (ui.banner || ui.prefs))) return;
    var b = cfg.banner, u = mount();
    var tpl = ['floating', 'wide_bar', 'modal'].indexOf(b.template) >= 0 ? b.template : 'floating';
    var pos = b.position || 'bottom_right';
    if (tpl === 'wide_bar') pos = pos.indexOf('top') === 0 ? 'top' : 'bottom';
    var close = h('button', {
      type: 'button', 'class': 'x', 'data-action': 'close', 'aria-label': t('closeLabel'), text: '\u00d7',
      onclick: function () {
        var cb = b.closeButtonBehavior;
        if (cb === 'accept_all') api_.acceptAll();
        else if (cb === 'reject_all') api_.rejectAll();
        else hideBanner();
      }
    });
    var kids = [close, h('div', { 'class': 'tx' }, [
      heading('cd-h', t('headline')),
      h('p', { id: 'cd-b', text: t('body') }),
      gpcOn() ? h('p', { 'class': 'gp', text: t('gpcNotice') }) : null,
      policyLinks()
    ]), buttons(true)];
    var attrs = { 'class': 'cd ' + tpl + ' ' + pos, 'aria-labelledby': 'cd-h', 'aria-describedby': 'cd-b', tabindex: '-1', 'data-template': tpl, 'data-position': pos };
    var el;
    lastFocus = deepFocus();
    if (tpl === 'modal') {
      el = h('dialog', attrs, kids);
      el.addEventListener('cancel', function (e) { e.preventDefault(); });
      u.root.appendChild(el);
      u.banner = el;
      el.showModal();
    } else {
      attrs.role = 'dialog';
      attrs['aria-modal'] = 'false';
      attrs['class'] += ' bn';
      el = h('div', attrs, kids);
      u.root.appendChild(el);
      u.banner = el;
    }
    var focus = function () { if (ui && ui.banner === el) el.focus({ preventScroll: true }); };
    reopenButton();
    // On the first view, focus (which lays the page out at once) waits until the frame that
    // paints the banner is out; when the visitor brought the banner back, it moves at once.
    if (shownAt) focus();
    else requestAnimationFrame(function () { setTimeout(timed(focus)); });
    shownAt = shownAt || now();
  });
  function hideBanner() {
    if (!ui || !ui.banner) return;
    ui.banner.remove();
    ui.banner = null;
    restoreFocus();
    reopenButton();
  }
  function restoreFocus() {
    if (ui && (ui.banner || ui.prefs)) return;
    if (lastFocus && lastFocus.focus && lastFocus !== d.body) lastFocus.focus({ preventScroll: true });
    lastFocus = null;
  }

  // ---- Preferences dialog. ----
  function showPrefs() {
    if (!cfg) return;
    var u = mount();
    if (u.prefs) { u.prefs.focus(); return; }
    styleMore(u.root);
    var reopenBanner = !!u.banner;
    if (!u.banner) lastFocus = deepFocus();
    else { u.banner.remove(); u.banner = null; }
    var now = decided ? allowed : (stored && stored.c) || allowed;
    var fx = fixed(cfg.policy, gpc);
    var list = h('div', { 'class': 'cs' }, cfg.categories.map(function (k) {
      var id = 'cd-c-' + k.slug, locked = fx.hasOwnProperty(k.slug);
      var ctl = fx[k.slug] ? h('span', { 'class': 'on', text: t('alwaysOnLabel') }) : h('label', { 'class': 'tg' }, [
        h('input', {
          type: 'checkbox', role: 'switch', id: id, 'data-category': k.slug, 'aria-labelledby': id + '-n',
          'aria-describedby': catDesc(k) ? id + '-d' : null, checked: locked ? fx[k.slug] : !!now[k.slug], disabled: locked
        }),
        h('span', { 'class': 'sw', 'aria-hidden': 'true' })
      ]);
      var svcs = k.services || [];
      return h('div', { 'class': 'ct' }, [
        h('div', { 'class': 'rw' }, [h('span', { 'class': 'nm', id: id + '-n', text: catName(k) }), ctl]),
        catDesc(k) ? h('p', { 'class': 'ds', id: id + '-d', text: catDesc(k) }) : null,
        svcs.length ? h('details', null, [
          h('summary', { text: t('servicesLabel') + ' (' + svcs.length + ')' })
        ].concat(svcs.map(function (s) {
          var ck = s.cookies || [];
          return h('div', { 'class': 'sv' }, [
            h('div', { 'class': 'nm', text: s.label || s.slug }),
            s.description ? h('p', { text: s.description }) : null,
            s.privacyPolicyUrl ? h('p', null, [h('a', { href: s.privacyPolicyUrl, target: '_blank', rel: 'noopener', text: t('privacyLabel') })]) : null,
            table(['cookieLabel', 'durationLabel', 'purposeLabel'], t, ck.map(function (c) { return [c.name, c.duration, c.description]; }))
          ]);
        }))) : null
      ]);
    }));
    var dlg = h('dialog', { 'class': 'cd pr', 'aria-labelledby': 'cd-p', 'aria-describedby': 'cd-pb', 'data-preferences': '' }, [
      h('button', { type: 'button', 'class': 'x', 'data-action': 'close', 'aria-label': t('closeLabel'), text: '\u00d7', onclick: closePrefs }),
      heading('cd-p', t('preferencesTitle')),
      h('p', { id: 'cd-pb', text: t('preferencesBody') }),
      gpcOn() ? h('p', { 'class': 'gp', text: t('gpcNotice') }) : null,
      policyLinks(),
      list,
      h('div', { 'class': 'ac' }, [
        h('button', { type: 'button', 'class': 'no', 'data-action': 'reject', text: t('rejectLabel'), onclick: function () { api_.rejectAll(); } }),
        h('button', { type: 'button', 'class': 'pf', 'data-action': 'save', text: t('saveLabel'), onclick: save }),
        h('button', { type: 'button', 'class': 'ok', 'data-action': 'accept', text: t('acceptLabel'), onclick: function () { api_.acceptAll(); } })
      ])
    ]);
    dlg.__reopen = reopenBanner && !decided;
    dlg.addEventListener('cancel', function (e) { e.preventDefault(); closePrefs(); });
    u.root.appendChild(dlg);
    u.prefs = dlg;
    dlg.showModal();
    var first = dlg.querySelector('input:not([disabled])') || dlg.querySelector('.ok');
    (first || dlg).focus();
    function save() {
      var c = {};
      list.querySelectorAll('input[data-category]').forEach(function (i) { c[getAttr.call(i, 'data-category')] = i.checked; });
      decide(Object.assign({}, allowed, c), 'custom');
      closeAll();
    }
  }
  function closePrefs() {
    if (!ui || !ui.prefs) return;
    var reopen = ui.prefs.__reopen && !decided;
    ui.prefs.remove();
    ui.prefs = null;
    if (reopen) showBanner();
    else restoreFocus();
  }
  function closeAll() {
    if (!ui) return;
    if (ui.prefs) { ui.prefs.remove(); ui.prefs = null; }
    hideBanner();
    restoreFocus();
  }

  // ---- Blocked iframe placeholder. ----
  function placeholder(f) {
    if (f.__consentdPh || !cfg || !f.parentNode) return;
    var slug = getAttr.call(f, 'data-consentd-service') || getAttr.call(f, 'data-service');
    if (!slug) { var r = ruleFor(getAttr.call(f, 'data-src')); slug = r && r.svc; }
    var c = cats(f), k = null, svc = null;
    cfg.categories.forEach(function (x) {
      if (c.indexOf(x.slug) >= 0 && !k) k = x;
      (x.services || []).forEach(function (s) { if (s.slug === slug) svc = s; });
    });
    var names = c.filter(function (s) { return !allowed[s]; }).map(function (s) {
      var x = cfg.categories.filter(function (y) { return y.slug === s; })[0];
      return x ? catName(x) : s;
    });
    var p = shadowHost('consentd-placeholder', 1);
    var wd = getAttr.call(f, 'width'), ht = getAttr.call(f, 'height');
    p.host.style.setProperty('display', 'block', 'important');
    p.host.style.setProperty('width', wd ? (/^\d+$/.test(wd) ? wd + 'px' : wd) : '100%');
    p.host.style.setProperty('height', ht ? (/^\d+$/.test(ht) ? ht + 'px' : ht) : 'auto');
    var label = svc ? svc.label : (slug || (k ? catName(k) : ''));
    p.root.appendChild(h('div', { 'class': 'cd ph', role: 'group', 'aria-label': label }, [
      h('p', { text: t('blockedText', { service: label, category: names.join(', ') }) }),
      h('button', {
        type: 'button', 'class': 'ok', text: t('allowLabel', { category: names.join(', ') }),
        onclick: function () {
          var add = {};
          c.forEach(function (s) { add[s] = true; });
          decide(Object.assign({}, allowed, add), 'custom');
          closeAll();
        }
      })
    ]));
    f.parentNode.insertBefore(p.host, f);
    f.style.setProperty('display', 'none');
    f.__consentdPh = p.host;
  }

  // ---- Reopen button: after a decision, unless the page has its own [data-consentd-open]. ----
  var reopen = null;
  function reopenButton() {
    var b = cfg && cfg.banner;
    var want = b && b.reopenButton && decided && !declPage && !(ui && ui.banner) && d.body &&
      !d.querySelector('[data-consentd-open]');
    if (!want) { if (reopen) { reopen.host.remove(); reopen = null; } return; }
    if (reopen) return;
    reopen = shadowHost('consentd-reopen', 1);
    var corner = b.reopenPosition || 'bottom_left'; // one of core.ReopenPositions
    reopen.root.appendChild(h('button', {
      type: 'button', 'class': 'cd ro ' + corner, 'data-action': 'reopen', text: t('reopenLabel'),
      'aria-haspopup': 'dialog', onclick: function () { api_.showPreferences(); }
    }));
    d.body.appendChild(reopen.host);
  }

  // table builds a table of cookies: heads are text keys (said by tx), rows arrays of cells
  // (strings or elements); none without rows.
  function table(heads, tx, rows) {
    return rows.length ? h('table', null, [
      h('thead', null, [h('tr', null, heads.map(function (k) { return h('th', { scope: 'col', text: tx(k) }); }))]),
      h('tbody', null, rows.map(function (r) { return h('tr', null, r.map(function (c) { return h('td', null, [c || '']); })); }))
    ]) : null;
  }

  // ---- Cookie declaration: [data-consentd-declaration] gets the list and the visitor's choice,
  // [data-consentd-choice] (consentd's own declaration page) the choice only. ----
  var declFetched = false;
  function declarations() {
    renderChoices();
    var els = d.querySelectorAll('[data-consentd-declaration]');
    if (!els.length || declFetched) return;
    declFetched = true;
    fetch(api + '/' + encodeURIComponent(pk) + '/declaration?lang=' + encodeURIComponent(cfg.lang || ''), { credentials: 'omit' })
      .then(function (r) { if (!r.ok) throw new Error('declaration: HTTP ' + r.status); return r.json(); })
      .then(function (dc) {
        els.forEach(function (el) {
          el.textContent = '';
          el.appendChild(h('h3', { text: dc.texts.yourChoiceLabel }));
          el.appendChild(h('div', { 'class': 'consentd-choice', 'data-consentd-choice': '' }));
          dc.categories.forEach(function (k) { el.appendChild(declCategory(k, dc.texts)); });
        });
        renderChoices();
      })
      .catch(function (e) { console.warn('consentd:', e.message); });
  }
  function declCategory(k, tx) {
    var tt = function (key, vars) { return fill(tx[key] || '', vars); };
    var kind = { localStorage: 'storageLocal', sessionStorage: 'storageSession' };
    return h('section', { 'class': 'consentd-category' }, [
      h('h3', { text: k.name }),
      k.description ? h('p', { text: k.description }) : null
    ].concat(k.services.length ? k.services.map(function (s) {
      return h('div', { 'class': 'consentd-service' }, [
        h('h4', { text: s.label }),
        s.description ? h('p', { text: s.description }) : null,
        s.note ? h('p', { text: s.note }) : null,
        s.privacyPolicyUrl ? h('p', null, [h('a', { href: s.privacyPolicyUrl, rel: 'noopener', text: tt('privacyPolicyOfLabel', { service: s.label }) })]) : null,
        table(['cookieLabel', 'typeLabel', 'durationLabel', 'purposeLabel'], tt, s.cookies.map(function (c) {
          return [h('code', { text: c.name }), tt(kind[c.type] || 'storageCookie'), c.duration, c.description];
        }))
      ]);
    }) : [h('p', { text: tt('noServicesLabel') })]));
  }
  // renderChoices shows the visitor's current choice, its date and record ID, with buttons to
  // change or withdraw it, in every [data-consentd-choice] element (in a shadow root styled
  // like the banner, whatever the page's styles).
  function renderChoices() {
    if (!cfg) return;
    d.querySelectorAll('[data-consentd-choice]').forEach(function (host) {
      if (!host.__cd) {
        host.__cd = shadowHost('consentd-choice', 1);
        host.textContent = '';
        host.appendChild(host.__cd.host);
      }
      var el = host.__cd.root;
      var c = getConsent(), kids = [];
      if (!c.decided) kids.push(h('p', { text: t('noChoiceYet') }));
      else {
        kids.push(h('ul', null, cfg.categories.map(function (k) {
          return h('li', null, [h('strong', { text: catName(k) + ': ' }), t(c.categories[k.slug] ? 'allowedLabel' : 'notAllowedLabel')]);
        })));
        if (c.decidedAt) kids.push(h('p', { text: t('consentDateLabel') + ': ' + new Date(c.decidedAt).toLocaleString(cfg.lang) }));
        if (c.recordId) kids.push(h('p', null, [t('consentIdLabel') + ': ', h('code', { 'data-consentd-record': '', text: c.recordId })]));
      }
      kids.push(h('div', { 'class': 'ac' }, [
        h('button', { type: 'button', 'class': 'pf', 'data-action': 'change', text: t('changeConsentLabel'), onclick: function () { api_.showPreferences(); } }),
        c.decided ? h('button', { type: 'button', 'class': 'no', 'data-action': 'withdraw', text: t('withdrawConsentLabel'), onclick: function () { api_.rejectAll(); } }) : null
      ]));
      el.textContent = '';
      el.appendChild(h('div', { 'class': 'cd ch' }, kids));
    });
  }

  // ---- 5. Page API. ----
  function getConsent() {
    var out = {};
    for (var k in allowed) out[k] = allowed[k];
    return {
      categories: out, decided: decided, action: decided && stored ? stored.a || null : null,
      consentVersion: cfg ? cfg.banner.consentVersion : null, visitorId: (stored && stored.id) || null,
      recordId: (decided && stored && stored.r) || null,
      decidedAt: decided && stored && stored.t ? new Date(stored.t).toISOString() : null,
      gpc: gpc, doNotSell: doNotSell(), ready: !!cfg
    };
  }
  function all(v) {
    var c = {};
    if (cfg) cfg.categories.forEach(function (k) { c[k.slug] = v; });
    return c;
  }
  var api_ = {
    version: VERSION,
    getConsent: getConsent,
    acceptAll: function () { decide(all(true), 'accept_all'); closeAll(); },
    rejectAll: function () { decide(all(false), 'reject_all'); closeAll(); },
    showPreferences: function () { whenBody(showPrefs); },
    blockingRuleFor: function (url) {
      var r = ruleFor(url);
      return r ? { service: r.svc, category: r.cat } : null;
    },
    // heldUnmarked lists the page's own unmarked tags held back by a blocking rule: the browser
    // may have fetched them already (preload scanner); mark them to stop that too.
    heldUnmarked: heldUnmarked,
    // timing: when the runtime started, when the banner was shown (performance.now() ms) and
    // the main-thread time spent in the runtime so far.
    timing: function () { return { start: T0, shown: shownAt, busy: busy }; }
  };
  w.consentd = api_;
  d.addEventListener('click', function (e) {
    var el = e.target && e.target.closest && e.target.closest('[data-consentd-open]');
    if (!el) return;
    e.preventDefault();
    api_.showPreferences();
  });

  // ---- 3. Configuration: the loader's at once; else a cached copy at once, then a fresh one. ----
  // Without a configuration the runtime fails closed: what it holds stays held (marked tags,
  // cross-origin tags inserted by script) while it retries, five times, 3 s apart.
  function fetchConfig(lang, keep, fallback, n) { // n: retries so far (undefined: none)
    fetch(api + '/' + encodeURIComponent(pk) + '/config' + (lang ? '?lang=' + encodeURIComponent(lang) : ''), { credentials: 'omit' })
      .then(function (r) { if (!r.ok) throw new Error('config: HTTP ' + r.status); return r.text(); })
      .then(function (t) {
        if (keep) try { localStorage.setItem(cacheKey, t); } catch (e) { /* storage unavailable */ }
        useConfig(JSON.parse(t));
      })
      .catch(function (e) {
        console.warn('consentd:', e.message);
        if (fallback) useConfig(fallback);
        else if (!(n > 4)) setTimeout(fetchConfig, 3e3, lang, keep, 0, -~n);
      });
  }
  if (boot) {
    var want = langFor(boot.languages || []);
    if (!want || want === boot.lang) useConfig(boot);
    else {
      // The page speaks another language than the browser asked the loader for: enforce now,
      // talk once that language's texts are here.
      useConfig(boot, true);
      fetchConfig(want, false, boot);
    }
  } else if (pk) {
    try {
      cached = JSON.parse(localStorage.getItem(cacheKey));
      rules = compileRules(cached && cached.blockingRules);
    } catch (e) { cached = null; }
    fetchConfig(langs()[0] || '', true);
  } else console.warn('consentd: no data-project-key');
  depth = 0;
  busy += now() - T0;
})();
