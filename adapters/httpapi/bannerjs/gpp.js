/*
 * consentd's IAB GPP CMP API (__gpp, GPP 1.1), which the per-site loader inlines in front of the
 * banner runtime only when core gives the visitor GPP sections (PublicConfig.gpp, decided by
 * core.Banner.GPPFor), so that __gpp exists before any ad script runs. It is the whole API, not a
 * stub: it encodes the GPP string (header, the US sections and tcfeuv2) from what core says
 * (G: the sections in order, each field's width and its value before and after an opt-out of sale
 * and sharing, the applicable sections) and from the visitor's decision as the runtime applies it
 * (consentd.getConsent(): doNotSell, gpc), and decides nothing (docs/gpp.md).
 *  - __gpp(command, callback, parameter, version): ping, addEventListener, removeEventListener,
 *    hasSection, getSection, getField;
 *  - a 'message' listener answers __gppCall postMessages from nested (cross-origin) frames;
 *  - an empty, hidden iframe named __gppLocator tells frames that a CMP is here;
 *  - signalStatus is 'not ready' until the runtime applied the visitor's decision or the initial
 *    state (and, with tcfeuv2, until __tcfapi gives a TC string), then 'ready'; every change goes
 *    'not ready', sectionChange, 'ready'.
 * The encoder is gppstring.js. The loader puts core's GPPConfig in G, per visitor (GPPAPI): the
 * bundle is built once, with a placeholder there.
 */
import { gppString } from './gppstring.js';

(function (w, d, G) {
  if (typeof w.__gpp === 'function') return; // another CMP is on the page: it answers
  var disp = 'hidden', ls = {}, nid = 1, tc = '', status = 'not ready', str = '', parsed = {}, list = [], out = null, gpc = false, seen = false;
  var ids = G.sections.map(function (s) { return s.id; });
  function encode() {
    var r = gppString(G, tc, out, gpc);
    str = r.str; list = r.list; parsed = r.parsed;
  }
  function ping() {
    return {
      gppVersion: '1.1', cmpStatus: 'loaded', cmpDisplayStatus: disp, signalStatus: status,
      supportedAPIs: G.sections.map(function (s) { return s.id + ':' + s.api; }), cmpId: G.cmpId,
      sectionList: list.slice(), applicableSections: G.applicableSections, gppString: str, parsedSections: parsed
    };
  }
  function fire(name, data) {
    for (var id in ls) {
      try { ls[id]({ eventName: name, listenerId: +id, data: data, pingData: ping() }, true); } catch (e) { console.warn('consentd: __gpp listener', e); }
    }
  }
  // refresh re-encodes from the runtime's decision (and TC string t, when given) and tells the
  // listeners when anything changed; it returns the GPP string.
  function refresh(t) {
    var c = w.consentd && w.consentd.getConsent && w.consentd.getConsent();
    if (!c || !c.ready) return str;
    if (t) tc = t;
    var before = str, wasReady = status === 'ready';
    out = !!c.doNotSell; gpc = !!c.gpc; seen = true;
    encode();
    var ready = G.sections.every(function (s) { return s.api !== 'tcfeuv2' || tc; });
    if (str !== before || !wasReady) {
      if (wasReady) { status = 'not ready'; fire('signalStatus', status); }
      if (str !== before) G.sections.forEach(function (s) { if (parsed[s.api]) fire('sectionChange', s.api); });
      if (ready) { status = 'ready'; fire('signalStatus', status); }
    }
    return str;
  }
  function api(cmd, cb, param) {
    var r = null, ok = true;
    switch (cmd) {
      case 'ping': r = ping(); break;
      case 'addEventListener':
        if (typeof cb !== 'function') return;
        var id = nid++;
        ls[id] = cb;
        cb({ eventName: 'listenerRegistered', listenerId: id, data: true, pingData: ping() }, true);
        return;
      case 'removeEventListener': r = param in ls; delete ls[param]; break;
      case 'hasSection': r = !!parsed[param]; break;
      case 'getSection': r = parsed[param] || null; break;
      case 'getField': {
        var k = String(param).split('.'), sec = parsed[k[0]];
        r = sec && k[1] in sec ? sec[k[1]] : null;
        break;
      }
      default: ok = false;
    }
    if (typeof cb === 'function') cb(r, ok);
  }
  // consentd is the runtime's hook: the GPP string for the decision it records (with its TC
  // string where the TCF applies), so that the record holds the string the visitor's choice made.
  api.consentd = refresh;
  w.__gpp = api;
  d.addEventListener('consentd:change', function () { refresh(); });
  // cmpDisplayStatus follows the runtime's UI, read from the page: visible while its banner,
  // its preferences or a TCF layer (a .cd element in the consentd-ui or consentd-tcf shadow
  // root) shows, hidden otherwise. The runtime itself carries nothing for it: the loader of
  // visitors without GPP stays as it was.
  var seenRoots = [], mo = w.MutationObserver && new MutationObserver(display);
  function display() {
    var now = 'hidden';
    ['consentd-ui', 'consentd-tcf'].forEach(function (tag) {
      var r = (d.querySelector(tag) || {}).shadowRoot;
      if (!r) return;
      if (seenRoots.indexOf(r) < 0) { seenRoots.push(r); mo.observe(r, { childList: true }); }
      if (r.querySelector('.cd')) now = 'visible';
    });
    if (now !== disp) { disp = now; fire('cmpDisplayStatus', disp); }
  }
  if (mo) {
    mo.observe(d.documentElement, { childList: true });
    (function body() { if (d.body) mo.observe(d.body, { childList: true }); else setTimeout(body, 5); })();
  }
  setTimeout(function () { if (!seen) refresh(); }, 0);
  if (ids.indexOf(2) >= 0 && typeof w.__tcfapi === 'function') {
    w.__tcfapi('addEventListener', 2, function (t, ok) { if (ok && t && t.tcString) refresh(t.tcString); });
  }
  w.addEventListener('message', function (e) {
    var msg = e.data, s = typeof msg === 'string';
    if (s) {
      if (msg.indexOf('__gppCall') < 0) return;
      try { msg = JSON.parse(msg); } catch (x) { return; }
    }
    var c = msg && typeof msg === 'object' && msg.__gppCall;
    if (!c || typeof c !== 'object' || !e.source) return;
    w.__gpp(c.command, function (value, success) {
      var ret = { __gppReturn: { returnValue: value, success: success, callId: c.callId } };
      try { e.source.postMessage(s ? JSON.stringify(ret) : ret, '*'); } catch (x) { /* the frame went away */ }
    }, c.parameter, c.version);
  }, false);
  (function locator() {
    if (w.frames.__gppLocator) return;
    if (!d.body) { setTimeout(locator, 5); return; }
    var f = d.createElement('iframe');
    f.name = '__gppLocator';
    f.hidden = true;
    f.tabIndex = -1;
    f.setAttribute('aria-hidden', 'true');
    d.body.appendChild(f);
  })();
})(window, document, "__CONSENTD_GPP__");
