(function () {
  var d = document, w = window;
  var mid = ['G', 'OWN', '2468AB'].join('-').replace('-OWN-', '-OWN');
  w.dataLayer = w.dataLayer || [];
  var s = d.createElement('script'); s.async = true;
  s.src = '/metrics/gtag.js?id=' + mid; d.head.appendChild(s);
})();
