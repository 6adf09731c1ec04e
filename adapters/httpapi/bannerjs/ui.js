// The runtime's UI module: the banner, the preferences dialog, the blocked iframe's
// placeholder, the reopen button, the cookie declaration and the visitor's choice, each in a
// Shadow DOM styled by constructable stylesheets; the texts the configuration carries.

var ui = null;        // {host, root} of the banner's Shadow DOM
var lastFocus = null;
// deepFocus is the focused element, inside shadow roots too (the reopen button).
function deepFocus() {
  var a = d.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a;
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
var adopt = window.CSSStyleSheet && 'adoptedStyleSheets' in Document.prototype;
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
function button(cls, action, key, fn) {
  return h('button', { type: 'button', 'class': cls, 'data-action': action, text: t(key), onclick: fn });
}
// buttons are the dialogs' actions, reject and accept with mid between them, one code path for
// the banner and the preferences.
function buttons(mid) {
  return h('div', { 'class': 'ac' }, [
    button('no', 'reject', 'rejectLabel', function () { api_.rejectAll(); }), mid,
    button('ok', 'accept', 'acceptLabel', function () { api_.acceptAll(); })
  ]);
}

// ---- The banner. ----
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
  ]), buttons(button('pf', 'preferences', 'preferencesLabel', function () { api_.showPreferences(); }))];
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
function showPrefs() { if (cfg) details(prefs); }
// prefs shows the preferences with the services and cookies of the declaration dc (none when
// it could not be fetched).
function prefs(dc) {
  var u = mount(), svc = {}, tt = texter(dc ? dc.texts : {});
  // The preferences' own texts come with the declaration (not in the loader's configuration).
  if (dc) dc.categories.forEach(function (k) { svc[k.slug] = k.services; }), Object.assign(cfg.texts, dc.texts);
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
    var svcs = svc[k.slug] || [];
    return h('div', { 'class': 'ct' }, [
      h('div', { 'class': 'rw' }, [h('span', { 'class': 'nm', id: id + '-n', text: catName(k) }), ctl]),
      catDesc(k) ? h('p', { 'class': 'ds', id: id + '-d', text: catDesc(k) }) : null,
      svcs.length ? h('details', null, [
        h('summary', { text: t('servicesLabel') + ' (' + svcs.length + ')' })
      ].concat(svcs.map(function (s) { return service(s, tt, 'sv'); }))) : null
    ]);
  }));
  var dlg = h('dialog', { 'class': 'cd pr', 'aria-labelledby': 'cd-p', 'aria-describedby': 'cd-pb', 'data-preferences': '' }, [
    h('button', { type: 'button', 'class': 'x', 'data-action': 'close', 'aria-label': t('closeLabel'), text: '\u00d7', onclick: closePrefs }),
    heading('cd-p', t('preferencesTitle')),
    h('p', { id: 'cd-pb', text: t('preferencesBody') }),
    gpcOn() ? h('p', { 'class': 'gp', text: t('gpcNotice') }) : null,
    policyLinks(),
    list,
    buttons(button('pf', 'save', 'saveLabel', save))
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
// The services' descriptions and cookies are not in the first view's configuration (the
// loader's): details fetches the declaration, in the configuration's language, once, when the
// preferences or a declaration first need it, and passes it to fn (null when it failed).
var decl = null;
function details(fn) {
  decl = decl || fetch(siteURL("__CONSENTD_PUBLIC_DECLARATION__") + '?lang=' + encodeURIComponent(cfg.lang || ''), { credentials: 'omit' })
    .then(function (r) { if (!r.ok) throw new Error('declaration: HTTP ' + r.status); return r.json(); });
  decl.then(fn, function (e) { console.warn('consentd:', e.message); decl = null; fn(null); });
}
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
