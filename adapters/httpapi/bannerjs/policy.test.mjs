// Unit tests of the policy module (policy.js), run by `node --test` (TestNodeUnit). Its
// agreement with core's Policy methods over every setting is policy_test.go's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { every, granted, fixed, effective, initial, dontSell, states } from './policy.js';

// A GDPR-like policy: essential required, statistics and marketing off until chosen; GPC turns
// marketing off and asks not to sell.
const P = {
  categories: { essential: { required: true, initial: true }, statistics: { initial: false }, marketing: { initial: false } },
  gpc: { honored: true, off: ['marketing'], doNotSell: true },
  doNotSellWithout: []
};

test('every needs all the categories allowed, and holds for none', () => {
  assert.equal(every(['a', 'b'], { a: true, b: true }), true);
  assert.equal(every(['a', 'b'], { a: true, b: 'yes' }), false);
  assert.equal(every([], {}), true);
});

test('granted and states map signals to what their categories allow', () => {
  const signals = { ad_storage: ['marketing'], analytics_storage: ['statistics'], security_storage: [] };
  const al = { statistics: true, marketing: false };
  assert.deepEqual(granted(signals, al), { ad_storage: false, analytics_storage: true, security_storage: true });
  assert.deepEqual(states(signals, al), { ad_storage: 'denied', analytics_storage: 'granted', security_storage: 'granted' });
});

test('initial is each category\'s state before a decision', () => {
  assert.deepEqual(initial(P), { essential: true, statistics: false, marketing: false });
});

test('fixed: required categories on, GPC\'s off only with a signal and when honored', () => {
  assert.deepEqual(fixed(P, false), { essential: true });
  assert.deepEqual(fixed(P, true), { essential: true, marketing: false });
  assert.deepEqual(fixed({ ...P, gpc: { ...P.gpc, honored: false } }, true), { essential: true });
});

test('effective: a decision cannot turn off what is required nor on what GPC turns off', () => {
  assert.deepEqual(effective(P, { essential: false, statistics: true, marketing: true }, false),
    { essential: true, statistics: true, marketing: true });
  assert.deepEqual(effective(P, { essential: false, statistics: true, marketing: true }, true),
    { essential: true, statistics: true, marketing: false });
  // Only true counts as a choice: anything else refuses.
  assert.deepEqual(effective(P, { statistics: 1, marketing: 'true' }, false), { essential: true, statistics: false, marketing: false });
});

test('dontSell: by a honored GPC signal, or by refusing a category sale needs', () => {
  assert.equal(!!dontSell(P, { marketing: true }, true), true);
  assert.equal(!!dontSell(P, { marketing: true }, false), false);
  const optOut = { ...P, gpc: { honored: false, off: [], doNotSell: false }, doNotSellWithout: ['marketing'] };
  assert.equal(!!dontSell(optOut, { marketing: false }, true), true);
  assert.equal(!!dontSell(optOut, { marketing: true }, true), false);
});
