// Recorded pixel library (trimmed): the first-party browser ID cookie, then the page view.
(function(){
var d = document, q = (window.fbq && window.fbq.queue) || [], id = '';
for (var i = 0; i < q.length; i++) if (q[i][0] === 'init') id = q[i][1];
d.cookie = '_fbp=fb.1.1700000000000.987654321; path=/; max-age=7776000; SameSite=Lax';
new Image().src = 'https://www.facebook.com/tr?id=' + id + '&ev=PageView&noscript=1';
})();
