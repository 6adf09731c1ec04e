/*
 * The IAB TCF CMP API stub (CMP JS API v2, "How does the CMP stub API work?"), which the
 * per-site loader inlines in front of the banner runtime only when the TCF applies to the visitor
 * (core decides: Policy.TCF), so that __tcfapi exists before any ad script runs:
 *  - __tcfapi answers 'ping' at once (cmpLoaded false, cmpStatus 'stub'; gdprApplies true, since
 *    the server inlined the stub because it does) and queues every other call; __tcfapi() with no
 *    argument returns the queue, which the TCF module (tcf.js) replays in order when it takes over;
 *  - a 'message' listener answers __tcfapiCall postMessages from nested (cross-origin) frames
 *    through whatever __tcfapi is at the time (the stub's queue, then the module's API);
 *  - an empty, hidden iframe named __tcfapiLocator tells frames that a CMP is here;
 *  - the TCF module is loaded, async, from consentd's origin, and the site's TCF configuration
 *    is fetched meanwhile, for the module to take up.
 * The stub is built once (build.go); TCFStub (tcf.go) puts the module's path (relative to the
 * loader's URL, versioned) and the site's TCF configuration path in the visitor's language in
 * MODULE and CONF (core.PublicTCFModule, core.PublicTCFConfig), per request.
 */
(function (w, d, MODULE, CONF) {
  if (typeof w.__tcfapi === 'function') return; // another CMP is on the page: it answers
  var q = [], me = d.currentScript, base = me && me.src || location.href;
  function api(cmd, ver, cb, param) {
    if (!arguments.length) return q;
    if (cmd === 'ping') {
      if (typeof cb === 'function') cb({ gdprApplies: true, cmpLoaded: false, cmpStatus: 'stub', displayStatus: 'hidden', apiVersion: '2.3' }, true);
      return;
    }
    q.push([cmd, ver, cb, param]);
  }
  api.conf = new URL(CONF, base).href;
  // The site's TCF configuration is fetched now, while the module loads (api.res: the response).
  if (w.fetch) api.res = fetch(api.conf, { credentials: 'omit' });
  w.__tcfapi = api;
  w.addEventListener('message', function (e) {
    var msg = e.data, str = typeof msg === 'string';
    if (str) {
      if (msg.indexOf('__tcfapiCall') < 0) return;
      try { msg = JSON.parse(msg); } catch (x) { return; }
    }
    var c = msg && typeof msg === 'object' && msg.__tcfapiCall;
    if (!c || typeof c !== 'object' || !e.source) return;
    w.__tcfapi(c.command, c.version, function (value, success) {
      var ret = { __tcfapiReturn: { returnValue: value, success: success, callId: c.callId } };
      try { e.source.postMessage(str ? JSON.stringify(ret) : ret, '*'); } catch (x) { /* the frame went away */ }
    }, c.parameter);
  }, false);
  (function locator() {
    if (w.frames.__tcfapiLocator) return;
    if (!d.body) { setTimeout(locator, 5); return; }
    var f = d.createElement('iframe');
    f.name = '__tcfapiLocator';
    f.hidden = true;
    f.tabIndex = -1;
    f.setAttribute('aria-hidden', 'true');
    d.body.appendChild(f);
  })();
  var s = d.createElement('script');
  s.src = new URL(MODULE, base).href;
  s.async = true;
  (d.head || d.documentElement).appendChild(s);
})(window, document, "__CONSENTD_TCF_MODULE__", "__CONSENTD_TCF_CONF__");
