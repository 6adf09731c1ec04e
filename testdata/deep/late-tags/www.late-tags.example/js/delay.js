// The site's "delay third-party scripts" loader: nothing third-party runs during the first
// paint. Analytics two seconds after load, the pixel when the browser is idle (then after a
// further moment), the heatmap on the visitor's first interaction, a chat widget after three
// seconds.
(function (w, d) {
  function add(src) { var s = d.createElement('script'); s.async = true; s.src = src; d.head.appendChild(s); }
  w.dataLayer = w.dataLayer || [];
  function gtag() { w.dataLayer.push(arguments); }
  gtag('js', new Date()); gtag('config', 'G-LATE2468');
  w.addEventListener('load', function () {
    setTimeout(function () { add('https://www.googletagmanager.com/gtag/js?id=G-LATE' + '2468'); }, 2000);
    setTimeout(function () { add('https://cdn.latechat.example/widget.js'); }, 3000);
    var idle = w.requestIdleCallback || function (f) { return setTimeout(f, 1); };
    idle(function () {
      setTimeout(function () {
        !function (f) { if (f.fbq) return; var n = f.fbq = function () { n.callMethod ? n.callMethod.apply(n, arguments) : n.queue.push(arguments); };
          if (!f._fbq) f._fbq = n; n.push = n; n.loaded = !0; n.version = '2.0'; n.queue = []; }(w);
        w.fbq('init', '556677889900112'); w.fbq('track', 'PageView');
        add('https://connect.facebook.net/en_US/fbevents.js');
      }, 1500);
    });
  });
  var started = false;
  function first() {
    if (started) return;
    started = true;
    w._hjSettings = { hjid: 2468013, hjsv: 6 };
    add('https://static.hotjar.com/c/hotjar-' + w._hjSettings.hjid + '.js?sv=' + w._hjSettings.hjsv);
  }
  ['mousemove', 'touchstart', 'scroll', 'keydown', 'wheel'].forEach(function (e) { w.addEventListener(e, first, { passive: true }); });
})(window, document);
