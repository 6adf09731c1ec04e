// A chat widget no library entry describes.
(function () {
  document.cookie = 'wco_uid=u-77; path=/; max-age=2592000; SameSite=Lax';
  try { localStorage.setItem('wco_state', '{"open":false}'); } catch (e) {}
})();
