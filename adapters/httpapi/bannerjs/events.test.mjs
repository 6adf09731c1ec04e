// Unit tests of the interaction events (events.js), run by `node --test` (TestNodeUnit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tracker } from './events.js';

function setup() {
  const sent = [];
  let clock = 1000;
  const t = tracker((b) => sent.push(JSON.parse(b)), () => ({ consentVersion: 2, language: 'de', variant: 'b' }), () => clock);
  return { t, sent, tick: (ms) => { clock += ms; } };
}

test('shown, then a decision: one batch with the time to decision', () => {
  const { t, sent, tick } = setup();
  t.shown();
  t.shown(); // once per page view
  tick(1500);
  t.decision('accept_all', false);
  t.decision('reject_all', false); // only the first
  t.leave(); // decided: not left
  assert.deepEqual(sent, [{ consentVersion: 2, language: 'de', variant: 'b', events: [{ type: 'shown' }, { type: 'decision', decision: 'accept_all', ms: 1500 }] }]);
});

test('left without deciding, preferences opened; Do Not Sell is its own decision', () => {
  const { t, sent } = setup();
  t.shown();
  t.prefs();
  t.leave();
  t.leave();
  assert.deepEqual(sent.map((b) => b.events), [[{ type: 'shown' }, { type: 'preferences_opened' }, { type: 'left' }]]);
  const o = setup();
  o.t.decision('custom', true);
  assert.deepEqual(o.sent[0].events, [{ type: 'decision', decision: 'do_not_sell' }]);
});

test('batches hold at most 32 events; nothing is sent without a configuration', () => {
  const { t, sent } = setup();
  for (let i = 0; i < 40; i++) t.prefs();
  t.flush();
  assert.deepEqual(sent.map((b) => b.events.length), [32, 8]);
  const none = [];
  const n = tracker((b) => none.push(b), () => null, () => 0);
  n.shown();
  n.leave();
  assert.deepEqual(none, []);
});
