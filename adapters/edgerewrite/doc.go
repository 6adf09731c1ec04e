// Package edgerewrite holds, in a site's HTML on its way to the browser, what the banner
// runtime would hold for the visitor (core/edge's rule set, docs/edge.md), so that the
// browser never fetches it: a streaming rewriter (Rewrite) on golang.org/x/net/html's
// tokenizer, the http.Handler middleware Go sites wrap their handlers in (Middleware), and
// the reverse proxy of consentd proxy (Proxy). Rule sets come from a consentd server
// (Remote, revalidated with their ETag) or from anything else that gives one (Rules).
package edgerewrite
