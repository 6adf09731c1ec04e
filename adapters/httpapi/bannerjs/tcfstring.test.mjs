// Unit tests of the TC string encoder (tcfstring.js), run by `node --test` (TestNodeUnit):
// the known vectors of testdata/tcstring-vectors.json (which TestTCStringVectorFile checks
// with a decoder of its own), and the example of the IAB's format specification.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tcString, acString } from './tcfstring.js';

const file = JSON.parse(readFileSync(new URL('./testdata/tcstring-vectors.json', import.meta.url), 'utf8'));

for (const v of file.vectors) {
  test('vector: ' + v.name, () => {
    assert.equal(tcString(v.input), v.tc);
  });
}

test('the encoder reads only its argument: the time of day and the order of ids change nothing', () => {
  const v = file.vectors.find((x) => x.input.vendors.length > 1);
  const later = Object.assign({}, v.input, { created: v.input.created + 3600e3, vendors: v.input.vendors.slice().reverse().concat(v.input.vendors[0]) });
  assert.equal(tcString(later), v.tc);
});

// The format specification's example ("Consent string and vendor list formats v2", TC string
// examples): its core segment exactly; the disclosed vendors and publisher segments up to the
// zero bits the specification's encoder pads with (to whole base64 groups, the runtime's to
// whole bytes), which decoders ignore.
test('the specification\'s example', () => {
  const spec = 'CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.IDKQA4AAgAKAGQAygAAA.YAAAAAAAAAAA';
  const got = tcString({
    created: Date.UTC(2025, 5, 3, 9, 30), cmpId: 880, cmpVersion: 0, screen: 0, lang: 'en', gvlVersion: 48, policyVersion: 2,
    specialFeatures: [], purposes: [], purposesLI: [], publisherCC: 'DE', vendors: [1, 2, 3, 4], vendorsLI: [],
    disclosed: [1, 2, 3, 4, 5, 100, 404], restrictions: [], pubPurposes: [], pubPurposesLI: [], consentOnly: [1, 3, 4, 5, 6]
  }).split('.');
  const want = spec.split('.');
  assert.equal(got.length, 3);
  assert.equal(got[0], want[0]);
  assert.equal(got[1].replace(/A+$/, ''), want[1].replace(/A+$/, ''));
  assert.equal(got[2].replace(/A+$/, ''), want[2].replace(/A+$/, ''));
});

test('segments are base64url without padding, typed 1 (disclosed vendors) and 3 (publisher)', () => {
  for (const v of file.vectors) {
    const seg = v.tc.split('.');
    assert.equal(seg.length, 3);
    for (const s of seg) assert.match(s, /^[A-Za-z0-9_-]+$/);
    assert.equal(seg[0][0], 'C', 'version 2');
    assert.equal(seg[1][0], 'I', 'segment type 1');
    assert.match(seg[2][0], /[Y-Zab-f]/, 'segment type 3');
  }
});

test('acString: consented providers, then the disclosed ones not consented, each ascending once', () => {
  for (const a of file.ac) assert.equal(acString(a.consented, a.disclosed), a.ac);
  assert.equal(acString([], []), '2~~dv.');
  assert.equal(acString([5, 3], [3, 5]), '2~3.5~dv.');
});
