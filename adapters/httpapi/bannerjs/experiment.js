/*
 * consentd's A/B test variant picker, which the per-site loader inlines between the site's
 * configuration (window.__consentdBoot) and the runtime, only for a visitor a running experiment
 * of the site applies to (core/experiment ForVisitor; docs/experiments.md). The loader puts the
 * experiment (X: its ID and per variant its key, weight and override) in place of the
 * placeholder: the bundle is built once. The cookie's name is site.js's COOKIE (a test keeps them
 * the same).
 */
import { pick, apply, parseCookie } from './variant.js';

(function (w, X) {
  var c = w.__consentdBoot;
  if (c && X && X.v && X.v.length) apply(c, X, pick(X, parseCookie(document.cookie, 'consentd'), Math.random()));
})(window, "__CONSENTD_X__");
