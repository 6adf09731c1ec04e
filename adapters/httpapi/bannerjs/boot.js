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
 * Built from ES modules, bundled into one closure by the build (build.go): state.js (the shared
 * state), site.js (the page and consentd's address), clock.js (the runtime's time), policy.js
 * (applies the server's decision), rules.js (the blocking rules), guard.js (enforcement),
 * consent.js (the visitor's decision), ui.js (the banner), lazy.js (loads the rest, more.js),
 * dom.js (shared helpers) and this one, boot.js, the entry: it applies the configuration, makes
 * the page API and starts the others.
 *
 * The UI lives in a Shadow DOM styled by a constructable stylesheet (no inline style attributes,
 * no eval), so it works under a strict Content-Security-Policy that allows this script's origin
 * in script-src and connect-src. The stylesheet (banner.css) is imported by ui.js and inlined into
 * the served file by the build (build.go); what the first
 * view does not show (the preferences, the declaration, the placeholders, the reopen button) is
 * in a second script, banner-more.js (more.js with banner-more.css), loaded when needed.
 */
import CSS from './banner.css';
import { initial, fixed } from './policy.js';
import { S } from './state.js';
import { started, timing } from './clock.js';
import { w, d, boot, pk, declPage, gpc, get, COOKIE } from './site.js';
import { h, getAttr, whenBody, whenReady } from './dom.js';
import { compileRules, ruleFor } from './rules.js';
import { tellVendors, startGuard, heldUnmarked, cats } from './guard.js';
import { readCookie, current, gpcOn, apply, decide, post, getConsent, all } from './consent.js';
import { ui, langs, t, fill, catName, mount, heading, button, buttons, policyLinks, dontSellControl,
  showBanner, closeAll, closePrefs, shadowHost, style, keepFocus } from './ui.js';
import { provide, showPrefs, details, reopenButton, declarations, forward } from './lazy.js';
import { VENDORS, Public } from 'consentd:core';
import { Version } from 'consentd:build';

var cacheKey = 'consentd:' + pk;
// useConfig makes c the configuration. quiet (the loader's configuration in a language other
// than the page's, while the right one is fetched) applies the stored decision or the defaults
// and nothing else: no banner, no recording.
function useConfig(c, quiet) {
  if (!c || !c.banner || !c.policy || !Array.isArray(c.categories)) throw new Error('config: bad shape');
  S.cfg_ = c;
  c.categories = c.categories.slice().sort(function (a, b) { return (a.sortOrder || 0) - (b.sortOrder || 0); });
  var P = c.policy, s = S.stored_;
  S.rules_ = compileRules(c.blockingRules, P.unheldHosts);
  if (quiet) {
    S.decided_ = current(s);
    apply(S.decided_ ? s.c : initial(P), false);
    return;
  }
  if (current(s)) {
    S.decided_ = true;
    apply(s.c, false);
    // A GPC signal turns categories off over a stored decision too.
    if (gpcOn() && P.gpc.off.some(function (k) { return s.c[k] !== false; })) decide(s.c, 'gpc');
    else if (s.p) post(s);
  } else if (gpcOn()) {
    decide(initial(P), 'gpc');
  } else {
    S.decided_ = false;
    apply(initial(P), false);
    if (P.ask && !declPage && !c.tcf) whenBody(showBanner); // where the TCF applies, tcf.js asks
  }
  whenReady(function () { reopenButton(); declarations(); forward(); });
}
// Without a configuration the runtime fails closed: what it holds stays held (marked tags,
// cross-origin tags inserted by script) while it retries, five times, 3 s apart.
function fetchConfig(lang, keep, fallback, n) { // n: retries so far (undefined: none)
  get(Public.config, lang)
    .then(function (c) {
      if (keep) try { localStorage.setItem(cacheKey, JSON.stringify(c)); } catch (e) { /* storage unavailable */ }
      useConfig(c);
    })
    .catch(function (e) {
      console.warn('consentd:', e.message);
      if (fallback) return useConfig(fallback);
      // consentd unreachable: a returning visitor's decision applies from the configuration
      // cached at the previous view, quietly (nothing shown, nothing recorded) while the runtime
      // retries; without a current decision under it, what is held stays held.
      try { if (!S.cfg_ && current(S.stored_, S.cached_)) useConfig(S.cached_, true); } catch (x) { /* a bad copy */ }
      if (!(n > 4)) setTimeout(fetchConfig, 3e3, lang, keep, 0, -~n);
    });
}

// ---- Page API (step 5 above): window.consentd. ----
var page = {
  version: Version.own,
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
  timing: timing
};

// internals are what the lazily loaded part (more.js) reads of the first view: functions, and
// the state through getters.
function internals() {
  return {
    h: h, t: t, fill: fill, catName: catName, mount: mount, heading: heading, button: button,
    buttons: buttons, policyLinks: policyLinks, dontSellControl: dontSellControl, gpcOn: gpcOn, fixed: fixed, decide: decide, closeAll: closeAll,
    closePrefs: closePrefs, getConsent: getConsent, ruleFor: ruleFor, cats: cats, getAttr: getAttr, details: details,
    shadowHost: shadowHost, style: style, CSS: CSS, gpc: gpc, declPage: declPage, page: page, keepFocus: keepFocus, get: get, COOKIE: COOKIE,
    get cfg() { return S.cfg_; }, get allowed() { return S.allowed_; }, get decided() { return S.decided_; },
    get stored() { return S.stored_; }, get ui() { return ui; }
  };
}

// ---- Start (steps 1 to 4 above): Consent Mode and the guard at once; the configuration, the
// loader's at once, else a cached copy at once, then a fresh one. ----
function start() {
  w.consentd = S.page_ = page;
  S.stored_ = readCookie();
  provide(internals);
  d.addEventListener('click', function (e) {
    var el = e.target && e.target.closest && e.target.closest('[data-consentd-open]');
    if (!el) return;
    e.preventDefault();
    page.showPreferences();
  });
  tellVendors(VENDORS, {}, true);
  startGuard();
  if (boot) {
    // The loader's configuration is in the browser's language as the server matched it
    // (Accept-Language). A page whose lang is another language (not merely another region of
    // it: de-AT under de) asks the server for that one, which matches it as it matches every
    // language (core's SiteView.Language: zh-TW finds zh-Hant) and answers in the browser's
    // when the site does not speak it.
    var want = langs()[0] || '';
    if (!d.documentElement.lang || want === boot.lang || want.split('-')[0] === boot.lang) useConfig(boot);
    else {
      // Enforce now, talk once that language's texts are here.
      useConfig(boot, true);
      fetchConfig(want, false, boot);
    }
  } else if (pk) {
    try {
      S.cached_ = JSON.parse(localStorage.getItem(cacheKey));
      S.rules_ = compileRules(S.cached_ && S.cached_.blockingRules);
    } catch (e) { S.cached_ = null; }
    fetchConfig(langs()[0] || '', true);
  } else console.warn('consentd: no data-project-key');
  started();
}
if (!(w.consentd && w.consentd.version)) start(); // loaded twice: the first copy stays in charge
