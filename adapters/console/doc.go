// Package console is consentd's web console: the pages a site owner uses in a browser to
// manage sites, design the banner with a live preview, review scans, configure categories and
// services, and read proof of consent. It is served by the same binary at "/".
//
// Pages are server-rendered html/template, progressively enhanced with a vendored copy of
// htmx; every asset is embedded, and pages run under a strict Content-Security-Policy (no
// inline script or style). The console calls the same core use cases as the management API,
// through the small interfaces declared in usecases.go; it never reaches the store.
//
// Signing in exchanges an API key for a server-side session (see docs/console.md); every
// state-changing request carries the session's synchronizer CSRF token.
package console
