// The runtime's policy module: applies the decision the server made for this visitor
// (core.DecidePolicy, sent as the configuration's policy), recomputing none of it. Pure: every
// function reads only its arguments, so its tests run it on its own: policy.test.mjs, and
// policy_test.go against core's Policy methods.

// every reports whether every category in cats is allowed in al.
export function every(cats, al) { return cats.every(function (c) { return al[c] === true; }); }
// granted maps each of signals (signal -> categories it needs) to whether al grants it.
export function granted(signals, al) {
  var o = {};
  for (var k in signals) o[k] = every(signals[k], al);
  return o;
}
// fixed is the categories whose state no decision changes: required ones on, and with a GPC
// signal (g) those it turns off.
export function fixed(P, g) {
  var o = {};
  for (var s in P.categories) if (P.categories[s].required) o[s] = true;
  if (g && P.gpc.honored) P.gpc.off.forEach(function (s) { o[s] = false; });
  return o;
}
// effective is the state of every category after a decision choosing c.
export function effective(P, c, g) {
  var o = {}, fx = fixed(P, g);
  for (var s in P.categories) o[s] = fx.hasOwnProperty(s) ? fx[s] : c[s] === true;
  return o;
}
// initial is the state of every category before the visitor decides.
export function initial(P) {
  var o = {};
  for (var s in P.categories) o[s] = P.categories[s].initial;
  return o;
}
// dontSell reports whether a visitor allowing al (with a GPC signal g or not) asks not to sell.
export function dontSell(P, al, g) {
  return (g && P.gpc.honored && P.gpc.doNotSell) || (P.doNotSellWithout.length > 0 && !every(P.doNotSellWithout, al));
}
// states is each of a vendor's signals, 'granted' or 'denied', when the categories in al are allowed.
export function states(signals, al) {
  var m = granted(signals, al);
  for (var k in m) m[k] = m[k] ? 'granted' : 'denied';
  return m;
}
