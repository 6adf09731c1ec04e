// The runtime's lazily loaded part (banner-more.js): what the first view does not need. The
// preferences dialog with the declaration's services and cookies, the blocked iframe's
// placeholder, the reopen button, the cookie declaration and the visitor's choice, and their
// styles (banner-more.css). The first view (lazy.js) loads it when one of them is needed, or on
// idle once the banner shows, and calls in through the functions this part returns.
//
// The part sets window.__consentdMore = {v: version, f: function (R) {...}}; the first view
// takes it once loaded, checks the version and calls f with R, its internals (boot.js), which
// returns this part's entry points. What changes (R.cfg, R.allowed, R.decided, R.stored, R.ui)
// is read through R's getters.

import MORE from './banner-more.css';
import { Version } from 'consentd:build';
import { Public, EVENTS } from 'consentd:core';
import { granted } from './policy.js';
import { tracker } from './events.js';
import { forwarder } from './forward.js';

var d = document, R, h, t, fill, catName, mount, heading, button, buttons, policyLinks, gpcOn, fixed, decide,
  closeAll, closePrefs, getConsent, ruleFor, cats, getAttr, details;

// styleMore adds this module's styles to a shadow root of the first view's.
function styleMore(root) {
  R.style(root, 'modal', R.CSS.modal); // the preferences are a dialog.cd
  R.style(root, 'm', MORE);
}
// styledHost is a shadow host styled like the banner, with this module's styles too. These
// hosts may sit in the page's flow (a placeholder, a choice), where the page's rules for their
// box (margin, float, border...) would apply: they are reset whole, as the banner's is not.
function styledHost(tag) {
  var p = R.shadowHost(tag);
  p.host.style.setProperty('all', 'initial', 'important');
  styleMore(p.root);
  return p;
}

// The loader's configuration leaves the preferences' and the placeholder's texts to the
// declaration (core's preferencesTextKeys). whole reports whether the configuration has them;
// when not (the declaration could not be fetched), it takes them from the full configuration,
// once, then calls fn (whatever came of it).
var wholeTried = false;
function whole(fn) {
  if (wholeTried || R.cfg.texts.blockedText) return true;
  wholeTried = true;
  R.get(Public.config, R.cfg.lang).then(function (c) {
    for (var k in c.texts) if (!R.cfg.texts.hasOwnProperty(k)) R.cfg.texts[k] = c.texts[k];
  }, function () {}).then(fn);
  return false;
}

// ---- Preferences dialog (R.showPreferences fetches the declaration and calls prefs). ----
// prefs shows the preferences with the services and cookies of the declaration dc (none when
// it could not be fetched).
function prefs(dc) {
  if (!dc && !whole(function () { prefs(null); })) return;
  var u = mount(), svc = {}, desc = {}, tt = texter(dc ? dc.texts : {});
  // The preferences' own texts and the categories' descriptions come with the declaration (not
  // in the loader's configuration).
  if (dc) dc.categories.forEach(function (k) { svc[k.slug] = k.services; desc[k.slug] = k.description; }), Object.assign(R.cfg.texts, dc.texts);
  var catDesc = function (k) { return desc[k.slug] || k.description || ''; };
  if (u.prefs) { u.prefs.focus(); return; }
  ev.prefs();
  styleMore(u.root);
  var reopenBanner = !!u.banner;
  if (!u.banner) R.keepFocus();
  else { u.banner.remove(); u.banner = null; }
  var now = R.decided ? R.allowed : (R.stored && R.stored.c) || R.allowed;
  var fx = fixed(R.cfg.policy, R.gpc);
  var list = h('div', { 'class': 'cs' }, R.cfg.categories.map(function (k) {
    var id = 'cd-c-' + k.slug, locked = fx.hasOwnProperty(k.slug);
    var ctl = fx[k.slug] ? h('span', { 'class': 'on', text: t('alwaysOnLabel') }) : h('label', { 'class': 'tg' }, [
      h('input', {
        type: 'checkbox', role: 'switch', id: id, 'data-category': k.slug, 'aria-labelledby': id + '-n',
        'aria-describedby': catDesc(k) ? id + '-d' : null, checked: locked ? fx[k.slug] : !!now[k.slug], disabled: locked
      }),
      h('span', { 'class': 'sw', 'aria-hidden': 'true' })
    ]);
    var svcs = svc[k.slug] || [];
    return h('div', { 'class': 'ct' }, [
      h('div', { 'class': 'rw' }, [h('span', { 'class': 'nm', id: id + '-n', text: catName(k) }), ctl]),
      catDesc(k) ? h('p', { 'class': 'ds', id: id + '-d', text: catDesc(k) }) : null,
      svcs.length ? h('details', null, [
        h('summary', { text: t('servicesLabel') + ' (' + svcs.length + ')' })
      ].concat(svcs.map(function (s) { return service(s, tt, 'sv'); }))) : null
    ]);
  }));
  var dlg = h('dialog', { dir: R.cfg.dir, 'class': 'cd pr', 'aria-labelledby': 'cd-p', 'aria-describedby': 'cd-pb', 'data-preferences': '' }, [
    h('button', { type: 'button', 'class': 'x', 'data-action': 'close', 'aria-label': t('closeLabel'), text: '\u00d7', onclick: closePrefs }),
    heading('cd-p', t('preferencesTitle')),
    h('p', { id: 'cd-pb', text: t('preferencesBody') }),
    gpcNote(),
    policyLinks(),
    R.dontSellControl(),
    list,
    buttons(button('pf', 'save', 'saveLabel', save))
  ]);
  dlg.__reopen = reopenBanner && !R.decided;
  dlg.addEventListener('cancel', function (e) { e.preventDefault(); closePrefs(); });
  u.root.appendChild(dlg);
  u.prefs = dlg;
  dlg.showModal();
  var first = dlg.querySelector('input:not([disabled])') || dlg.querySelector('.ok');
  (first || dlg).focus();
  function save() {
    var c = {};
    list.querySelectorAll('input[data-category]').forEach(function (i) { c[getAttr.call(i, 'data-category')] = i.checked; });
    decide(Object.assign({}, R.allowed, c), 'custom');
    closeAll();
  }
}
// ---- Blocked iframe placeholder. ----
// The loader's configuration names no services: the placeholder takes the service's label
// from the declaration (fetched once, with the preferences'), its slug when that failed.
function placeholder(f) {
  // (loaded after f was held: f may have been let through since)
  if (f.__consentdPh || f.__consentdPw || !R.cfg || !f.parentNode || !getAttr.call(f, 'data-src')) return;
  f.__consentdPw = 1;
  details(function (dc) {
    var draw = function () { f.__consentdPw = 0; drawPlaceholder(f, dc); };
    if (dc) Object.assign(R.cfg.texts, dc.texts);
    if (whole(draw)) draw();
  });
}
function drawPlaceholder(f, dc) {
  if (f.__consentdPh || !f.parentNode || !getAttr.call(f, 'data-src')) return;
  var slug = getAttr.call(f, 'data-consentd-service') || getAttr.call(f, 'data-service');
  if (!slug) { var r = ruleFor(getAttr.call(f, 'data-src')); slug = r && r.svc; }
  var c = cats(f), k = null, svc = null;
  R.cfg.categories.forEach(function (x) { if (c.indexOf(x.slug) >= 0 && !k) k = x; });
  (dc ? dc.categories : []).concat(R.cfg.categories).forEach(function (x) {
    (x.services || []).forEach(function (s) { if (s.slug === slug && !svc) svc = s; });
  });
  var names = c.filter(function (s) { return !R.allowed[s]; }).map(function (s) {
    var x = R.cfg.categories.filter(function (y) { return y.slug === s; })[0];
    return x ? catName(x) : s;
  });
  var p = styledHost('consentd-placeholder');
  var wd = getAttr.call(f, 'width'), ht = getAttr.call(f, 'height');
  p.host.style.setProperty('display', 'block', 'important');
  p.host.style.setProperty('width', wd ? (/^\d+$/.test(wd) ? wd + 'px' : wd) : '100%');
  p.host.style.setProperty('height', ht ? (/^\d+$/.test(ht) ? ht + 'px' : ht) : 'auto');
  var label = svc ? svc.label : (slug || (k ? catName(k) : ''));
  p.root.appendChild(h('div', { dir: R.cfg.dir, 'class': 'cd ph', role: 'group', 'aria-label': label }, [
    h('p', { text: t('blockedText', { service: label, category: names.join(', ') }) }),
    h('button', {
      type: 'button', 'class': 'ok', text: t('allowLabel', { category: names.join(', ') }),
      onclick: function () {
        var add = {};
        c.forEach(function (s) { add[s] = true; });
        decide(Object.assign({}, R.allowed, add), 'custom');
        closeAll();
      }
    })
  ]));
  f.parentNode.insertBefore(p.host, f);
  f.style.setProperty('display', 'none');
  f.__consentdPh = p.host;
}

// ---- Withdrawal: dropCookies deletes the first-party cookies of the withdrawn categories'
// services that the configuration's cookie rules name (exact names and prefixes), on this
// host, its parent domains and the configured cookie domain. ----
function dropCookies(slugs) {
  withCookieRules(function (all) {
    var cr = all.filter(function (r) { return slugs.indexOf(r.category) >= 0; });
    d.cookie.split(';').forEach(function (kv) {
      var name = kv.split('=')[0].trim();
      if (!name || name === R.COOKIE || !cr.some(function (r) {
        return r.match === 'prefix' ? name.indexOf(r.name) === 0 : name === r.name;
      })) return;
      // This host's parent domains include the configured cookie domain, when it applies here.
      var parts = location.hostname.split('.'), doms = [''];
      for (var i = 0; i < parts.length - 1; i++) doms.push(';domain=' + parts.slice(i).join('.'));
      doms.forEach(function (dm) { d.cookie = name + '=;path=/;max-age=0' + dm; });
    });
  });
}
// The first view's configuration (the loader's) leaves the cookie rules out, as only a
// withdrawal needs them: withCookieRules passes them to fn, from the configuration, else from
// the full configuration fetched once, at the first withdrawal.
var cookieRules = null;
function withCookieRules(fn) {
  if (R.cfg.cookieRules) return fn(R.cfg.cookieRules);
  cookieRules = cookieRules || R.get(Public.config, R.cfg.lang)
    .then(function (c) { return c.cookieRules || []; });
  cookieRules.then(fn, function (e) { cookieRules = null; console.warn('consentd:', e.message); });
}

// ---- Storefront: the customer-privacy API of a Shopify storefront gets the signals the
// decision grants (policy.storefront), once the API is loaded. ----
function storefront() {
  var sf = R.cfg.policy.storefront, shop = window.Shopify;
  var send = function () {
    var cp = shop.customerPrivacy;
    if (!cp || typeof cp.setTrackingConsent !== 'function') return;
    cp.setTrackingConsent(granted(sf, R.allowed), function () {});
  };
  if (shop.customerPrivacy) send();
  else if (typeof shop.loadFeatures === 'function') {
    shop.loadFeatures([{ name: 'consent-tracking-api', version: '0.1' }], function (err) { if (!err) send(); });
  }
}

// ---- Reopen button: after a decision, unless the page has its own [data-consentd-open]. ----
// honored is true where the runtime shows that the visitor's GPC signal was honoured (core's
// policy.gpc.display: a state law requiring it, California's "Opt-Out Request Honored").
function honored() { return R.gpc && R.cfg.policy.gpc.display; }
// gpcNote is the preferences' GPC notice: with honored, a status (announced to screen
// readers) that starts with the law's words.
function gpcNote() {
  if (!gpcOn()) return null;
  return honored() ? h('p', { 'class': 'gp', role: 'status', 'data-gpc-honored': '' }, [h('strong', { text: t('gpcHonored') }), ' ' + t('gpcNotice')])
    : h('p', { 'class': 'gp', text: t('gpcNotice') });
}
var reopen = null;
function reopenButton() {
  seen();
  var b = R.cfg && R.cfg.banner;
  var want = b && b.reopenButton && R.decided && !R.declPage && !(R.ui && R.ui.banner) && d.body &&
    !d.querySelector('[data-consentd-open]');
  if (!want) { if (reopen) { reopen.host.remove(); reopen = null; } return; }
  if (reopen) return;
  reopen = styledHost('consentd-reopen');
  var corner = b.reopenPosition || 'bottom_left'; // one of core.ReopenPositions
  reopen.root.appendChild(h('button', {
    type: 'button', dir: R.cfg.dir, 'class': 'cd ro ' + corner, 'data-action': 'reopen',
    // Where the visitor's GPC signal was honoured and the law wants it shown, the way back
    // says so; where the visitor may opt out of sale, it says that.
    text: t(honored() ? 'gpcHonored' : R.cfg.policy.doNotSellLink ? 'doNotSellLabel' : 'reopenLabel'),
    'aria-haspopup': 'dialog', onclick: function () { R.page.showPreferences(); }
  }));
  // ... and a status announces it to screen readers once.
  if (honored()) setTimeout(function () { if (reopen) reopen.root.appendChild(h('span', { role: 'status', 'class': 'sr', text: t('gpcHonored') })); }, 50);
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
  details(function (dc) {
    if (!dc) return;
    els.forEach(function (el) {
      el.textContent = '';
      el.appendChild(h('h3', { text: dc.texts.yourChoiceLabel }));
      el.appendChild(h('div', { 'class': 'consentd-choice', 'data-consentd-choice': '' }));
      dc.categories.forEach(function (k) { el.appendChild(declCategory(k, texter(dc.texts))); });
    });
    renderChoices();
  });
}
// texter returns a function giving the text key of tx filled with vars.
function texter(tx) { return function (key, vars) { return fill(tx[key] || '', vars); }; }
function declCategory(k, tt) {
  return h('section', { 'class': 'consentd-category' }, [
    h('h3', { text: k.name }),
    k.description ? h('p', { text: k.description }) : null
  ].concat(k.services.length ? k.services.map(function (s) { return service(s, tt, 'consentd-service'); }) :
    [h('p', { text: tt('noServicesLabel') })]));
}
// service shows a service of the declaration and its cookies, in the declaration and in the
// preferences alike (texts tt, the declaration's; class cls).
function service(s, tt, cls) {
  var kind = { localStorage: 'storageLocal', sessionStorage: 'storageSession' };
  return h('div', { 'class': cls }, [
    h('h4', { text: s.label }),
    s.description ? h('p', { text: s.description }) : null,
    s.note ? h('p', { text: s.note }) : null,
    s.privacyPolicyUrl ? h('p', null, [h('a', { href: s.privacyPolicyUrl, target: '_blank', rel: 'noopener', text: tt('privacyPolicyOfLabel', { service: s.label }) })]) : null,
    table(['cookieLabel', 'typeLabel', 'durationLabel', 'purposeLabel'], tt, s.cookies.map(function (c) {
      return [h('code', { text: c.name }), tt(kind[c.type] || 'storageCookie'), c.duration, c.description];
    }))
  ]);
}
// renderChoices shows the visitor's current choice, its date and record ID, with buttons to
// change or withdraw it, in every [data-consentd-choice] element (in a shadow root styled
// like the banner, whatever the page's styles).
// Its texts come with the declaration (not in the loader's configuration).
function renderChoices() {
  if (R.cfg) details(function (dc) { if (dc) Object.assign(R.cfg.texts, dc.texts); choices(); });
}
function choices() {
  d.querySelectorAll('[data-consentd-choice]').forEach(function (host) {
    if (!host.__cd) {
      host.__cd = styledHost('consentd-choice');
      host.textContent = '';
      host.appendChild(host.__cd.host);
    }
    var el = host.__cd.root;
    var c = getConsent(), kids = [];
    if (!c.decided) kids.push(h('p', { text: t('noChoiceYet') }));
    else {
      kids.push(h('ul', null, R.cfg.categories.map(function (k) {
        return h('li', null, [h('strong', { text: catName(k) + ': ' }), t(c.categories[k.slug] ? 'allowedLabel' : 'notAllowedLabel')]);
      })));
      if (c.decidedAt) kids.push(h('p', { text: t('consentDateLabel') + ': ' + new Date(c.decidedAt).toLocaleString(R.cfg.lang) }));
      if (c.recordId) kids.push(h('p', null, [t('consentIdLabel') + ': ', h('code', { 'data-consentd-record': '', text: c.recordId })]));
    }
    kids.push(h('div', { 'class': 'ac' }, [
      h('button', { type: 'button', 'class': 'pf', 'data-action': 'change', text: t('changeConsentLabel'), onclick: function () { R.page.showPreferences(); } }),
      c.decided ? h('button', { type: 'button', 'class': 'no', 'data-action': 'withdraw', text: t('withdrawConsentLabel'), onclick: function () { R.page.rejectAll(); } }) : null
    ]));
    el.textContent = '';
    el.appendChild(h('div', { dir: R.cfg.dir, 'class': 'cd ch' }, kids));
  });
}

// ---- Interaction events (events.js, docs/analytics.md). ----
// api is where this module came from: consentd's public API base.
var api = ((d.currentScript && d.currentScript.src) || '').replace(/[?#].*$/, '').replace(/\/[^/]*$/, ''), ev, T0;
function startEvents() {
  var P = performance;
  T0 = Date.now() - P.now(); // this page view's start, in Date.now() terms
  ev = tracker(function (b) {
    var u = api + '/' + encodeURIComponent(R.cfg.projectKey) + '/' + EVENTS;
    if (!(navigator.sendBeacon && navigator.sendBeacon(u, b))) fetch(u, { method: 'POST', body: b, keepalive: true, credentials: 'omit' }).catch(function () {});
  }, function () {
    var c = R.cfg;
    return c && c.projectKey && api ? { consentVersion: c.banner.consentVersion, language: c.lang || undefined, variant: c.variant || undefined } : null;
  }, function () { return P.now(); });
  seen();
  var s = R.stored; // a decision taken on this page before this module came
  if (R.decided && s && s.t >= T0) ev.decision(s.a, getConsent().doNotSell, s.t - T0);
  d.addEventListener('consentd:change', function (e) {
    var c = e.detail;
    if (c.decided && c.decidedAt && Date.parse(c.decidedAt) >= T0) ev.decision(c.action, c.doNotSell);
  });
  window.addEventListener('pagehide', function () { ev.leave(); });
  d.addEventListener('visibilitychange', function () { if (d.visibilityState === 'hidden') ev.flush(); });
}
// seen counts the banner shown, once its first layer was (the first view notes when).
function seen() {
  var at = R.page.timing().shown;
  if (ev && at) ev.shown(at);
}

window.__consentdMore = { v: Version.own, f: function (r) {
  R = r;
  h = R.h; t = R.t; fill = R.fill; catName = R.catName; mount = R.mount; heading = R.heading; button = R.button;
  buttons = R.buttons; policyLinks = R.policyLinks; gpcOn = R.gpcOn; fixed = R.fixed; decide = R.decide;
  closeAll = R.closeAll; closePrefs = R.closePrefs; getConsent = R.getConsent; ruleFor = R.ruleFor; cats = R.cats;
  getAttr = R.getAttr; details = R.details;
  startEvents();
  var forward = forwarder(window, getConsent);
  return { prefs: prefs, forward: forward, placeholder: placeholder, reopenButton: reopenButton, declarations: declarations, renderChoices: renderChoices,
    dropCookies: dropCookies, storefront: storefront };
} };
