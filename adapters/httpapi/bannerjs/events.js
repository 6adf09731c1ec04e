// The banner's interaction events (docs/analytics.md): banner shown, the first decision on this
// page view and the time it took, preferences opened, left without deciding. Part of the lazily
// loaded module (more.js), which the first view loads once the banner shows: the first view
// pays nothing for them. A batch names the banner version, the language and the experiment
// variant shown, and nothing of the visitor: no identifier, no cookie, nothing read from or
// written to the device. It goes with navigator.sendBeacon as text/plain (no CORS preflight).

// tracker returns the event queue of one page view; send(body) sends a batch (a JSON string),
// base() returns {consentVersion, language, variant} of what is shown, now() is the time in ms.
export function tracker(send, base, now) {
  var q = [], shownAt = 0, decided = false, left = false;
  var t = {
    // shown: the banner's first layer is shown (counted once per page view).
    shown: function (at) {
      if (shownAt) return;
      shownAt = at || now();
      q.push({ type: 'shown' });
    },
    // decision: the visitor's first decision on this page view (action and doNotSell as the
    // page API's getConsent says them; at, when it was taken, default now), sent at once with
    // what was queued before it.
    decision: function (action, doNotSell, at) {
      if (decided) return;
      decided = true;
      var e = { type: 'decision', decision: action === 'custom' && doNotSell ? 'do_not_sell' : action };
      if (shownAt) e.ms = Math.max(0, Math.round((at || now()) - shownAt));
      q.push(e);
      t.flush();
    },
    prefs: function () { q.push({ type: 'preferences_opened' }); },
    // leave: the page goes away; with the banner shown and no decision, the visitor left
    // without deciding.
    leave: function () {
      if (shownAt && !decided && !left) { left = true; q.push({ type: 'left' }); }
      t.flush();
    },
    flush: function () {
      while (q.length) {
        var b = base();
        if (!b) { q = []; return; }
        b.events = q.splice(0, 32);
        send(JSON.stringify(b));
      }
    }
  };
  return t;
}
