// The banner preview's harness, run before the real runtime in the console's sandboxed frame.
// The frame has an opaque origin, so it has no cookies and no storage: document.cookie is
// kept in memory. The runtime's requests for its configuration are answered with the draft
// embedded in the page, and its consent posts are answered without being recorded. What the
// runtime drew is reported to the editor.
(function () {
  'use strict';
  var el = document.getElementById('consentd-draft');
  var draft = el ? el.textContent : '{}';
  // A runtime that takes its texts already resolved by the server (cfg.texts, for one
  // language) gets the draft's texts laid over them: the page language's translation over the
  // overrides over what the server chose.
  try {
    var c = JSON.parse(draft);
    if (c && c.banner) {
      c.texts = c.texts || {};
      var lang = (document.documentElement.lang || '').toLowerCase();
      var tr = c.banner.textTranslations || {};
      var mine = tr[lang] || tr[lang.split('-')[0]] || {};
      [c.banner.textOverrides || {}, mine].forEach(function (o) {
        Object.keys(o).forEach(function (k) { if (o[k]) c.texts[k] = o[k]; });
      });
      draft = JSON.stringify(c);
    }
  } catch (e) { /* the draft is passed as it is */ }
  var jar = {};
  try {
    Object.defineProperty(document, 'cookie', {
      configurable: true,
      get: function () {
        return Object.keys(jar).map(function (k) { return k + '=' + jar[k]; }).join('; ');
      },
      set: function (v) {
        var first = String(v).split(';')[0];
        var i = first.indexOf('=');
        if (i < 0) return;
        var name = first.slice(0, i).trim();
        if (/max-age=0|max-age=-/i.test(v)) delete jar[name]; else jar[name] = first.slice(i + 1);
      }
    });
  } catch (e) { /* the runtime copes */ }

  var realFetch = window.fetch ? window.fetch.bind(window) : null;
  window.fetch = function (input, init) {
    var url = typeof input === 'string' ? input : (input && input.url) || '';
    var path = url.replace(/^[a-z]+:\/\/[^/]+/i, '').replace(/[?#].*$/, '');
    if (/\/public\/[^/]+\/config$/.test(path)) {
      return Promise.resolve(new Response(draft, { status: 200, headers: { 'Content-Type': 'application/json' } }));
    }
    if (/\/public\/[^/]+\/consent$/.test(path)) {
      var body = {};
      try { body = JSON.parse(init && init.body || '{}'); } catch (e) { body = {}; }
      body.id = 'preview';
      return Promise.resolve(new Response(JSON.stringify(body), { status: 201, headers: { 'Content-Type': 'application/json' } }));
    }
    if (/\/public\//.test(path)) {
      return Promise.resolve(new Response('{"error":{"code":"not_found","message":"not in the preview"}}', { status: 404 }));
    }
    return realFetch ? realFetch(input, init) : Promise.reject(new Error('no fetch'));
  };
  if (navigator.sendBeacon) navigator.sendBeacon = function () { return true; };

  var tries = 0;
  function visitor() {
    var v = document.getElementById('preview-visitor');
    return v ? v.textContent : '';
  }
  function report() {
    var host = document.querySelector('consentd-ui');
    var root = host && host.shadowRoot;
    var dlg = root && root.querySelector('[data-template]');
    if (!dlg) {
      if (++tries < 60) { setTimeout(report, 100); return; }
      var cfg = {};
      try { cfg = JSON.parse(draft); } catch (e) { cfg = {}; }
      var b = cfg.banner || {};
      parent.postMessage({ type: 'consentd-preview', shown: false, template: b.template, position: b.position, visitor: visitor(),
        reason: cfg.policy && !cfg.policy.ask ? 'the default behaviour is “no banner”' : 'the runtime drew nothing' }, '*');
      return;
    }
    var h = root.querySelector('#cd-h');
    var accept = root.querySelector('[data-action="accept"]');
    parent.postMessage({
      type: 'consentd-preview', shown: true, visitor: visitor(),
      template: dlg.getAttribute('data-template'), position: dlg.getAttribute('data-position'),
      background: getComputedStyle(dlg).backgroundColor,
      acceptBackground: accept ? getComputedStyle(accept).backgroundColor : '',
      headline: h ? h.textContent : ''
    }, '*');
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', function () { setTimeout(report, 50); });
  else setTimeout(report, 50);
})();
