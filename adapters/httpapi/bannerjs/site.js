// What the runtime knows of the page it runs in and of where consentd is, read once when the
// script runs: the loader's inlined configuration, the script element, the project key, the
// API base and the visitor's GPC signal.

export var w = window;
export var d = document;
// COOKIE is the first-party cookie holding the visitor's decision.
export var COOKIE = 'consentd';
// boot is the configuration the loader inlined (window.__consentdBoot), null for banner.js.
export var boot = w.__consentdBoot || null;
w.__consentdBoot = undefined;
export var me = d.currentScript || d.querySelector('script[data-project-key]');
export var pk = boot ? boot.projectKey : me && me.getAttribute('data-project-key');
// api is the API base: .../public from .../public/banner.js or .../public/{projectKey}/loader.js.
export var api = me ? me.src.replace(/[?#].*$/, '').replace(boot ? /\/[^/]*\/[^/]*$/ : /\/[^/]*$/, '') : '';
// declPage is true on consentd's own cookie declaration page, where the runtime shows the
// visitor's choice.
export var declPage = !!me && me.getAttribute('data-consentd-page') === 'declaration';
export var gpc = navigator.globalPrivacyControl === true;
// siteURL is the URL of the site's public resource res (core.PublicPath; the names come from
// core/publicpath.go through the build's consentd:core module).
export function siteURL(res) { return api + '/' + encodeURIComponent(pk) + '/' + res; }
// get fetches the site's public resource res (in language lang, when given; with init, else
// without credentials) and gives its JSON; an answer other than 2xx is an error naming res.
export function get(res, lang, init) {
  return fetch(siteURL(res) + (lang ? '?lang=' + encodeURIComponent(lang) : ''), init || { credentials: 'omit' })
    .then(function (r) { if (!r.ok) throw new Error(res + ': HTTP ' + r.status); return r.json(); });
}
