// The GPP string encoder (IAB Tech Lab, GPP Consent String Specification 1.1): the header, the
// US sections and tcfeuv2, from core's GPPConfig (G: the sections in order, each field's width
// and its value before and after an opt-out of sale and sharing) and the visitor's decision.
// Pure: gppString reads only its arguments, so gppstring.test.mjs runs it on its own, and
// gppdecode_test.go decodes what the API built on it answers.

var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
function int(v, n) { var s = v.toString(2); while (s.length < n) s = '0' + s; return s; }
// fib is the Fibonacci code of n >= 1 (GPP Consent String Specification).
export function fib(n) {
  var f = [1, 2], b = '';
  while (f[f.length - 1] + f[f.length - 2] <= n) f.push(f[f.length - 1] + f[f.length - 2]);
  for (var i = f.length - 1; i >= 0; i--) if (f[i] <= n) { b = '1' + b; n -= f[i]; } else if (b) b = '0' + b;
  return b + '1';
}
// b64 is the web-safe base64 of a bit string, padded with zeros to whole characters.
export function b64(bits) {
  while (bits.length % 6) bits += '0';
  for (var s = '', i = 0; i < bits.length; i += 6) s += B64[parseInt(bits.substr(i, 6), 2)];
  return s;
}
// section encodes s and fills p with its fields; null for tcfeuv2 without a TC string (tc) yet.
// out: the visitor opted out of sale and sharing; gpc: the visitor's GPC signal.
function section(s, p, tc, out, gpc) {
  if (s.api === 'tcfeuv2') return tc || null;
  var bits = '';
  if (s.version) { bits = int(s.version, 6); p.Version = s.version; } // usmd, usin, usky, usri have none
  s.fields.forEach(function (f) {
    var v = out && f.optOut != null ? f.optOut : f.value;
    if (f.count) {
      p[f.name] = [];
      for (var i = 0; i < f.count; i++) { bits += int(v, f.bits); p[f.name].push(v); }
    } else { bits += int(v, f.bits); p[f.name] = v; }
  });
  var enc = b64(bits);
  if (s.gpcSegment) { enc += '.' + b64('01' + (gpc ? '1' : '0')); p.GpcSegmentType = 1; p.Gpc = gpc; }
  return enc;
}
// gppString encodes the sections of G: {str: the GPP string ('' with no section), list: the
// section ids in it, parsed: each section's fields by its API name (tcfeuv2: [its string])}.
export function gppString(G, tc, out, gpc) {
  var parts = [], prev = 0, h = '', parsed = {}, list = [];
  G.sections.forEach(function (s) {
    var p = {}, e = section(s, p, tc, out, gpc);
    if (e === null) return;
    parts.push(e); list.push(s.id); parsed[s.api] = s.api === 'tcfeuv2' ? [e] : p;
    h += '0' + fib(s.id - prev); prev = s.id;
  });
  return { str: list.length ? b64(int(3, 6) + int(1, 6) + int(list.length, 12) + h) + '~' + parts.join('~') : '', list: list, parsed: parsed };
}
