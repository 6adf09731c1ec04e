// Recorded ad library (trimmed): runs the queued commands, asks for the slot's ad.
(function () {
  var slots = [];
  var pubads = { enableSingleRequest: function () {} };
  var gt = window.googletag = window.googletag || { cmd: [] };
  gt.pubads = function () { return pubads; };
  gt.defineSlot = function (path) { var s = { path: path, addService: function () { return s; } }; slots.push(s); return s; };
  gt.enableServices = function () {
    slots.forEach(function (s) { fetch('https://securepubads.g.doubleclick.net/gampad/ads?iu=' + encodeURIComponent(s.path) + '&correlator=1'); });
  };
  var q = gt.cmd; gt.cmd = { push: function (f) { f(); } }; (q || []).forEach(function (f) { f(); });
})();
