// The loader of the runtime's lazily loaded part (more.js, served as banner-more.js, immutable
// per version): what the first view does not show (the preferences, the blocked iframe's
// placeholder, the reopen button, the cookie declaration and the visitor's choice). It loads
// the part when one of them is needed and calls in through more(); the part reads the first
// view's internals, which boot.js provides (provide) so that this module needs none of the
// modules above it.

import { S } from './state.js';
import { timed } from './clock.js';
import { w, d, pk, api, declPage, get } from './site.js';
import { createElement } from './dom.js';
import { Public } from 'consentd:core';
import { Version } from 'consentd:build';

var M = null;         // its entry points, once loaded
var moreQueue = [];   // calls waiting for it
var moreLoading = false;
var internals = null; // what the part reads of the first view (provide)

// provide gives the loader fn, which returns the first view's internals for the part.
export function provide(fn) { internals = fn; }

// more calls the module's fn with arg: at once when it is loaded, else once it is (loading it).
function more(fn, arg) {
  if (M) return M[fn](arg);
  moreQueue.push([fn, arg]);
  loadMore();
}
// loadMore loads the module from consentd, once; after a failure, the next need retries.
export function loadMore() {
  if (M || moreLoading || !pk) return;
  moreLoading = true;
  var s = createElement.call(d, 'script');
  s.src = api + '/' + Public.more + '?v=' + Version.more;
  // done ends this load, saying why it failed when it did.
  var done = function (why) { moreLoading = false; s.remove(); if (why) console.warn('consentd: banner module ' + why); };
  s.onload = timed(function () {
    var m = w.__consentdMore;
    w.__consentdMore = undefined;
    if (!m || m.v !== Version.more) return done('version mismatch');
    done();
    M = m.f(internals());
    moreQueue.splice(0).forEach(function (c) { M[c[0]](c[1]); });
  });
  s.onerror = function () { done('unavailable'); };
  (d.head || d.documentElement).appendChild(s);
}
// The preferences open with one click whatever is loaded: the module and the declaration are
// fetched together, and the dialog opens once both are here (without the declaration's services
// when it could not be fetched).
export function showPrefs() {
  if (!S.cfg_) return;
  loadMore();
  details(function (dc) { more('prefs', dc); });
}
// The services' descriptions and cookies are not in the first view's configuration (the
// loader's): details fetches the declaration, in the configuration's language, once, when the
// preferences or a declaration first need it, and passes it to fn (null when it failed).
var decl = null;
export function details(fn) {
  decl = decl || get(Public.declaration, S.cfg_.lang);
  decl.then(fn, function (e) { console.warn('consentd:', e.message); decl = null; fn(null); });
}
// A withdrawal's first-party cookies are deleted by the module, which fetches the cookie rules
// (the loader's configuration leaves them out).
export function dropCookies(slugs) { more('dropCookies', slugs); }
// The storefront's customer-privacy API is told by the module.
export function tellStorefront() { more('storefront'); }
// A held iframe gets its placeholder once the module is here.
export function placeholder(f) { if (S.cfg_ && !f.__consentdPh) more('placeholder', f); }
// The reopen button loads the module only when it is wanted (the module removes it otherwise).
export function reopenButton() {
  if (M || (S.cfg_ && S.cfg_.banner.reopenButton && S.decided_ && !declPage)) more('reopenButton');
}
var CHOICE = '[data-consentd-declaration],[data-consentd-choice]';
export function declarations() { if (d.querySelector(CHOICE)) more('declarations'); }
// forward tells the page's tag manager and analytics libraries of a decision (forward.js): one
// taken on this page (isDecision), or the stored one once the page is parsed.
export function forward(isDecision) { if (S.decided_) more('forward', isDecision); }
export function renderChoices() { if (M || d.querySelector(CHOICE)) more('renderChoices'); }
