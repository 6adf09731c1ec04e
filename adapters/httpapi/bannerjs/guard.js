// The runtime's guard module: what enforces the visitor's consent in the page. Consent Mode's
// and Microsoft's signals (defaults and updates); the guard that holds back scripts and iframes
// matching a blocking rule (rules.js), created by script or inserted by the parser, until their
// category is allowed; activation of held and marked elements; removal of a withdrawn
// category's cookies.

import { granted, states } from './policy.js';
import { S } from './state.js';
import { timed } from './clock.js';
import { w, d, me } from './site.js';
import { setAttr, getAttr, createElement, flushBody } from './dom.js';
import { holdFor, PENDING } from './rules.js';
import { placeholder, dropCookies } from './lazy.js';

// MARKED are the elements the page (or an edge in front of it, docs/edge.md) marks for a
// category: scripts and iframes, and the stylesheets and images only an edge holds.
var MARKED = 'script[type="text/plain"][data-category],iframe[data-src][data-category],link[data-href][data-category],img[data-src][data-category]';

// ---- The vendors' consent APIs (core.VendorConsents): Google Consent Mode, Microsoft UET,
// Microsoft Clarity, applied as data. ----
// vcall calls vendor v's API with args. While the vendor's tag has not loaded, a stand-in
// queues them: an array for a queue (UET's uetq), else a function pushing its arguments onto the
// page's queue (gtag's dataLayer) or onto its own q (Clarity's snippet does the same).
function vcall(v, args) {
  var f = w[v.call], q = v.queue;
  if (v.kind === 'queue') (f && f.push ? f : w[v.call] = []).push.apply(w[v.call], args);
  else {
    if (typeof f !== 'function') f = w[v.call] = function () { (q ? w[q] = w[q] || [] : f.q = f.q || []).push(arguments); };
    f.apply(w, args);
  }
}
var vSent = {};
// tellVendors sends each vendor's default (first, before any tag on the page runs: nothing
// granted that needs a category) or, after a decision (force) or a change of the effective
// state, its update.
export function tellVendors(vs, al, first, force) {
  vs.forEach(function (v) {
    var m = states(v.signals, al), key = JSON.stringify(m), set = granted(v.set, al);
    if (!first && key === vSent[v.vendor] && !force) return;
    vSent[v.vendor] = key;
    vcall(v, (first ? v.default : v.update).concat(first ? Object.assign(m, v.params) : m));
    for (var k in set) vcall(v, ['set', k, !set[k]]);
  });
}

var held = [];        // elements held back by a blocking rule
export var heldUnmarked = [];  // {url, service, category} of each unmarked page tag held back

// ---- Guarding script and iframe insertion. ----
// The iframe's src descriptor is read when a script first creates one (on most pages never).
var SRC = { SCRIPT: Object.getOwnPropertyDescriptor(HTMLScriptElement.prototype, 'src') };
var TYPE = Object.getOwnPropertyDescriptor(HTMLScriptElement.prototype, 'type');

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
  var desc = SRC[tag] = SRC[tag] || Object.getOwnPropertyDescriptor(HTMLIFrameElement.prototype, 'src');
  if (el.__consentd) return;
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
// startGuard guards elements created by script from now on, and watches the document for
// those the parser inserts.
export function startGuard() {
  Document.prototype.createElement = function () {
    var el = createElement.apply(this, arguments);
    if (el.tagName === 'SCRIPT' || el.tagName === 'IFRAME') guard(el);
    return el;
  };
  new MutationObserver(timed(function (recs) {
    recs.forEach(function (rec) { rec.addedNodes.forEach(inspect); });
    flushBody();
  })).observe(d.documentElement, { childList: true, subtree: true });
}
// Parser-inserted elements and those built by innerHTML or cloneNode are caught here, before a
// parser-inserted script runs.
function inspect(el) {
  if (el.nodeType !== 1 || el === me) return;
  if (held.indexOf(el) >= 0) { activateSoon(); return; }
  if (el.tagName === 'LINK' || el.tagName === 'IMG') {
    if (el.matches(MARKED)) activateSoon();
  } else if (el.tagName === 'SCRIPT' || el.tagName === 'IFRAME') {
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
    var list = el.querySelectorAll('script,iframe,link[data-href],img[data-src]');
    for (var i = 0; i < list.length; i++) inspect(list[i]);
  }
}

// ---- Activation of allowed elements. ----
export function cats(el) { return (getAttr.call(el, 'data-category') || '').split(/[\s,]+/).filter(Boolean); }
function isAllowed(el) {
  var c = cats(el);
  return c.length > 0 && c.every(function (s) { return S.allowed_[s] === true; });
}
function activate(el) {
  if (!el.parentNode) return;
  var i = held.indexOf(el);
  if (i >= 0) held.splice(i, 1);
  var ph = el.__consentdPh;
  if (ph) { ph.remove(); el.__consentdPh = null; el.style.removeProperty('display'); }
  if (el.tagName !== 'SCRIPT') {
    // An iframe, or a stylesheet or image an edge held: its URL (and an image's srcset) back.
    [['src', 'data-src'], ['href', 'data-href'], ['srcset', 'data-srcset']].forEach(function (p) {
      if (el.hasAttribute(p[1])) { setAttr.call(el, p[0], getAttr.call(el, p[1])); el.removeAttribute(p[1]); }
    });
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
export var activateAll = timed(function () {
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
    } else if (S.cfg_) {
      if (isAllowed(el)) activate(el);
      else if (el.tagName === 'IFRAME') placeholder(el);
    }
  });
});
// revoke deletes the first-party cookies of the withdrawn categories' services (the lazily
// loaded part does, dropCookies) and re-blocks their iframes.
export function revoke(slugs) {
  dropCookies(slugs);
  d.querySelectorAll('iframe[data-category][src]').forEach(function (f) {
    if (cats(f).some(function (s) { return slugs.indexOf(s) >= 0; })) {
      setAttr.call(f, 'data-src', getAttr.call(f, 'src'));
      f.removeAttribute('src');
      placeholder(f);
    }
  });
}
