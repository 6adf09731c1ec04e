// The A/B test variant of a page view (docs/experiments.md): which variant of the site's
// running experiment the visitor sees, and laying it on the first view's configuration. The
// loader inlines it (experiment.js) only for a visitor an experiment runs for.

// pick returns the variant ([key, weight, override]) of X ({i: experiment, v: variants}) for a
// visitor whose stored decision (the consent cookie's value, parsed; null without one) names
// kept: the kept variant when it is one of X's, else one drawn with r (a number in [0, 1)) in
// the shares of the weights. Nothing is stored for it: the variant is kept only with a
// decision, in the consent cookie the decision already justifies.
export function pick(X, stored, r) {
  var kept = stored && stored.x && stored.x.variant, total = 0, i;
  for (i = 0; i < X.v.length; i++) {
    if (X.i + '_' + X.v[i][0] === kept) return X.v[i];
    total += X.v[i][1];
  }
  r *= total;
  for (i = 0; i < X.v.length; i++) {
    r -= X.v[i][1];
    if (r < 0) return X.v[i];
  }
  return X.v[X.v.length - 1];
}

// apply lays variant v of X on the configuration c: its override's banner, texts and policy
// fields over c's, and names it (c.variant for the interaction events, c.x.variant for the
// decision's record and the consent cookie).
export function apply(c, X, v) {
  var o = v[2] || {};
  for (var k in o) Object.assign(c[k] = c[k] || {}, o[k]);
  c.variant = X.i + '_' + v[0];
  c.x = { variant: c.variant };
  return c;
}

// parseCookie returns the stored decision in the cookie header value h, null without one.
export function parseCookie(h, name) {
  var m = h.match(new RegExp('(?:^|;\\s*)' + name + '=([^;]*)'));
  try { return m ? JSON.parse(decodeURIComponent(m[1])) : null; } catch (e) { return null; }
}
