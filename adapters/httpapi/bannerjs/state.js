// The runtime's shared state: the one object the modules read and change the visitor's
// situation through (import { S } from './state.js'). What a single module alone uses stays in
// that module; what the page sees of it goes through the page API (boot.js, window.consentd).
//
// The properties end in "_": the build shortens such names (esbuild's mangleProps), so that
// sharing the state costs the first view's budget (#28) almost nothing. Nothing outside the
// runtime reads them; the lazily loaded part reads the state through getters (see ui.js's
// internals), by their plain names.
export var S = {
  // cfg_ is the site's configuration (GET /public/{projectKey}/config, or the loader's inlined
  // first-view copy), null until one is applied (boot.js's useConfig).
  cfg_: null,
  // cached_ is the configuration of the previous page view (localStorage): its blocking rules
  // apply until the fresh one arrives, and while consentd is unreachable a returning visitor's
  // decision under it applies quietly.
  cached_: null,
  // stored_ is the visitor's decision as kept in the first-party cookie (see consent.js), null
  // when there is none.
  stored_: null,
  // allowed_ maps every category to whether it is allowed now (the effective state).
  allowed_: {},
  // decided_ is true once a current decision exists (stored, or made on this page).
  decided_: false,
  // rules_ are the compiled blocking rules (rules.js) of cfg_, else of cached_.
  rules_: [],
  // page_ is the page API (window.consentd): the buttons call its acceptAll, rejectAll and
  // showPreferences, which the TCF module replaces where the TCF applies.
  page_: null
};
