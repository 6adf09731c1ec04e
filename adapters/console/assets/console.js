// consentd console: progressive enhancement only; every page works without it.
(function () {
  'use strict';
  document.documentElement.classList.add('js');

  // The main navigation folds behind the Menu button on narrow screens (console.css).
  function menu() {
    var b = document.querySelector('.menu-toggle');
    var nav = b && document.getElementById(b.getAttribute('aria-controls'));
    if (!nav) return;
    b.hidden = false;
    b.addEventListener('click', function () {
      var open = b.getAttribute('aria-expanded') !== 'true';
      b.setAttribute('aria-expanded', open ? 'true' : 'false');
      nav.classList.toggle('open', open);
    });
    document.addEventListener('keydown', function (e) {
      if (e.key === 'Escape' && b.getAttribute('aria-expanded') === 'true') {
        b.setAttribute('aria-expanded', 'false');
        nav.classList.remove('open');
        b.focus();
      }
    });
  }

  // A table wider than its card scrolls inside it; keyboard users reach the scrolling region
  // (a tab stop named after the table) only where it scrolls.
  function tables() {
    var names = {};
    document.querySelectorAll('.table-wrap').forEach(function (w) {
      if (w.scrollWidth > w.clientWidth + 1) {
        w.setAttribute('tabindex', '0');
        w.setAttribute('role', 'region');
        // Named after the table's caption, its fieldset's legend or its section's heading;
        // every region's name differs.
        var t = w.querySelector('table');
        var fs = w.closest('fieldset');
        var h = w.closest('section, main').querySelector('h2, h1');
        var name = ((t && (t.getAttribute('aria-label') || (t.caption && t.caption.textContent))) ||
          (fs && fs.querySelector('legend') && fs.querySelector('legend').textContent) || (h && h.textContent) || 'Table').trim();
        names[name] = (names[name] || 0) + 1;
        if (names[name] > 1) name += ' (' + names[name] + ')';
        w.setAttribute('aria-label', name + ', table (scrolls sideways)');
      } else if (w.getAttribute('role') === 'region') {
        w.removeAttribute('tabindex');
        w.removeAttribute('role');
        w.removeAttribute('aria-label');
      }
    });
  }

  // Copy buttons: <button data-copy="ID"> copies the text of element ID.
  document.addEventListener('click', function (e) {
    var b = e.target.closest && e.target.closest('[data-copy]');
    if (!b) return;
    var src = document.getElementById(b.getAttribute('data-copy'));
    var status = document.getElementById(b.getAttribute('aria-describedby') || '');
    if (!src) return;
    var text = src.textContent;
    var done = function (ok) {
      if (status) status.textContent = ok ? 'Copied to the clipboard.' : 'Copying failed: select the snippet and copy it yourself.';
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
    } else {
      var r = document.createRange();
      r.selectNodeContents(src);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(r);
      var ok = false;
      try { ok = document.execCommand('copy'); } catch (err) { ok = false; }
      done(ok);
    }
  });

  // Banner editor: the preview follows the draft. The form is submitted into the sandboxed
  // preview frame (the "Update the preview" button's formaction and formtarget).
  function editor() {
    var form = document.querySelector('form[data-preview-form]');
    var button = document.getElementById('preview-button');
    var frame = document.getElementById('preview');
    var status = document.getElementById('preview-status');
    if (!form || !button || !frame) return;
    var timer = null;
    // leaving: the form was submitted for real (save, add or move a rule). A preview submission
    // of the same form after that would replace its navigation (a form has one planned
    // navigation), and the click would be lost: no preview is sent once the page is leaving.
    var leaving = false;
    form.addEventListener('submit', function (e) {
      if (e.submitter !== button) { leaving = true; clearTimeout(timer); }
    });
    window.addEventListener('pageshow', function (e) { if (e.persisted) leaving = false; });
    var refresh = function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        if (leaving) return;
        if (status) status.textContent = 'Updating the preview…';
        frame.removeAttribute('data-template');
        if (form.requestSubmit) form.requestSubmit(button); else button.click();
      }, 250);
    };
    var mine = function (e) { if (e.target && e.target.form === form) refresh(); };
    document.addEventListener('input', mine);
    document.addEventListener('change', mine);
    window.addEventListener('message', function (e) {
      if (e.source !== frame.contentWindow || !e.data || e.data.type !== 'consentd-preview') return;
      var d = e.data;
      frame.setAttribute('data-template', d.template || '');
      frame.setAttribute('data-position', d.position || '');
      frame.setAttribute('data-background', d.background || '');
      frame.setAttribute('data-accept-background', d.acceptBackground || '');
      frame.setAttribute('data-headline', d.headline || '');
      frame.setAttribute('data-visitor', d.visitor || '');
      if (status) {
        status.textContent = d.shown
          ? 'Preview updated: ' + (d.template || '').replace('_', ' ') + ' banner, ' + (d.position || '').replace('_', ' ') + ', “' + (d.headline || '') + '”.'
          : 'Preview updated: with these settings the banner is not shown (' + (d.reason || 'no banner') + ').';
        if (d.visitor) status.textContent += ' ' + d.visitor;
      }
    });
    refresh();
  }
  var start = function () {
    menu();
    tables();
    editor();
    var pending = null;
    window.addEventListener('resize', function () { clearTimeout(pending); pending = setTimeout(tables, 100); });
    document.addEventListener('htmx:afterSettle', tables);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
})();
