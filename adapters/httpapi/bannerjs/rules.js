// The runtime's blocking rules: the pattern language of library/README.md (mirroring
// library/pattern.go; parity_test.go checks both on the same URLs), the rules compiled from the
// configuration, and the holding rule: which script or iframe URL must be held back now.
// guard.js applies it to the page's elements.

import { S } from './state.js';
import { d, pk, api } from './site.js';

// ---- Pattern language (library/README.md; mirrors library/pattern.go). ----
export function compile(raw) {
  if (typeof raw !== 'string' || !raw || raw.trim() !== raw || raw.indexOf('://') >= 0) return null;
  var s = raw, param = '', pre = '';
  var qi = s.indexOf('?');
  if (qi >= 0) {
    var q = s.slice(qi + 1), eq = q.indexOf('=');
    s = s.slice(0, qi);
    if (eq <= 0) return null;
    param = q.slice(0, eq);
    pre = q.slice(eq + 1);
    if (!pre || /[&=?]/.test(pre)) return null;
  }
  var si = s.indexOf('/');
  var host = (si < 0 ? s : s.slice(0, si)).toLowerCase();
  var path = si < 0 ? '' : '/' + s.slice(si + 1);
  if (path === '/') path = '';
  var sub = host.slice(0, 2) === '*.';
  if (sub) host = host.slice(2);
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(host) || /[# \t\n]/.test(raw)) return null;
  var glob = null;
  if (path.indexOf('*') >= 0) {
    glob = globRegExp(path);
    if (!glob) return null;
  }
  return { host: host, sub: sub, path: path, glob: glob, param: param, pre: pre };
}
// globRegExp translates Go's path.Match syntax (*, ?, [class], \escape) to an anchored RegExp.
function globRegExp(g) {
  var r = '^', i = 0, esc = function (c) { return c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'); };
  while (i < g.length) {
    var c = g[i++];
    if (c === '*') r += '[^/]*';
    else if (c === '?') r += '[^/]';
    else if (c === '\\') { if (i >= g.length) return null; r += esc(g[i++]); }
    else if (c === '[') {
      var cls = '[';
      if (g[i] === '^') { cls += '^'; i++; }
      var n = 0;
      for (;;) {
        if (i >= g.length) return null;
        var k = g[i++];
        if (k === ']' && n > 0) break;
        if (k === '\\') { if (i >= g.length) return null; k = g[i++]; }
        if (k === '-' && n > 0 && g[i] !== ']') { cls += '-'; continue; }
        cls += esc(k);
        n++;
      }
      r += cls + ']';
    } else r += esc(c);
  }
  try { return new RegExp(r + '$'); } catch (e) { return null; }
}
// matches reports whether pattern p matches the URL u, whose host is h (lower case: ruleFor
// reads it once for all the patterns).
export function matches(p, u, h) {
  if (h !== p.host && !(p.sub && h.length > p.host.length &&
      h.slice(-p.host.length - 1) === '.' + p.host)) return false;
  var path = u.pathname || '/';
  if (p.path && (p.glob ? !p.glob.test(path) : path.indexOf(p.path) !== 0)) return false;
  if (!p.param) return true;
  var pairs = u.search.slice(1).split('&');
  for (var i = 0; i < pairs.length; i++) {
    if (!pairs[i] || pairs[i].indexOf(';') >= 0) continue;
    var eq = pairs[i].indexOf('=');
    var k = eq < 0 ? pairs[i] : pairs[i].slice(0, eq), v = eq < 0 ? '' : pairs[i].slice(eq + 1);
    try {
      k = decodeURIComponent(k.replace(/\+/g, ' '));
      v = decodeURIComponent(v.replace(/\+/g, ' '));
    } catch (e) { continue; }
    if (k === p.param && v.indexOf(p.pre) === 0) return true;
  }
  return false;
}
// compileRules compiles the blocking rules br; a pattern on one of the hosts unheld (or their
// subdomains) never holds anything. A rule is {serviceSlug, categorySlug, patterns} (GET
// /config) or, in the loader's configuration, [serviceSlug, categorySlug, 'patterns joined by
// a space'] (core's FirstViewRules).
export function compileRules(br, unheld) {
  var out = [];
  ((br && br.rules) || []).forEach(function (r) {
    if (Array.isArray(r)) r = { serviceSlug: r[0], categorySlug: r[1], patterns: r[2] ? r[2].split(' ') : [] };
    (r.patterns || []).forEach(function (raw) {
      var p = compile(raw);
      if (!p) return;
      p.svc = r.serviceSlug;
      p.cat = r.categorySlug;
      p.free = (unheld || []).some(function (g) { return p.host === g || p.host.slice(-g.length - 1) === '.' + g; });
      out.push(p);
    });
  });
  return out;
}
// ruleFor returns the blocking rule matching url (resolved against the page), or null.
export function ruleFor(url) {
  if (!url) return null;
  var u;
  try { u = new URL(url, d.baseURI); } catch (e) { return null; }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  var h = u.hostname.toLowerCase();
  for (var i = 0; i < S.rules_.length; i++) if (matches(S.rules_[i], u, h)) return S.rules_[i];
  return null;
}
// PENDING holds a dynamically inserted cross-origin element while no configuration is known
// yet (first visit, before the config arrives): it is re-evaluated as soon as it is.
export var PENDING = { cat: '', svc: '' };
function crossOrigin(url) {
  try {
    var o = new URL(url, d.baseURI).origin;
    return /^https?:/.test(o) && o !== location.origin && api.indexOf(o) !== 0;
  } catch (e) { return false; }
}
// holdFor returns the rule that must hold url back now, or null when it may load. dyn is true
// for elements created by script, which may be held before the configuration is known.
export function holdFor(url, dyn) {
  var c = S.cfg_ || S.cached_;
  if (!c) return dyn && pk && crossOrigin(url) ? PENDING : null;
  if (!c.blockingRules || !c.blockingRules.siteWide) return null;
  var r = ruleFor(url);
  if (!r || r.free) return null;
  return S.allowed_[r.cat] ? null : r;
}
