/*
 * consentd's IAB TCF module: the CMP API (CMP JS API v2: ping, addEventListener,
 * removeEventListener, getTCData, getVendorList), the TCF first and second layers, the TC string
 * v2.3 (tcfstring.js) stored in the euconsent-v2 cookie, and Google's Additional Consent string.
 *
 * Site-independent and immutable per version (GET /api/v1/public/tcf.js?v=…), it is loaded by
 * the __tcfapi stub (tcfstub.js), which the site's loader inlines when the TCF applies to the
 * visitor. It fetches the site's TCF configuration (GET /api/v1/public/{projectKey}/tcf: the
 * site's vendors from the Global Vendor List in the visitor's language, the CMP ID and version,
 * the texts, and core's table from TCF choices to consentd's categories and Google Consent
 * Mode), replaces the stub's __tcfapi and replays its queue. The banner runtime (banner.js)
 * hands it the decisions (window.consentd.acceptAll(), rejectAll(), showPreferences() drive the
 * TCF layers): each decision is recorded by the runtime with the TC string, the AC string and the
 * GVL version, with the categories the table derives from the purposes consented.
 */
import CSS from './tcf.css';
import { tcString, acString } from './tcfstring.js';
import { Version } from 'consentd:build';

var w = window, d = document;
var stub = w.__tcfapi;
var COOKIE = 'euconsent-v2';

var C = null;           // the site's TCF configuration
var tc = null;          // the current TC data's choices and strings (null: none yet)
var eventStatus = '';   // 'tcloaded', 'cmpuishown' or 'useractioncomplete'
var display = 'hidden'; // the UI: 'visible', 'hidden' or 'disabled'
var listeners = {}, nextListener = 1;
var record = null;      // the banner runtime's recorder of decisions (window.consentd._tcf)
var ui = null;          // {host, root, first, second} of the TCF layers' Shadow DOM

// ---- The CMP API. ----
function api(cmd, ver, cb, param) {
  if (typeof cb !== 'function') return;
  // version: 0, null or undefined means the latest (2); 1 and anything else is refused.
  if (ver != null && ver !== 0 && ver !== 2) { cb(null, false); return; }
  switch (cmd) {
    case 'ping': cb(ping(), true); return;
    case 'addEventListener': {
      var id = nextListener++;
      listeners[id] = cb;
      cb(tcData(id), true);
      return;
    }
    case 'removeEventListener': {
      var ok = !!listeners[param];
      delete listeners[param];
      cb(ok);
      return;
    }
    case 'getTCData': { // deprecated in TCF v2.2, kept for older ad scripts
      var t = tcData();
      if (Array.isArray(param)) ['consents', 'legitimateInterests', 'disclosedVendors'].forEach(function (k) {
        var all = t.vendor[k], o = {};
        param.forEach(function (v) { o[v] = !!all[v]; });
        t.vendor[k] = o;
      });
      cb(t, true);
      return;
    }
    case 'getVendorList': {
      // The list this module has: the version in use, with the site's vendors.
      var ok2 = param == null || param === 'LATEST' || +param === C.vendorListVersion;
      cb(ok2 ? vendorList() : null, ok2);
      return;
    }
  }
  cb(null, false);
}
function ping() {
  return {
    gdprApplies: true, cmpLoaded: true, cmpStatus: 'loaded', displayStatus: display, apiVersion: '2.3',
    cmpId: C.cmpId, cmpVersion: C.cmpVersion, gvlVersion: C.vendorListVersion, tcfPolicyVersion: C.tcfPolicyVersion
  };
}
function flags(ids) {
  var o = {};
  (ids || []).forEach(function (i) { o[i] = true; });
  return o;
}
function tcData(listenerId) {
  var s = tc || empty();
  var restrictions = {};
  (C.publisherRestrictions || []).forEach(function (r) {
    var m = restrictions[r.purposeId] = restrictions[r.purposeId] || {};
    r.vendorIds.forEach(function (v) { m[v] = r.restrictionType; });
  });
  return {
    tcString: s.str, tcfPolicyVersion: C.tcfPolicyVersion, cmpId: C.cmpId, cmpVersion: C.cmpVersion,
    gdprApplies: true, eventStatus: eventStatus || undefined, cmpStatus: 'loaded', listenerId: listenerId,
    isServiceSpecific: true, useNonStandardTexts: false, publisherCC: C.publisherCountryCode || 'AA',
    purposeOneTreatment: false,
    purpose: { consents: flags(s.purposes), legitimateInterests: flags(s.purposesLI) },
    vendor: { consents: flags(s.vendors), legitimateInterests: flags(s.vendorsLI), disclosedVendors: flags(s.disclosed) },
    specialFeatureOptins: flags(s.specialFeatures),
    publisher: {
      consents: flags(s.pubPurposes), legitimateInterests: flags(s.pubPurposesLI),
      customPurpose: { consents: {}, legitimateInterests: {} }, restrictions: restrictions
    },
    addtlConsent: s.ac
  };
}
function vendorList() {
  return {
    gvlSpecificationVersion: C.gvlSpecificationVersion, vendorListVersion: C.vendorListVersion,
    tcfPolicyVersion: C.tcfPolicyVersion, lastUpdated: C.lastUpdated, purposes: C.purposes,
    specialPurposes: C.specialPurposes, features: C.features, specialFeatures: C.specialFeatures,
    stacks: C.stacks, dataCategories: C.dataCategories, vendors: C.vendors
  };
}
// notify calls every listener with the current TC data.
function notify(status) {
  eventStatus = status;
  for (var id in listeners) {
    try { listeners[id](tcData(+id), true); } catch (e) { console.warn('consentd: __tcfapi listener', e); }
  }
}

// ---- Choices. ----
// What the site discloses: its vendors, the purposes and features they declare (ids ascending).
function ids(m) { return Object.keys(m || {}).map(Number).sort(function (a, b) { return a - b; }); }
function vendors() { return C.vendorIds.filter(function (v) { return C.vendors[v]; }); }
function union(key) {
  var o = {};
  vendors().forEach(function (v) { (C.vendors[v][key] || []).forEach(function (p) { o[p] = 1; }); });
  return ids(o);
}
function consentOnly(p) { return C.consentOnlyPurposes.indexOf(p) >= 0; }
// purposesShown are the purposes the site's vendors ask consent for or claim a legitimate
// interest in (flexible ones too), as core computes them (tcf.PurposesShown), the stacks
// chosen from the same; liPurposes those claimed under legitimate interest, never 1 and 3 to 6.
function purposesShown() { return (C.purposesShown || []).slice(); }
function liPurposes() { return union('legIntPurposes').filter(function (p) { return !consentOnly(p); }); }
// liVendors are the vendors with a legitimate interest to establish: a purpose under it, or
// special purposes (which need no consent).
function liVendors() {
  return vendors().filter(function (v) {
    var x = C.vendors[v];
    return (x.legIntPurposes || []).some(function (p) { return !consentOnly(p); }) || (x.specialPurposes || []).length > 0;
  });
}
// specialFeaturesShown are the special features the site asks visitors to opt in to.
function specialFeaturesShown() { return (C.specialFeatureIds || []).filter(function (f) { return C.specialFeatures[f]; }); }
function atps() { return C.googleAtpIds || []; }
// empty is the state before any choice: legitimate interests established (transparency given,
// no objection yet), no consent.
function empty() {
  return finish({ purposes: [], purposesLI: liPurposes(), vendors: [], vendorsLI: liVendors(), specialFeatures: [], atp: [] }, 1);
}
// all is the state after "accept all" (v true) or "reject all" (false): consent to everything
// shown or to nothing; legitimate interests stay established (objecting is a second-layer choice).
function all(v) {
  return {
    purposes: v ? purposesShown() : [], purposesLI: liPurposes(), vendors: v ? vendors() : [], vendorsLI: liVendors(),
    specialFeatures: v ? specialFeaturesShown() : [], atp: v ? atps() : []
  };
}
// finish encodes choices s (taken on screen 1 or 2) into the TC and AC strings.
function finish(s, screen) {
  // The publisher's own purposes (its segment) follow the visitor's consent to the purposes.
  s.pubPurposes = s.purposes.slice();
  s.pubPurposesLI = [];
  s.disclosed = vendors();
  s.policy = C.tcfPolicyVersion;
  s.atpShown = atps();
  s.str = tcString({
    created: Date.now(), cmpId: C.cmpId, cmpVersion: C.cmpVersion, screen: screen, lang: C.language.slice(0, 2),
    gvlVersion: C.vendorListVersion, policyVersion: C.tcfPolicyVersion, specialFeatures: s.specialFeatures,
    purposes: s.purposes, purposesLI: s.purposesLI, publisherCC: C.publisherCountryCode || 'AA',
    vendors: s.vendors, vendorsLI: s.vendorsLI, disclosed: s.disclosed, restrictions: C.publisherRestrictions,
    pubPurposes: s.pubPurposes, pubPurposesLI: s.pubPurposesLI, consentOnly: C.consentOnlyPurposes
  });
  s.ac = atps().length ? acString(s.atp, atps()) : '';
  return s;
}
// granted applies one of core's tables (C.signals: categories, consentMode) to choices s: an
// entry is granted when every purpose it needs is consented, and the vendor it names if any.
function granted(table, s) {
  var o = {};
  for (var k in table) {
    var n = table[k];
    o[k] = n.purposes.every(function (p) { return s.purposes.indexOf(p) >= 0; }) && (!n.vendor || s.vendors.indexOf(n.vendor) >= 0);
  }
  return o;
}
// decide makes choices s the visitor's decision: stored, recorded, told to the page.
function decide(s, action, screen) {
  tc = finish(s, screen);
  store();
  closeUI();
  // accept_all and reject_all allow or refuse every category, as consentd's own buttons do; a
  // choice in the second layer allows the categories whose purposes are all consented.
  var cats = granted(C.signals.categories, tc);
  if (action !== 'custom') for (var k in cats) cats[k] = action === 'accept_all';
  if (record) record(cats, action, { tcString: tc.str, acString: tc.ac || undefined, gvlVersion: C.vendorListVersion });
  consentMode();
  notify('useractioncomplete');
}
// consentMode sends Google Consent Mode the signals core's table derives from the TCF choices
// (Google's tags also read the TC string themselves through __tcfapi).
function consentMode() {
  var m = granted(C.signals.consentMode, tc), out = {};
  for (var k in m) out[k] = m[k] ? 'granted' : 'denied';
  var gtag = typeof w.gtag === 'function' ? w.gtag : function () { (w.dataLayer = w.dataLayer || []).push(arguments); };
  gtag('consent', 'update', out);
}

// ---- Storage: the TC string in the euconsent-v2 cookie, the choices beside it. ----
var memoKey = 'consentd:tcf:' + location.host;
function store() {
  var days = C.cookieDays, secure = location.protocol === 'https:' ? ';secure' : '';
  d.cookie = COOKIE + '=' + tc.str + ';path=/;max-age=' + days * 86400 + ';samesite=lax' + secure;
  try { localStorage.setItem(memoKey, JSON.stringify(tc)); } catch (e) { /* storage unavailable */ }
}
// restore returns the stored choices when they are still valid: same TC string in the cookie,
// same GVL policy version, the same vendors disclosed and a current decision in consentd.
function restore() {
  var m = d.cookie.match(/(?:^|;\s*)euconsent-v2=([^;]*)/), s;
  try { s = JSON.parse(localStorage.getItem(memoKey)); } catch (e) { s = null; }
  // The TC string's own TcfPolicyVersion (bits 132-137 of its core segment: its 23rd
  // character) must be the GVL's too: a string under an older policy is discarded (#45).
  if (!m || !s || s.str !== m[1] || s.policy !== C.tcfPolicyVersion ||
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(m[1].charAt(22)) !== C.tcfPolicyVersion) return null;
  if (String(s.disclosed) !== String(vendors()) || String(s.atpShown || []) !== String(atps())) return null;
  var cd = w.consentd && w.consentd.getConsent && w.consentd.getConsent();
  return cd && cd.decided ? s : null;
}

// ---- The UI: first layer, second layer. ----
function t(k, vars) {
  return String(C.texts[k] || '').replace(/\{(\w+)\}/g, function (x, v) { return vars && vars[v] != null ? vars[v] : x; });
}
function h(tag, attrs, kids) {
  var el = d.createElement(tag);
  for (var k in attrs || {}) {
    var v = attrs[k];
    if (v == null || v === false) continue;
    if (k === 'text') el.textContent = v;
    else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  (kids || []).forEach(function (c) { if (c) el.appendChild(typeof c === 'string' ? d.createTextNode(c) : c); });
  return el;
}
function mount() {
  if (ui) return ui;
  var host = d.createElement('consentd-tcf');
  host.style.setProperty('all', 'initial', 'important');
  var root = host.attachShadow({ mode: 'open' });
  if (w.CSSStyleSheet && 'adoptedStyleSheets' in Document.prototype) {
    var sh = new CSSStyleSheet();
    sh.replaceSync(CSS);
    root.adoptedStyleSheets = [sh];
  } else root.appendChild(h('style', { text: CSS }));
  var col = C.colors || {};
  [['primary', '--cd-primary'], ['background', '--cd-bg'], ['text', '--cd-text']].forEach(function (p) {
    if (col[p[0]]) host.style.setProperty(p[1], col[p[0]]);
  });
  (d.body || d.documentElement).appendChild(host);
  ui = { host: host, root: root };
  return ui;
}
function btn(cls, action, text, fn) {
  return h('button', { type: 'button', 'class': cls, 'data-action': action, text: text, onclick: fn });
}
function names(map, list) {
  return list.map(function (i) { return map[i] && map[i].name; }).filter(Boolean);
}
// firstLayer returns what the first layer lists: the stacks core chose (tcf.useStacks: each
// shown with its description in place of the purposes and special features it groups; one of
// special features only goes with them) and, one by one, what no stack covers.
function firstLayer() {
  var inStack = { p: {}, f: {} }, st = { p: [], f: [] };
  (C.firstLayerStacks || []).forEach(function (id) {
    var x = C.stacks[id];
    if (!x) return;
    (x.purposes || []).forEach(function (p) { inStack.p[p] = 1; });
    (x.specialFeatures || []).forEach(function (f) { inStack.f[f] = 1; });
    st[(x.purposes || []).length ? 'p' : 'f'].push(x);
  });
  var li = function (x) { return h('li', null, [String(x.name || '').trim(), h('span', { 'class': 'sd', text: String(x.description || '').trim() })]); };
  var one = function (map, list, seen) {
    return names(map, list.filter(function (i) { return !seen[i]; })).map(function (nm) { return h('li', { text: nm }); });
  };
  return {
    purposes: st.p.map(li).concat(one(C.purposes, purposesShown(), inStack.p)),
    features: st.f.map(li).concat(one(C.specialFeatures, specialFeaturesShown(), inStack.f)),
    stacked: st.p.length + st.f.length > 0
  };
}
function showFirst() {
  if (!C || (ui && (ui.first || ui.second))) return;
  var u = mount(), n = vendors().length + atps().length, fl = firstLayer(), cls = fl.stacked ? 'pl st' : 'pl';
  var purposeList = h('ul', { 'class': cls, 'data-list': 'purposes' }, fl.purposes);
  var sf = fl.features;
  var el = h('div', { dir: C.dir, 'class': 'cd l1', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'tcf-h', 'aria-describedby': 'tcf-b', tabindex: '-1', 'data-layer': '1' }, [
    h('h2', { id: 'tcf-h', text: t('tcfHeadline') }),
    h('div', { 'class': 'sc' }, [
      h('p', { id: 'tcf-b', text: t('tcfIntro', { count: n }) }),
      h('p', { 'class': 'sm', text: t('tcfPurposesIntro') }),
      purposeList,
      sf.length ? h('p', { 'class': 'sm', text: t('tcfSpecialFeaturesIntro') }) : null,
      sf.length ? h('ul', { 'class': cls, 'data-list': 'features' }, sf) : null,
      h('p', { 'class': 'sm', text: t('tcfLegitimateInterestNotice') }),
      h('p', { 'class': 'sm' }, [h('button', { type: 'button', 'class': 'ln', 'data-action': 'vendors', text: t('tcfVendorsLink', { count: n }), onclick: function () { showSecond('vendors'); } })])
    ]),
    h('div', { 'class': 'ac' }, [
      btn('b', 'reject', t('rejectLabel'), function () { decide(all(false), 'reject_all', 1); }),
      btn('b', 'manage', t('tcfManageLabel'), function () { showSecond(); }),
      btn('b', 'accept', t('acceptLabel'), function () { decide(all(true), 'accept_all', 1); })
    ])
  ]);
  u.root.appendChild(el);
  u.first = el;
  display = 'visible';
  setTimeout(function () { if (ui && ui.first === el) el.focus({ preventScroll: true }); });
}
// toggle is a labelled switch; its state is read back by key when the visitor saves.
function toggle(key, label, on) {
  var id = 'tcf-' + key;
  return h('label', { 'class': 'tg', 'for': id }, [
    h('span', { 'class': 'tl', text: label }),
    h('input', { type: 'checkbox', role: 'switch', id: id, 'data-key': key, checked: !!on }),
    h('span', { 'class': 'sw', 'aria-hidden': 'true' })
  ]);
}
function days(n) { return t('tcfDays', { count: n }); }
function duration(sec) {
  if (sec == null) return '';
  if (sec <= 0) return t('tcfSession');
  return days(Math.max(1, Math.round(sec / 86400)));
}
function section(id, title, kids) {
  return h('section', { 'class': 'sx', 'aria-labelledby': id }, [h('h3', { id: id, text: title })].concat(kids));
}
function item(title, kids) {
  return h('details', { 'class': 'it' }, [h('summary', { text: title })].concat(kids));
}
function descr(x) {
  return [h('p', { text: x.description || '' })].concat((x.illustrations || []).map(function (s) { return h('p', { 'class': 'il', text: s }); }));
}
function vendorDetails(v) {
  var x = C.vendors[v], ret = x.dataRetention || {}, u = (x.urls || []).filter(function (l) { return l.langId === C.language; })[0] || (x.urls || [])[0] || {};
  var rows = [];
  function row(label, value) { if (value) rows.push(h('dt', { text: label }), h('dd', { text: value })); }
  function purposeRet(list, map, retMap) {
    return names(map, list).map(function (nm, i) {
      var r = (retMap || {})[list[i]] != null ? retMap[list[i]] : ret.stdRetention;
      return r != null ? nm + ' (' + days(r) + ')' : nm;
    }).join('; ');
  }
  row(t('tcfConsentPurposes'), purposeRet(x.purposes || [], C.purposes, ret.purposes));
  row(t('tcfLegitimateInterestPurposes'), purposeRet((x.legIntPurposes || []).filter(function (p) { return !consentOnly(p); }), C.purposes, ret.purposes));
  row(t('tcfSpecialPurposes'), purposeRet(x.specialPurposes || [], C.specialPurposes, ret.specialPurposes));
  row(t('tcfFeatures'), names(C.features, x.features || []).join('; '));
  row(t('tcfSpecialFeatures'), names(C.specialFeatures, x.specialFeatures || []).join('; '));
  row(t('tcfDataCategories'), names(C.dataCategories, x.dataDeclaration || []).join('; '));
  row(t('tcfStorage'), [x.usesCookies ? t('tcfCookieMaxAge', { duration: duration(x.cookieMaxAgeSeconds) }) + (x.cookieRefresh ? ' ' + t('tcfCookieRefresh') : '') : '',
    x.usesNonCookieAccess ? t('tcfNonCookieAccess') : ''].filter(Boolean).join(' '));
  var links = [];
  if (u.privacy) links.push(h('a', { href: u.privacy, target: '_blank', rel: 'noopener', text: t('tcfPrivacyPolicy') }));
  if (u.legIntClaim) links.push(h('a', { href: u.legIntClaim, target: '_blank', rel: 'noopener', text: t('tcfLegitimateInterestClaim') }));
  if (x.deviceStorageDisclosureUrl) links.push(h('a', { href: x.deviceStorageDisclosureUrl, target: '_blank', rel: 'noopener', text: t('tcfStorageDisclosure') }));
  return [h('dl', null, rows), links.length ? h('p', { 'class': 'lk' }, links) : null];
}
function showSecond(focus) {
  if (!C) return;
  var u = mount(), s = tc || all(false), resurfaced = !u.first;
  if (u.second) { u.second.focus(); return; }
  if (u.first) { u.first.remove(); u.first = null; }
  var has = function (list, i) { return (list || []).indexOf(i) >= 0; };
  var lis = liPurposes(), lv = liVendors();
  var purposes = purposesShown().map(function (p) {
    var x = C.purposes[p] || { name: String(p) };
    return h('div', { 'class': 'ro' }, [
      item(x.name, descr(x).concat([h('p', { 'class': 'sm', text: t('tcfVendorCount', { count: vendors().filter(function (v) { var y = C.vendors[v]; return has(y.purposes, p) || has(y.legIntPurposes, p) || has(y.flexiblePurposes, p); }).length }) })])),
      h('div', { 'class': 'cl' }, [
        toggle('p' + p, t('tcfConsent'), has(s.purposes, p)),
        has(lis, p) ? toggle('pl' + p, t('tcfLegitimateInterest'), has(s.purposesLI, p)) : null
      ])
    ]);
  });
  var info = function (map, list) {
    return list.map(function (i) { var x = map[i] || { name: String(i) }; return h('div', { 'class': 'ro' }, [item(x.name, descr(x))]); });
  };
  var sfs = specialFeaturesShown().map(function (f) {
    var x = C.specialFeatures[f] || { name: String(f) };
    return h('div', { 'class': 'ro' }, [item(x.name, descr(x)), h('div', { 'class': 'cl' }, [toggle('f' + f, t('tcfOptIn'), has(s.specialFeatures, f))])]);
  });
  var vs = vendors().map(function (v) {
    var x = C.vendors[v];
    return h('div', { 'class': 'ro' }, [
      item(x.name, vendorDetails(v)),
      h('div', { 'class': 'cl' }, [
        (x.purposes || []).length || (x.flexiblePurposes || []).length ? toggle('v' + v, t('tcfConsent'), has(s.vendors, v)) : null,
        has(lv, v) ? toggle('vl' + v, t('tcfLegitimateInterest'), has(s.vendorsLI, v)) : null
      ])
    ]);
  });
  // Google's providers by the name and policy on Google's list (C.googleAtps); by ID when the
  // server has no list.
  var ap = atps().map(function (a) {
    var x = (C.googleAtps || {})[a];
    return h('div', { 'class': 'ro' }, [
      x ? item(x.name, [x.policyUrl ? h('p', { 'class': 'lk' }, [h('a', { href: x.policyUrl, target: '_blank', rel: 'noopener', text: t('tcfPrivacyPolicy') })]) : null])
        : h('span', { 'class': 'nm', text: t('tcfGoogleProvider', { id: a }) }),
      h('div', { 'class': 'cl' }, [toggle('a' + a, t('tcfConsent'), has(s.atp, a))])]);
  });
  var body = h('div', { 'class': 'sc' }, [
    h('p', { text: t('tcfSecondIntro') }),
    section('tcf-sp', t('tcfPurposes'), purposes),
    union('specialPurposes').length ? section('tcf-ss', t('tcfSpecialPurposes'), [h('p', { 'class': 'sm', text: t('tcfSpecialPurposesNotice') })].concat(info(C.specialPurposes, union('specialPurposes')))) : null,
    union('features').length ? section('tcf-sf', t('tcfFeatures'), [h('p', { 'class': 'sm', text: t('tcfFeaturesNotice') })].concat(info(C.features, union('features')))) : null,
    sfs.length ? section('tcf-sx', t('tcfSpecialFeatures'), sfs) : null,
    section('tcf-sv', t('tcfVendors', { count: vendors().length }), vs),
    ap.length ? section('tcf-sa', t('tcfGoogleProviders'), ap) : null
  ]);
  var dlg = h('dialog', { dir: C.dir, 'class': 'cd l2', 'aria-labelledby': 'tcf-h2', 'data-layer': '2', tabindex: '-1' }, [
    h('h2', { id: 'tcf-h2', text: t('tcfSecondHeadline') }),
    body,
    h('div', { 'class': 'ac' }, [
      btn('b', 'reject', t('rejectLabel'), function () { decide(all(false), 'reject_all', 2); }),
      btn('b', 'save', t('saveLabel'), save),
      btn('b', 'accept', t('acceptLabel'), function () { decide(all(true), 'accept_all', 2); })
    ])
  ]);
  dlg.addEventListener('cancel', function (e) { if (!tc) e.preventDefault(); else closeUI(); });
  u.root.appendChild(dlg);
  u.second = dlg;
  display = 'visible';
  dlg.showModal();
  dlg.focus(); // the dialog itself, not its first switch nor its scrolling list
  if (resurfaced) notify('cmpuishown'); // the visitor brought the UI back
  if (focus === 'vendors') u.root.getElementById('tcf-sv').scrollIntoView();
  function save() {
    var on = function (prefix, list) {
      return list.filter(function (i) { var el = u.root.querySelector('[data-key="' + prefix + i + '"]'); return el && el.checked; });
    };
    var ch = {
      purposes: on('p', purposesShown()), purposesLI: on('pl', lis), vendors: on('v', vendors()), vendorsLI: on('vl', lv),
      specialFeatures: on('f', specialFeaturesShown()), atp: on('a', atps())
    };
    decide(ch, ch.purposes.length ? 'custom' : 'reject_all', 2);
  }
}
function closeUI() {
  if (!ui) return;
  if (ui.first) { ui.first.remove(); ui.first = null; }
  if (ui.second) { ui.second.close(); ui.second.remove(); ui.second = null; }
  display = tc ? 'disabled' : 'hidden';
}

// ---- Start: fetch the configuration, take over from the stub, decide whether to ask. ----
// Without its configuration the module retries, three times, 2 s apart, the stub answering
// meanwhile; then it is in error (cmpStatus 'error', every other command refused), and vendors
// must assume no consent.
function load(n) {
  (n === 0 && stub.res ? stub.res : fetch(stub.conf, { credentials: 'omit' })) // the stub's fetch first
    .then(function (r) { if (!r.ok) throw new Error('tcf config: HTTP ' + r.status); return r.json(); })
    .then(start)
    .catch(function (e) {
      console.warn('consentd:', e.message);
      if (n < 3) { setTimeout(load, 2e3, n + 1); return; }
      var q = stub() || [];
      w.__tcfapi = function (cmd, ver, cb) {
        if (typeof cb !== 'function') return;
        if (cmd === 'ping') cb({ gdprApplies: true, cmpLoaded: true, cmpStatus: 'error', displayStatus: 'hidden', apiVersion: '2.3' }, true);
        else cb(null, false);
      };
      q.forEach(function (a) { w.__tcfapi.apply(null, a); });
    });
}
// Only with the stub in place, once: another CMP's __tcfapi, or this module loaded twice, stays.
if (typeof stub === 'function' && stub.conf && !w.__consentdTCF) {
  w.__consentdTCF = Version.own;
  load(0);
}

function start(c) {
  C = c;
  var q = stub() || [];
  w.__tcfapi = api;
  tc = restore();
  // The banner runtime shows no banner of its own where the TCF applies: this module's layers
  // take the decisions, and consentd's acceptAll(), rejectAll() and showPreferences() drive them;
  // the runtime records each decision (consentd._tcf) with the TC string.
  var cd = w.consentd;
  if (cd && cd._tcf) {
    record = cd._tcf;
    cd.acceptAll = function () { decide(all(true), 'accept_all', 1); };
    cd.rejectAll = function () { decide(all(false), 'reject_all', 1); };
    cd.showPreferences = function () { showSecond(); };
  }
  // Listeners queued by the stub are called at once with the current TC data: tcloaded when a
  // valid decision is stored, otherwise cmpuishown follows once the first layer is shown.
  if (tc) { display = 'disabled'; eventStatus = 'tcloaded'; }
  q.forEach(function (a) { api.apply(null, a); });
  if (tc) { consentMode(); return; }
  var go = function () { showFirst(); notify('cmpuishown'); };
  if (d.body) go(); else d.addEventListener('DOMContentLoaded', go);
}
