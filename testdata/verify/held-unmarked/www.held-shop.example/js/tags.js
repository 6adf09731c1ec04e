// The site's own tag loader, unmarked: it inserts the pixel at run time.
(function (w, d) {
  !function(f){if(f.fbq)return;var n=f.fbq=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};
  if(!f._fbq)f._fbq=n;n.push=n;n.loaded=!0;n.version='2.0';n.queue=[];}(w);
  w.fbq('init', '334455667788990'); w.fbq('track', 'PageView');
  var s = d.createElement('script'); s.async = true; s.src = 'https://connect.facebook.net/en_US/fbevents.js'; d.head.appendChild(s);
})(window, document);
