// Package edge is the rule set an edge applies to a site's HTML before the browser sees it
// (#43): for a visitor's place and stored decision, which elements are held. The banner
// runtime holds a tag once it runs; the browser's preload scanner fetches what it reads ahead
// before any script can act. An edge (the site's own server through a Go middleware,
// consentd proxy, a CDN worker) sees the HTML first and neutralizes what the runtime would hold
// into the forms the runtime restores, so that nothing held is ever fetched.
//
// The rule set is decided here, from the same functions the runtime's configuration comes
// from (banner.BlockingRulesOf, banner.DecidePolicies, the regional rules), and served as data
// (GET /public/{projectKey}/edge, docs/edge.md): the Go edges and the Worker read the same
// JSON, and RuleSet.Visitor is the one reading of it in Go. The consent cookie's parser
// (ParseDecision) is the one in Go; the runtime's (bannerjs/consent.js) writes it.
package edge
