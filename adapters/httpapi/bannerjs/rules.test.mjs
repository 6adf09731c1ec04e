// Unit tests of the blocking rules (rules.js): the pattern language the guard matches URLs
// with, and the holding rule, which says what the guard holds back now. Run by `node --test`
// (TestNodeUnit); parity_test.go checks the patterns against library/pattern.go in Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The page the runtime runs in, as far as these modules read it (site.js): a shop at
// https://shop.example loading its loader from consentd at https://cmp.example.
globalThis.window = globalThis;
window.__consentdBoot = { projectKey: 'pk_test' };
globalThis.document = {
  currentScript: { src: 'https://cmp.example/api/v1/public/pk_test/loader.js', getAttribute: () => null },
  baseURI: 'https://shop.example/en/page'
};
globalThis.location = new URL('https://shop.example/en/page');
Object.defineProperty(globalThis, 'navigator', { value: { globalPrivacyControl: false }, configurable: true });

const { compile, matches, compileRules, ruleFor, holdFor, PENDING } = await import('./rules.js');
const { S } = await import('./state.js');

// match reports whether pattern raw matches url.
function match(raw, url) {
  const p = compile(raw), u = new URL(url);
  assert.ok(p, raw + ' compiles');
  return matches(p, u, u.hostname.toLowerCase());
}

test('compile refuses what is not a pattern', () => {
  for (const raw of ['', ' www.example.com', 'https://scheme.example/x', 'noperiod/x', 'tags.example.net?k=v w',
    'a.example.com?=x', 'a.example.com?k=', 'a.example.com?k=a&b', 'frag.example.com/x#y', 'g.example.com/[ab*', 'g.example.com/x*\\', 7, null]) {
    assert.equal(compile(raw), null, JSON.stringify(raw));
  }
});

test('hosts match exactly, subdomains only with *., case-insensitively', () => {
  assert.equal(match('hotjar.com', 'https://hotjar.com/'), true);
  assert.equal(match('hotjar.com', 'https://static.hotjar.com/c.js'), false);
  assert.equal(match('*.hotjar.com', 'https://static.hotjar.com/c/hotjar.js'), true);
  assert.equal(match('*.hotjar.com', 'https://hotjar.com/'), true, 'the domain itself too');
  assert.equal(match('*.hotjar.com', 'https://nothotjar.com/'), false);
  assert.equal(match('*.hotjar.com', 'https://hotjar.com.evil.io/'), false);
  assert.equal(match('Static.Example.org/x', 'https://static.example.org/x/y'), true);
});

test('paths match by prefix, or whole with a glob', () => {
  assert.equal(match('connect.facebook.net/en_US/fbevents.js', 'https://connect.facebook.net/en_US/fbevents.js?v=2'), true);
  assert.equal(match('connect.facebook.net/en_US/fbevents.js', 'https://connect.facebook.net/de_DE/fbevents.js'), false);
  assert.equal(match('cdn.example.com/a/*/b.js', 'https://cdn.example.com/a/v1/b.js'), true);
  assert.equal(match('cdn.example.com/a/*/b.js', 'https://cdn.example.com/a/v1/v2/b.js'), false);
  assert.equal(match('g.example.com/[ab]*.js', 'https://g.example.com/a1.js'), true);
  assert.equal(match('g.example.com/[ab]*.js', 'https://g.example.com/c1.js'), false);
  assert.equal(match('g.example.com/[ab', 'https://g.example.com/[ab/x.js'), true, 'no glob without a star');
});

test('a query parameter matches by its decoded value\'s prefix', () => {
  assert.equal(match('www.googletagmanager.com/gtag/js?id=G-', 'https://www.googletagmanager.com/gtag/js?id=G-ABC'), true);
  assert.equal(match('www.googletagmanager.com/gtag/js?id=G-', 'https://www.googletagmanager.com/gtag/js?id=AW-1'), false);
  assert.equal(match('www.googletagmanager.com/gtag/js?id=G-', 'https://www.googletagmanager.com/gtag/js'), false);
  assert.equal(match('q.example.com/p?id=a+b', 'https://q.example.com/p?id=a%2Bb'), true);
  assert.equal(match('q.example.com/p?id=a+b', 'https://q.example.com/p?x=1&id=a%2Bbc'), true);
  assert.equal(match('q.example.com/p?id=a+b', 'https://q.example.com/p?id=a+b'), false, '+ in a query is a space');
  assert.equal(match('tags.example.net?k=v', 'https://tags.example.net/?k=v;w'), false, 'a pair with ; is skipped');
});

// config is a configuration with site-wide blocking on or off and one rule per service.
function config(siteWide) {
  return {
    blockingRules: {
      siteWide: siteWide, rules: [
        { serviceSlug: 'google-analytics', categorySlug: 'statistics', patterns: ['www.googletagmanager.com/gtag/js?id=G-', 'bad pattern'] },
        { serviceSlug: 'meta-pixel', categorySlug: 'marketing', patterns: ['connect.facebook.net'] },
        { serviceSlug: 'shop-cdn', categorySlug: 'marketing', patterns: ['*.cdn.shop.example'] }
      ]
    }
  };
}
const GA = 'https://www.googletagmanager.com/gtag/js?id=G-1', FB = 'https://connect.facebook.net/en_US/fbevents.js';

test('compileRules keeps the valid patterns, each with its service and category, and frees unheld hosts', () => {
  const rules = compileRules(config(true).blockingRules, ['shop.example']);
  assert.deepEqual(rules.map((r) => [r.svc, r.cat, r.free]),
    [['google-analytics', 'statistics', false], ['meta-pixel', 'marketing', false], ['shop-cdn', 'marketing', true]]);
  assert.deepEqual(compileRules(undefined), []);
});

test('ruleFor resolves URLs against the page and only matches http(s)', () => {
  S.rules_ = compileRules(config(true).blockingRules);
  assert.equal(ruleFor(GA).svc, 'google-analytics');
  assert.equal(ruleFor('//connect.facebook.net/x.js').svc, 'meta-pixel');
  assert.equal(ruleFor('/local.js'), null);
  assert.equal(ruleFor('javascript:alert(1)'), null);
  assert.equal(ruleFor(''), null);
});

test('before any configuration, only cross-origin elements created by script are held', () => {
  S.cfg_ = S.cached_ = null;
  S.rules_ = [];
  assert.equal(holdFor(GA, true), PENDING);
  assert.equal(holdFor(GA, false), null, 'parser-inserted: nothing to match it against yet');
  assert.equal(holdFor('https://shop.example/app.js', true), null, 'same origin');
  assert.equal(holdFor('https://cmp.example/api/v1/public/banner-more.js', true), null, "consentd's own");
});

test('with a configuration, a matching URL is held until its category is allowed', () => {
  S.cfg_ = config(true);
  S.rules_ = compileRules(S.cfg_.blockingRules, ['cdn.shop.example']);
  S.allowed_ = { essential: true, statistics: false, marketing: false };
  assert.equal(holdFor(GA, true).svc, 'google-analytics');
  assert.equal(holdFor(FB).cat, 'marketing');
  assert.equal(holdFor('https://img.cdn.shop.example/x.js'), null, 'an unheld host');
  assert.equal(holdFor('https://elsewhere.example/x.js', true), null, 'no rule');
  S.allowed_ = { essential: true, statistics: true, marketing: false };
  assert.equal(holdFor(GA), null);
  assert.equal(holdFor(FB).cat, 'marketing');
});

test('without site-wide blocking nothing is held; the cached configuration holds until the fresh one', () => {
  S.cfg_ = config(false);
  S.allowed_ = {};
  assert.equal(holdFor(GA, true), null);
  S.cfg_ = null;
  S.cached_ = config(true);
  S.rules_ = compileRules(S.cached_.blockingRules);
  assert.equal(holdFor(GA, true).svc, 'google-analytics');
});
