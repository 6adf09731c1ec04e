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
 *  1. sets the defaults of the vendors' consent APIs (Google Consent Mode v2: everything denied
 *     but functionality and security; Microsoft UET and Clarity: denied) before any other script
 *     on the page can run;
 *  2. starts guarding script and iframe insertion, so that with site-wide blocking on an element
 *     whose URL matches a blocking rule is held back until its category is allowed;
 *  3. reads the stored decision (first-party cookie) and the site's configuration (inlined by
 *     the loader; otherwise a cached copy first, then a fresh one from /public/{projectKey}/config;
 *     while consentd cannot be reached, the cached copy applies a returning visitor's decision),
 *     so that parser-inserted scripts and iframes matching a blocking rule are switched to
 *     type="text/plain" / data-src by a MutationObserver before they run;
 *  4. activates marked elements (<script type="text/plain" data-category="…">,
 *     <iframe data-src="…" data-category="…">) whose categories are allowed, and shows the banner
 *     when a decision is needed;
 *  5. records every decision with /public/{projectKey}/consent and tells the vendors, the page
 *     (`consentd:change` event) and, when configured, the storefront's customer-privacy API.
 *
 * Built from four modules, joined in one closure by the build (bannerjs.go): policy.js (applies
 * the server's decision), guard.js (enforcement), ui.js (what the visitor sees) and this one,
 * boot.js, which holds the shared state, applies and records decisions and starts the others.
 *
 * The UI lives in a Shadow DOM styled by a constructable stylesheet (no inline style attributes,
 * no eval), so it works under a strict Content-Security-Policy that allows this script's origin
 * in script-src and connect-src. The stylesheet (banner.css) is inlined into the served file in
 * place of the CSS placeholder by the Go package that serves it (bannerjs.go); what the first
 * view does not show (the preferences, the declaration, the placeholders, the reopen button) is
 * in a second script, banner-more.js (more.js with banner-more.css), loaded when needed.
 */
var w = window;
var d = document;
if (w.consentd && w.consentd.version) return; // loaded twice: the first copy stays in charge

var CSS = "__CONSENTD_CSS__";
var VERSION = "__CONSENTD_VERSION__";
var COOKIE = 'consentd';
var MARKED = 'script[type="text/plain"][data-category],iframe[data-src][data-category]';
// The vendors' consent APIs (core.VendorConsents, put here by the build): their defaults, sent
// before the configuration is known, grant what needs no category.
var VENDORS = "__CONSENTD_VENDORS__";

var T0 = now(), busy = 0, depth = 1, shownAt = 0; // our own main-thread work (consentd.timing())
var boot = w.__consentdBoot || null; // the configuration the loader inlined
w.__consentdBoot = undefined;
var me = d.currentScript || d.querySelector('script[data-project-key]');
var pk = boot ? boot.projectKey : me && me.getAttribute('data-project-key');
// The API base: .../public from .../public/banner.js or .../public/{projectKey}/loader.js.
var api = me ? me.src.replace(/[?#].*$/, '').replace(boot ? /\/[^/]*\/[^/]*$/ : /\/[^/]*$/, '') : '';
// On consentd's own cookie declaration page the runtime shows the visitor's choice there.
var declPage = !!me && me.getAttribute('data-consentd-page') === 'declaration';
// siteURL is the URL of the site's public resource res (core.PublicPath); the build puts the
// resources' names from core/publicpath.go in the placeholders siteURL is called with.
function siteURL(res) { return api + '/' + encodeURIComponent(pk) + '/' + res; }
function now() { return performance.now(); } // every browser with Shadow DOM and fetch has it
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
var stored = readCookie();
var allowed = {};     // effective category -> boolean
var decided = false;  // true once a current decision exists (stored or made on this page)
var gpc = navigator.globalPrivacyControl === true;

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
// current reports whether s is a current decision under the configuration c (default: cfg).
function current(s, c) {
  c = c || cfg;
  if (!s || !c || s.v < c.banner.consentVersion) return false;
  return c.categories.every(function (k) { return typeof s.c[k.slug] === 'boolean'; });
}
// gpcOn is true when the visitor's GPC signal changes something under the policy.
function gpcOn() { return gpc && !!cfg && cfg.policy.gpc.honored; }

// ---- Applying the configuration and recording decisions. ----
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
    if (P.ask && !declPage && !c.tcf) whenBody(showBanner); // where the TCF applies, tcf.js asks
  }
  whenReady(function () { reopenButton(); declarations(); });
}
// apply makes the categories in c the effective consent.
function apply(c, isDecision) {
  var next = effective(cfg.policy, c, gpc);
  var revoked = Object.keys(allowed).filter(function (s) { return allowed[s] && !next[s]; });
  var changed = JSON.stringify(next) !== JSON.stringify(allowed);
  allowed = next;
  tellVendors(cfg.policy.vendors, allowed, false, isDecision);
  if (revoked.length) revoke(revoked);
  activateAll();
  if (changed || isDecision) {
    d.dispatchEvent(new CustomEvent('consentd:change', { bubbles: true, detail: getConsent() }));
  }
  storefront();
  if (isDecision) { reopenButton(); renderChoices(); }
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

// decide records a visitor's decision: categories c, taken by action; x are the TCF module's
// fields of the record (tcString, acString, gvlVersion).
function decide(c, action, x) {
  if (!cfg) return;
  var full = effective(cfg.policy, c, gpc);
  decided = true;
  stored = { v: cfg.banner.consentVersion, id: stored && stored.id, r: stored && stored.r, c: full, a: action, t: Date.now(), p: 1, x: x };
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
  Object.assign(body, s.x);
  // Where GPP sections apply, the GPP string of this decision (gpp.js, which the loader inlined).
  if (cfg.gpp && w.__gpp && w.__gpp.consentd) body.gppString = w.__gpp.consentd(body.tcString) || undefined;
  fetch(siteURL("__CONSENTD_PUBLIC_CONSENT__"), {
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

// ---- Page API (step 5 above). ----
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
  // _tcf records the TCF module's decisions where the TCF applies (tcf.js, which takes over
  // acceptAll, rejectAll and showPreferences there and shows its own layers).
  _tcf: decide,
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

// ---- Start (steps 1 to 4 above): Consent Mode and the guard at once; the configuration, the
// loader's at once, else a cached copy at once, then a fresh one. ----
tellVendors(VENDORS, {}, true);
startGuard();
// Without a configuration the runtime fails closed: what it holds stays held (marked tags,
// cross-origin tags inserted by script) while it retries, five times, 3 s apart.
function fetchConfig(lang, keep, fallback, n) { // n: retries so far (undefined: none)
  fetch(siteURL("__CONSENTD_PUBLIC_CONFIG__") + (lang ? '?lang=' + encodeURIComponent(lang) : ''), { credentials: 'omit' })
    .then(function (r) { if (!r.ok) throw new Error('config: HTTP ' + r.status); return r.text(); })
    .then(function (t) {
      if (keep) try { localStorage.setItem(cacheKey, t); } catch (e) { /* storage unavailable */ }
      useConfig(JSON.parse(t));
    })
    .catch(function (e) {
      console.warn('consentd:', e.message);
      if (fallback) return useConfig(fallback);
      // consentd unreachable: a returning visitor's decision applies from the configuration
      // cached at the previous view, quietly (nothing shown, nothing recorded) while the runtime
      // retries; without a current decision under it, what is held stays held.
      try { if (!cfg && current(stored, cached)) useConfig(cached, true); } catch (x) { /* a bad copy */ }
      if (!(n > 4)) setTimeout(fetchConfig, 3e3, lang, keep, 0, -~n);
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
