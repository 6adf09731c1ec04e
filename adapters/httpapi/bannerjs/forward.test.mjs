// Unit tests of consent forwarding (forward.js), run by `node --test` (TestNodeUnit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forwarder, EVENT, SEGMENT_EVENT } from './forward.js';

function page(tools) {
  const calls = { track: [], mw: [], consent: [] };
  const win = {};
  if (tools.includes('segment')) {
    win.analytics = { track: (...a) => calls.track.push(a), addSourceMiddleware: (f) => calls.mw.push(f) };
  }
  if (tools.includes('rudder')) win.rudderanalytics = { consent: (o) => calls.consent.push(o) };
  return { win, calls };
}

const decision = (cats, action, at) => ({ decided: true, categories: cats, action, decidedAt: at, consentVersion: 3, gpc: false, doNotSell: false, visitorId: 'v1', recordId: 'r1' });

test('a decision reaches the dataLayer, Segment and RudderStack, once', () => {
  const { win, calls } = page(['segment', 'rudder']);
  let c = decision({ necessary: true, statistics: true, marketing: false }, 'custom', '2026-01-01T00:00:00.000Z');
  const fwd = forwarder(win, () => c);
  fwd(true);
  fwd(true); // the same decision: nothing again
  assert.equal(win.dataLayer.length, 1);
  const ev = win.dataLayer[0];
  assert.equal(ev.event, EVENT);
  assert.deepEqual(ev.consentd.categories, { necessary: true, statistics: true, marketing: false });
  assert.deepEqual(ev.consentd.granted, ['necessary', 'statistics']);
  assert.deepEqual(ev.consentd.denied, ['marketing']);
  assert.equal(ev.consentd.source, 'decision');
  assert.equal(JSON.stringify(ev).includes('v1') || JSON.stringify(ev).includes('r1'), false, 'no identifier goes to the page');
  assert.deepEqual(calls.track, [[SEGMENT_EVENT, undefined, { consent: { categoryPreferences: { necessary: true, statistics: true, marketing: false } } }]]);
  assert.deepEqual(calls.consent, [{ consentManagement: { allowedConsentIds: ['necessary', 'statistics'], deniedConsentIds: ['marketing'] } }]);
  assert.equal(calls.mw.length, 1);

  // The middleware stamps the consent of the moment: after a withdrawal, the new one.
  c = decision({ necessary: true, statistics: false, marketing: false }, 'reject_all', '2026-01-01T00:01:00.000Z');
  fwd(true);
  assert.equal(calls.mw.length, 1, 'one middleware per instance');
  const payload = { obj: { context: { consent: { other: 1 } } } };
  let passed = null;
  calls.mw[0]({ payload, next: (p) => { passed = p; } });
  assert.deepEqual(passed.obj.context.consent, { other: 1, categoryPreferences: { necessary: true, statistics: false, marketing: false } });
  assert.equal(win.dataLayer.length, 2);
  assert.deepEqual(calls.consent[1], { consentManagement: { allowedConsentIds: ['necessary'], deniedConsentIds: ['statistics', 'marketing'] } });
});

test('a stored decision: the dataLayer event says so, Segment stamps without a change event', () => {
  const { win, calls } = page(['segment', 'rudder']);
  win.dataLayer = [['consent', 'default', {}]];
  const fwd = forwarder(win, () => decision({ necessary: true, marketing: true }, 'accept_all', '2025-12-01T00:00:00.000Z'));
  fwd(false);
  assert.equal(win.dataLayer.length, 2, 'pushed onto the existing dataLayer');
  assert.equal(win.dataLayer[1].consentd.source, 'stored');
  assert.equal(calls.track.length, 0);
  assert.equal(calls.mw.length, 1);
  assert.equal(calls.consent.length, 1);
});

test('no decision, no tools: nothing forwarded, nothing fails', () => {
  const { win } = page([]);
  forwarder(win, () => ({ decided: false, categories: { necessary: true } }))(true);
  assert.equal(win.dataLayer, undefined);
  const fwd = forwarder(win, () => decision({ necessary: true }, 'reject_all', 'x'));
  fwd(true);
  assert.equal(win.dataLayer.length, 1);
});
