(function (w, d) {
  function load(u) { var s = d.createElement('script'); s.async = true; s.src = u; d.head.appendChild(s); }
  !function(f){if(f.fbq)return;var n=f.fbq=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};
  if(!f._fbq)f._fbq=n;n.push=n;n.loaded=!0;n.version='2.0';n.queue=[];}(w);
  w.fbq('init', '998877665544332'); w.fbq('track', 'PageView');
  load('https://connect.facebook.net/en_US/fbevents.js');
  load('https://www.googletagmanager.com/gtag/js?id=G-BANNER77');
})(window, document);
