// The shop's kiosk mode declines on the visitor's behalf once the page has loaded, so the
// runtime posts a decision to consentd's host.
window.addEventListener('load', function () {
  if (window.consentd) window.consentd.rejectAll();
});
