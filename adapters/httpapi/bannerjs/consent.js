// The runtime's consent module: the visitor's decision (kept in a first-party cookie), making
// it the effective consent (policy.js) and telling the vendors, the guard, the page and the
// storefront, and recording it with consentd.

import { effective, dontSell } from './policy.js';
import { S } from './state.js';
import { w, d, COOKIE, declPage, gpc, get } from './site.js';
import { tellVendors, revoke, activateAll } from './guard.js';
import { reopenButton, renderChoices, tellStorefront, forward } from './lazy.js';
import { VENDORS, Public } from 'consentd:core';
import { Version } from 'consentd:build';

// ---- Stored decision. ----
// The decision {v: consentVersion, id: visitorId, r: recordId, c: categories, a: action,
// t: time, p: 1 while not yet recorded, k: its idempotency key} is kept in a first-party cookie; on the declaration
// page it comes in the link's fragment (#consentd=...) from the site's runtime.
function parseStored(raw) {
  try {
    var v = JSON.parse(decodeURIComponent(raw));
    return v && typeof v.c === 'object' && v.c ? v : null;
  } catch (e) { return null; }
}
export function readCookie() {
  var m = declPage ? /#consentd=([^&]*)/.exec(location.hash) : d.cookie.match(new RegExp('(?:^|;\\s*)' + COOKIE + '=([^;]*)'));
  return m ? parseStored(m[1]) : null;
}
// cookieDomain is the configured domain of the consent cookie when this page is on it.
function cookieDomain() {
  var dom = S.cfg_ && S.cfg_.banner.cookieDomain, h = location.hostname;
  return dom && (h === dom || h.slice(-dom.length - 1) === '.' + dom) ? dom : '';
}
function writeCookie(v) {
  var enc = encodeURIComponent(JSON.stringify(v));
  if (declPage) { history.replaceState(null, '', '#consentd=' + enc); return; }
  // A refusal lasts policy.reask days (the banner's reaskAfterRejectDays for this visitor,
  // core/banner/reask.go), any other decision cookieExpirationDays. Only decide and post,
  // under a configuration, write the cookie.
  // (the loader's configuration leaves reask out where it is cookieExpirationDays). It lives
  // from when it was taken (t): the answer to its post, maybe on a later view, rewrites the
  // cookie with what is left of that life, not a new one.
  var days = v.a == 'reject_all' && S.cfg_.policy.reask || S.cfg_.banner.cookieExpirationDays, dom = cookieDomain();
  if (dom) d.cookie = COOKIE + '=;path=/;max-age=0'; // the host-only copy gives way to the shared one
  d.cookie = COOKIE + '=' + enc + ';path=/;max-age=' + Math.round(days * 86400 - (Date.now() - v.t) / 1e3) + ';samesite=lax' +
    (dom ? ';domain=' + dom : '') + (location.protocol === 'https:' ? ';secure' : '');
}
// current reports whether s is a current decision under the configuration c (default: the configuration).
export function current(s, c) {
  c = c || S.cfg_;
  if (!s || !c || s.v < c.banner.consentVersion) return false;
  return c.categories.every(function (k) { return typeof s.c[k.slug] === 'boolean'; });
}
// gpcOn is true when the visitor's GPC signal changes something under the policy.
export function gpcOn() { return gpc && !!S.cfg_ && S.cfg_.policy.gpc.honored; }

// apply makes the categories in c the effective consent.
export function apply(c, isDecision) {
  var next = effective(S.cfg_.policy, c, gpc);
  var revoked = Object.keys(S.allowed_).filter(function (s) { return S.allowed_[s] && !next[s]; });
  var changed = JSON.stringify(next) !== JSON.stringify(S.allowed_);
  S.allowed_ = next;
  // (the loader's configuration leaves the vendors out where they are the defaults, VENDORS)
  tellVendors(S.cfg_.policy.vendors || VENDORS, S.allowed_, false, isDecision);
  if (revoked.length) revoke(revoked);
  activateAll();
  if (changed || isDecision) {
    d.dispatchEvent(new CustomEvent('consentd:change', { bubbles: true, detail: getConsent() }));
  }
  storefront();
  if (isDecision) { reopenButton(); renderChoices(); forward(1); }
}

// storefront tells the storefront's customer-privacy API (Shopify's) of a decision, on a page
// that has one and a site that has the integration on: the lazily loaded part does.
function storefront() {
  var sf = S.cfg_ && S.cfg_.policy.storefront;
  if (S.decided_ && w.Shopify && sf && Object.keys(sf).length) tellStorefront();
}
function doNotSell() { return !!S.cfg_ && dontSell(S.cfg_.policy, S.allowed_, gpc); }

// decide records a visitor's decision: categories c, taken by action; x are the TCF module's
// fields of the record (tcString, acString, gvlVersion).
export function decide(c, action, x) {
  if (!S.cfg_) return;
  var full = effective(S.cfg_.policy, c, gpc);
  S.decided_ = true;
  // x: the TCF module's fields, else the A/B test variant shown (experiment.js's, in the
  // configuration), posted with the decision and kept with it in the cookie. No record ID (r)
  // until the server's answer names this decision's record: getConsent and the choices panel
  // never show an earlier decision's record as this one's.
  S.stored_ = { v: S.cfg_.banner.consentVersion, id: S.stored_ && S.stored_.id, c: full, a: action, t: Date.now(), p: 1, x: x || S.cfg_.x,
    // the decision's idempotency key: a random UUID (the browser's, in a blob URL, which needs
    // no secure context as crypto.randomUUID does)
    k: URL.createObjectURL(new Blob()).slice(-36) };
  writeCookie(S.stored_);
  apply(full, true);
  post(S.stored_);
}
export function post(s) {
  // language, runtime and page go into the record's snapshot of what was shown
  // (a visitorId still unknown is null or left out, as gpc when false). The key chosen with
  // the decision goes with every post of it: a post whose answer never arrived is posted again
  // on the next view, and the server answers with the record it stored instead of storing the
  // decision twice.
  var body = Object.assign({ visitorId: s.id, categories: s.c, consentVersion: s.v, action: s.a, doNotSell: doNotSell(), gpc: gpc,
    language: S.cfg_.lang, runtimeVersion: Version.own, pageUrl: location.origin + location.pathname, key: s.k }, s.x);
  // Where GPP sections apply, the GPP string of this decision (gpp.js, which the loader inlined).
  if (S.cfg_.gpp && w.__gpp && w.__gpp.consentd) body.gppString = w.__gpp.consentd(body.tcString) || undefined;
  get(Public.consent, '', {
    method: 'POST', credentials: 'omit', keepalive: true,
    headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body)
  }).then(function (rec) {
    if (S.stored_ !== s) return; // a newer decision was taken meanwhile
    s.id = rec.visitorId; // the receipt always names both
    s.r = rec.id;
    delete s.p;
    writeCookie(s);
    renderChoices();
  }).catch(function (e) { console.warn('consentd:', e.message); });
}

// ---- Page API (step 5 above). ----
export function getConsent() {
  var out = {};
  for (var k in S.allowed_) out[k] = S.allowed_[k];
  return {
    categories: out, decided: S.decided_, action: S.decided_ && S.stored_ ? S.stored_.a || null : null,
    consentVersion: S.cfg_ ? S.cfg_.banner.consentVersion : null, visitorId: (S.stored_ && S.stored_.id) || null,
    recordId: (S.decided_ && S.stored_ && S.stored_.r) || null,
    decidedAt: S.decided_ && S.stored_ && S.stored_.t ? new Date(S.stored_.t).toISOString() : null,
    gpc: gpc, doNotSell: doNotSell(), ready: !!S.cfg_
  };
}
export function all(v) {
  var c = {};
  if (S.cfg_) S.cfg_.categories.forEach(function (k) { c[k.slug] = v; });
  return c;
}
