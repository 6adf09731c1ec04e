// The TC string encoder (IAB Tech Lab, "Consent string and vendor list formats v2", TCF v2.3):
// the core segment, the disclosed vendors segment (mandatory since v2.3) and the publisher TC
// segment, each base64url-encoded without padding and joined by dots. Pure: tcString(s) reads
// only its argument, so its tests run it on its own: tcfstring.test.mjs against known vectors
// (testdata/tcstring-vectors.json), tcfstring_test.go through three decoders.
//
// s: {created (ms since the epoch), cmpId, cmpVersion, screen, lang ("EN"), gvlVersion,
// policyVersion, specialFeatures, purposes, purposesLI, publisherCC ("FR"), vendors, vendorsLI,
// disclosed, restrictions: [{purposeId, restrictionType, vendorIds}], pubPurposes, pubPurposesLI,
// consentOnly (the purposes never under legitimate interest, from core)} where the sets are
// arrays of ids.

function tcBits() {
  var bits = [];
  var o = {
    // int writes v (up to 2^53) in n bits, most significant first.
    int: function (v, n) {
      for (var i = n - 1; i >= 0; i--) bits.push(Math.floor(v / Math.pow(2, i)) % 2);
      return o;
    },
    flag: function (v) { bits.push(v ? 1 : 0); return o; },
    // letters writes two letters, 6 bits each, a (or A) = 0.
    letters: function (s) {
      s = String(s || 'AA').toUpperCase();
      return o.int(s.charCodeAt(0) - 65, 6).int(s.charCodeAt(1) - 65, 6);
    },
    // set writes n bits, the i-th set when id i+1 is in ids.
    set: function (ids, n) {
      for (var i = 1; i <= n; i++) bits.push(ids.indexOf(i) >= 0 ? 1 : 0);
      return o;
    },
    // ranges writes NumEntries and the entries of the sorted ids' contiguous runs.
    ranges: function (runs) {
      o.int(runs.length, 12);
      runs.forEach(function (r) { o.flag(r[0] !== r[1]).int(r[0], 16); if (r[0] !== r[1]) o.int(r[1], 16); });
      return o;
    },
    // vendors writes a vendor section: MaxVendorId, then a bit field or ranges, the shorter.
    vendors: function (ids) {
      ids = tcSorted(ids);
      var max = ids.length ? ids[ids.length - 1] : 0, runs = tcRuns(ids), rangeBits = 12;
      runs.forEach(function (r) { rangeBits += r[0] === r[1] ? 17 : 33; });
      o.int(max, 16);
      return rangeBits < max ? o.flag(1).ranges(runs) : o.flag(0).set(ids, max);
    },
    // done pads to whole bytes and returns the base64url encoding, without padding.
    done: function () {
      while (bits.length % 8) bits.push(0);
      var bin = '';
      for (var i = 0; i < bits.length; i += 8) {
        var b = 0;
        for (var j = 0; j < 8; j++) b = b * 2 + bits[i + j];
        bin += String.fromCharCode(b);
      }
      return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    }
  };
  return o;
}
function tcSorted(ids) {
  var seen = {};
  return ids.filter(function (i) { return i > 0 && !seen[i] && (seen[i] = 1); }).sort(function (a, b) { return a - b; });
}
function tcRuns(ids) {
  var runs = [];
  ids.forEach(function (i) {
    var r = runs[runs.length - 1];
    if (r && r[1] === i - 1) r[1] = i;
    else runs.push([i, i]);
  });
  return runs;
}
// tcDay is the day-level timestamp, in deciseconds, that Created and LastUpdated both carry.
function tcDay(ms) {
  var t = new Date(ms);
  return Math.round(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate()) / 100);
}
export function tcString(s) {
  var day = tcDay(s.created);
  var li = function (ps) { return ps.filter(function (p) { return s.consentOnly.indexOf(p) < 0; }); };
  var core = tcBits().int(2, 6).int(day, 36).int(day, 36).int(s.cmpId, 12).int(s.cmpVersion, 12)
    .int(s.screen || 0, 6).letters(s.lang).int(s.gvlVersion, 12).int(s.policyVersion, 6)
    .flag(1) // IsServiceSpecific: always 1
    .flag(0) // UseNonStandardTexts: the IAB's texts and translations
    .set(s.specialFeatures, 12).set(s.purposes, 24)
    // Legitimate interest is never established for the purposes that rest on consent only
    // (core.ConsentOnlyPurposes: 1 and 3 to 6 since TCF v2.2), in either segment.
    .set(li(s.purposesLI), 24)
    .flag(0) // PurposeOneTreatment: purpose 1 is disclosed
    .letters(s.publisherCC)
    .vendors(s.vendors).vendors(s.vendorsLI);
  var rs = (s.restrictions || []).filter(function (r) { return r.vendorIds && r.vendorIds.length; });
  core.int(rs.length, 12);
  rs.forEach(function (r) { core.int(r.purposeId, 6).int(r.restrictionType, 2).ranges(tcRuns(tcSorted(r.vendorIds))); });
  var disclosed = tcBits().int(1, 3).vendors(s.disclosed);
  var pub = tcBits().int(3, 3).set(s.pubPurposes, 24)
    .set(li(s.pubPurposesLI), 24).int(0, 6);
  return core.done() + '.' + disclosed.done() + '.' + pub.done();
}
// acString is Google's Additional Consent string v2: "2~" the consented providers' ids, then
// "~dv." the ids of the providers disclosed but not consented, each list ascending, dot-separated.
export function acString(consented, disclosed) {
  var c = tcSorted(consented);
  return '2~' + c.join('.') + '~dv.' + tcSorted(disclosed).filter(function (i) { return c.indexOf(i) < 0; }).join('.');
}
