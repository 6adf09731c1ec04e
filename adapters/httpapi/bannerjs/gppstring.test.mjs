// Unit tests of the GPP string encoder (gppstring.js), run by `node --test` (TestNodeUnit):
// the specification's Fibonacci codes and header examples, and each section's fields read back
// bit by bit. gppdecode_test.go and gpp_browser_test.go decode the API's strings with the
// IAB's decoder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fib, b64, gppString } from './gppstring.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
// bits reads a GPP base64 string back into its bits.
const bits = (s) => s.split('').map((c) => B64.indexOf(c).toString(2).padStart(6, '0')).join('');

test('Fibonacci codes (GPP Consent String Specification, "Fibonacci Encoding")', () => {
  const want = { 1: '11', 2: '011', 3: '0011', 4: '1011', 5: '00011', 6: '10011', 7: '01011', 8: '000011', 12: '101011' };
  for (const n in want) assert.equal(fib(+n), want[n], 'fib(' + n + ')');
});

test('b64 pads the bits with zeros to whole characters', () => {
  assert.equal(b64('000000'), 'A');
  assert.equal(b64('111111'), '_');
  assert.equal(b64('1'), 'g');
  assert.equal(b64('111110111111'), '-_');
});

test('the header: the specification\'s examples', () => {
  const tc = 'CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA';
  assert.equal(gppString({ sections: [{ id: 2, api: 'tcfeuv2' }] }, tc, false, false).str, 'DBABM~' + tc);
  const usp = { id: 6, api: 'uspv1', version: 1, fields: [] };
  assert.equal(gppString({ sections: [{ id: 2, api: 'tcfeuv2' }, usp] }, tc, false, false).str.split('~')[0], 'DBACNY');
});

test('no string without a section; tcfeuv2 waits for a TC string', () => {
  assert.deepEqual(gppString({ sections: [] }, '', false, false), { str: '', list: [], parsed: {} });
  assert.deepEqual(gppString({ sections: [{ id: 2, api: 'tcfeuv2' }] }, '', false, false), { str: '', list: [], parsed: {} });
});

// usnat is a section like core's GPPConfig gives one: its fields' widths, their values, and
// the values after an opt-out of sale and sharing.
const usnat = {
  id: 7, api: 'usnat', version: 1, gpcSegment: true, fields: [
    { name: 'SharingNotice', bits: 2, value: 1 },
    { name: 'SaleOptOut', bits: 2, value: 2, optOut: 1 },
    { name: 'SensitiveDataProcessing', bits: 2, count: 3, value: 0 },
    { name: 'MspaCoveredTransaction', bits: 2, value: 2 }
  ]
};

test('a section\'s fields in order, with the opt-out\'s values when the visitor opted out', () => {
  for (const out of [false, true]) {
    const r = gppString({ sections: [usnat] }, '', out, false);
    const [head, body] = r.str.split('~');
    assert.equal(head, 'DBABL', 'header: section 7');
    const [core, gpc] = body.split('.');
    const sale = out ? '01' : '10';
    assert.equal(bits(core).slice(0, 6 + 2 + 2 + 6 + 2), '000001' + '01' + sale + '000000' + '10');
    assert.equal(bits(gpc).slice(0, 3), '010', 'GPC segment: type 1, no signal');
    assert.deepEqual(r.list, [7]);
    assert.deepEqual(r.parsed.usnat, { Version: 1, SharingNotice: 1, SaleOptOut: out ? 1 : 2, SensitiveDataProcessing: [0, 0, 0],
      MspaCoveredTransaction: 2, GpcSegmentType: 1, Gpc: false });
  }
  const withGPC = gppString({ sections: [usnat] }, '', true, true);
  assert.equal(bits(withGPC.str.split('.')[1]).slice(0, 3), '011');
  assert.equal(withGPC.parsed.usnat.Gpc, true);
});

test('several sections: ids ascending in the header by their differences, strings in order', () => {
  const usca = { id: 8, api: 'usca', version: 1, fields: [{ name: 'SaleOptOut', bits: 2, value: 2, optOut: 1 }] };
  const r = gppString({ sections: [usnat, usca] }, '', false, false);
  const parts = r.str.split('~');
  assert.equal(parts.length, 3);
  // type 3, version 1, 2 ids: 7 (fib 7), then 8 as 7 + 1 (fib 1).
  assert.equal(bits(parts[0]).slice(0, 24 + 6 + 3), '000011' + '000001' + '000000000010' + '0' + fib(7) + '0' + fib(1));
  assert.deepEqual(r.list, [7, 8]);
  assert.equal(bits(parts[2]).slice(0, 8), '000001' + '10');
});

test('a section without a Version field (usmd, usin, usky, usri) starts with its first field', () => {
  const usky = { id: 26, api: 'usky', fields: [
    { name: 'MspaVersion', bits: 6, value: 1 },
    { name: 'MspaCoveredTransaction', bits: 2, value: 2 },
    { name: 'SaleOptOut', bits: 2, value: 2, optOut: 1 }
  ] };
  const r = gppString({ sections: [usky] }, '', true, false);
  assert.equal(bits(r.str.split('~')[1]).slice(0, 10), '000001' + '10' + '01');
  assert.deepEqual(r.parsed.usky, { MspaVersion: 1, MspaCoveredTransaction: 2, SaleOptOut: 1 });
});
