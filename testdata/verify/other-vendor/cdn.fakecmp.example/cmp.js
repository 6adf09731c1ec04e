// A made-up consent banner ("FakeCMP"): it shows its buttons, and loads analytics at once,
// before the visitor has chosen anything.
(function (w, d) {
  var box = d.createElement('div'); box.id = 'fakecmp-banner';
  box.innerHTML = '<p>We use cookies.</p><button id="fakecmp-accept">OK</button><button id="fakecmp-settings">Settings</button>';
  (d.body || d.documentElement).appendChild(box);
  w.dataLayer = w.dataLayer || [];
  var s = d.createElement('script'); s.async = true; s.src = 'https://www.googletagmanager.com/gtag/js?id=G-OTHER003'; d.head.appendChild(s);
})(window, document);
