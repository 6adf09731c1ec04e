(function () {
  var d = document, now = Date.now();
  function exp(days) { return new Date(now + days * 864e5).toUTCString(); }
  // Matomo-style visitor cookie, 13 months, written by the site's own analytics snippet.
  d.cookie = '_pk_id.3.1fff=abc123.1700000000; expires=' + exp(395) + '; path=/; SameSite=Lax';
  // A preference cookie meant to last five years: browsers keep at most 400 days.
  d.cookie = 'theme_pref=dark; expires=' + exp(5 * 365) + '; path=/';
  // A probe, deleted at once: a browser holds nothing of it at the end.
  d.cookie = 'cookie_probe=1; path=/';
  d.cookie = 'cookie_probe=; max-age=0; path=/';
  // A session cookie.
  d.cookie = 'cart_session=c-42; path=/';
})();
