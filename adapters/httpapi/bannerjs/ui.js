// The runtime's UI module: the banner, in a Shadow DOM styled by a constructable stylesheet,
// with the texts the configuration carries. The rest of what the visitor may see (the
// preferences dialog, the blocked iframe's placeholder, the reopen button, the cookie
// declaration and the visitor's choice) is in the lazily loaded part (more.js, served as
// banner-more.js), which lazy.js loads when one of them is needed.

import CSS from './banner.css';
import { S } from './state.js';
import { timed, shown } from './clock.js';
import { w, d, api } from './site.js';
import { h, createElement } from './dom.js';
import { decide, gpcOn } from './consent.js';
import { loadMore, reopenButton } from './lazy.js';

export var ui = null;        // {host, root} of the banner's Shadow DOM
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
// the page's lang, then the browser's languages, which the server matches.
export function langs() {
  var out = [];
  if (d.documentElement.lang) out.push(d.documentElement.lang);
  return out.concat(navigator.languages || [navigator.language]).map(function (l) { return String(l || '').toLowerCase(); });
}
export function t(key, vars) { return fill((S.cfg_.texts || {})[key] || '', vars); }
export function fill(s, vars) {
  return s.replace(/\{(\w+)\}/g, function (m, k) { return vars && vars[k] != null ? vars[k] : m; });
}
export function catName(k) { return k.name || k.slug; }

// ---- DOM helpers. ----
// style adds the sheet k (text) to a shadow root, once; a constructable stylesheet, parsed on
// first use and shared by every root. CSS holds banner.css's sheets: its common rules (b) and
// each template's, parsed only when that template is shown; more.js adds its own (m).
var sheets = {};
var adopt = w.CSSStyleSheet && 'adoptedStyleSheets' in Document.prototype;
export function style(root, k, text) {
  if (root['_' + k]) return;
  root['_' + k] = 1;
  if (!adopt) return root.appendChild(h('style', { text: text }));
  if (!sheets[k]) (sheets[k] = new CSSStyleSheet()).replaceSync(text);
  root.adoptedStyleSheets = root.adoptedStyleSheets.concat(sheets[k]);
}
export function shadowHost(tag) {
  var host = createElement.call(d, tag);
  var root = host.attachShadow({ mode: 'open' });
  style(root, 'b', CSS.b);
  var col = (S.cfg_ && S.cfg_.banner.colors) || {};
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
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  var l = 0.2126 * lum[0] + 0.7152 * lum[1] + 0.0722 * lum[2];
  return l > 0.4 ? '#111111' : '#ffffff';
}
export function mount() {
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
export function policyLinks() {
  var b = S.cfg_.banner, kids = [], cp = b.cookiePolicyUrl;
  // consentd's own declaration page learns the visitor's choice from the link's fragment.
  if (cp && cp.indexOf(api + '/') === 0 && S.stored_) cp = cp.replace(/#.*$/, '') + '#consentd=' + encodeURIComponent(JSON.stringify(S.stored_));
  if (b.privacyPolicyUrl) kids.push(h('a', { href: b.privacyPolicyUrl, target: '_blank', rel: 'noopener', text: t('privacyLabel') }));
  if (cp) kids.push(h('a', { href: cp, target: '_blank', rel: 'noopener', text: t('cookiePolicyLabel') }));
  return kids.length ? h('p', { 'class': 'lk' }, kids) : null;
}
export function heading(id, text) {
  var b = S.cfg_.banner;
  return h('div', { 'class': 'hd' }, [
    b.logoUrl ? h('img', { 'class': 'lg', src: b.logoUrl, alt: '' }) : null,
    h('h2', { id: id, text: text })
  ]);
}
export function button(cls, action, key, fn) {
  return h('button', { type: 'button', 'class': cls, 'data-action': action, text: t(key), onclick: fn });
}
// buttons are the dialogs' actions, reject and accept with mid between them, one code path for
// the banner and the preferences; first (the banner) leaves reject out where the policy says
// the first layer does not show it.
export function buttons(mid, first) {
  return h('div', { 'class': 'ac' }, [
    first && S.cfg_.policy.rejectOnFirstLayer === false ? null : button('no', 'reject', 'rejectLabel', function () { S.page_.rejectAll(); }),
    mid, button('ok', 'accept', 'acceptLabel', function () { S.page_.acceptAll(); })
  ]);
}
// dontSellControl is the Do Not Sell or Share control of the banner and the preferences, where
// the visitor's policy offers an opt-out of sale: it refuses the categories whose refusal is a
// request not to sell (recorded so, doNotSell), the others as they are.
export function dontSellControl() {
  return S.cfg_.policy.doNotSellLink ? h('p', { 'class': 'lk' }, [button('dn', 'do-not-sell', 'doNotSellLabel', function () {
    var c = Object.assign({}, S.allowed_);
    S.cfg_.policy.doNotSellWithout.forEach(function (s) { c[s] = false; });
    decide(c, 'custom');
    closeAll();
  })]) : null;
}

// keepFocus notes the focused element, for focus to return there when the visitor closes
// what opens now (the lazily loaded part's preferences).
export function keepFocus() { lastFocus = deepFocus(); }

// ---- The banner. ----
export var showBanner = timed(function () {
  if (!S.cfg_ || S.decided_ || (ui && (ui.banner || ui.prefs))) return;
  var b = S.cfg_.banner, u = mount();
  // The templates are banner.css's sheets (b is its common rules); core validates the value.
  var tpl = b.template !== 'b' && CSS.hasOwnProperty(b.template) ? b.template : 'floating';
  var pos = b.position || 'bottom_right';
  if (tpl === 'wide_bar') pos = pos.indexOf('top') === 0 ? 'top' : 'bottom';
  var close = h('button', {
    type: 'button', 'class': 'x', 'data-action': 'close', 'aria-label': t('closeLabel'), text: '\u00d7',
    onclick: function () {
      var cb = b.closeButtonBehavior;
      if (cb === 'accept_all') S.page_.acceptAll();
      else if (cb === 'reject_all') S.page_.rejectAll();
      else hideBanner();
    }
  });
  var kids = [close, h('div', { 'class': 'tx' }, [
    heading('cd-h', t('headline')),
    h('p', { id: 'cd-b', text: t('body') }),
    gpcOn() ? h('p', { 'class': 'gp', text: t('gpcNotice') }) : null,
    policyLinks(),
    dontSellControl()
  ]), buttons(button('pf', 'preferences', 'preferencesLabel', function () { S.page_.showPreferences(); }), 1)];
  style(u.root, tpl, CSS[tpl]);
  var attrs = { dir: S.cfg_.dir, 'class': 'cd ' + tpl + ' ' + pos, 'aria-labelledby': 'cd-h', 'aria-describedby': 'cd-b', tabindex: '-1', 'data-template': tpl, 'data-position': pos };
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
  var first = shown();
  reopenButton();
  // When the visitor brought the banner back, focus moves at once. On the first view, what
  // the banner's first frame does not need waits until the page's first paint is out: focus
  // (which lays the page out at once) and the preferences' module, which the visitor may want
  // next (it loads once the browser is idle).
  if (!first) focus();
  afterPaint(timed(function () {
    if (first) focus();
    (w.requestIdleCallback || setTimeout)(loadMore);
  }));
});
// afterPaint runs fn once the page's first paint is out: when the browser reports it, else
// (it was out before, or the browser does not report paints) after the next frame.
function afterPaint(fn) {
  try {
    if (!performance.getEntriesByType('paint').length) {
      var o = new PerformanceObserver(function () { o.disconnect(); fn(); });
      return o.observe({ type: 'paint' });
    }
  } catch (e) { /* no paint timing */ }
  requestAnimationFrame(function () { setTimeout(fn); });
}
export function hideBanner() {
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

export function closePrefs() {
  if (!ui || !ui.prefs) return;
  var reopen = ui.prefs.__reopen && !S.decided_;
  ui.prefs.remove();
  ui.prefs = null;
  if (reopen) showBanner();
  else restoreFocus();
}
export function closeAll() {
  if (!ui) return;
  if (ui.prefs) { ui.prefs.remove(); ui.prefs = null; }
  hideBanner();
  restoreFocus();
}
