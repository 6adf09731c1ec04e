// The site's "delay third-party scripts" loader, unmarked and outside the site's blocking
// rules (site-wide blocking is off): analytics two seconds after load.
(function (w, d) {
  w.dataLayer = w.dataLayer || [];
  function gtag() { w.dataLayer.push(arguments); }
  gtag('js', new Date()); gtag('config', 'G-VERIFY01');
  w.addEventListener('load', function () {
    setTimeout(function () {
      var s = d.createElement('script'); s.async = true; s.src = 'https://www.googletagmanager.com/gtag/js?id=G-VERIFY01'; d.head.appendChild(s);
    }, 2000);
  });
})(window, document);
