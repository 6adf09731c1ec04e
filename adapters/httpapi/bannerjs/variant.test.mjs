// Unit tests of variant.js (node --test): the kept variant wins, the draw follows the weights,
// the override lands on the configuration and names the variant.
import test from 'node:test';
import assert from 'node:assert/strict';
import { pick, apply, parseCookie } from './variant.js';

const X = { i: 'abc', v: [['a', 30, {}], ['b', 70, { texts: { headline: 'B' }, policy: { rejectOnFirstLayer: false }, banner: { template: 'modal' } }]] };

test('a kept variant is kept', () => {
  assert.equal(pick(X, { x: { variant: 'abc_b' } }, 0)[0], 'b');
  assert.equal(pick(X, { x: { variant: 'abc_a' } }, 0.99)[0], 'a');
  assert.equal(pick(X, { x: { variant: 'other_b' } }, 0)[0], 'a'); // another experiment's: drawn
});

test('the draw follows the weights', () => {
  assert.equal(pick(X, null, 0)[0], 'a');
  assert.equal(pick(X, null, 0.2999)[0], 'a');
  assert.equal(pick(X, null, 0.3)[0], 'b');
  assert.equal(pick(X, null, 0.99999)[0], 'b');
  let b = 0;
  for (let i = 0; i < 1000; i++) if (pick(X, null, i / 1000)[0] === 'b') b++;
  assert.equal(b, 700);
});

test('the override lands on the configuration', () => {
  const c = { banner: { template: 'floating', position: 'bottom' }, texts: { headline: 'A', body: 'x' }, policy: { rejectOnFirstLayer: true, ask: true } };
  apply(c, X, X.v[1]);
  assert.deepEqual(c.banner, { template: 'modal', position: 'bottom' });
  assert.deepEqual(c.texts, { headline: 'B', body: 'x' });
  assert.equal(c.policy.rejectOnFirstLayer, false);
  assert.equal(c.policy.ask, true);
  assert.equal(c.variant, 'abc_b');
  assert.deepEqual(c.x, { variant: 'abc_b' });
});

test('the consent cookie is read', () => {
  const v = encodeURIComponent(JSON.stringify({ c: {}, x: { variant: 'abc_b' } }));
  assert.deepEqual(parseCookie('a=1; consentd=' + v + '; b=2', 'consentd').x, { variant: 'abc_b' });
  assert.equal(parseCookie('a=1', 'consentd'), null);
  assert.equal(parseCookie('consentd=%7Bbad', 'consentd'), null);
});
