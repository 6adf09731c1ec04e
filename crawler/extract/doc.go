// Package extract finds library services in what a scan fetched, without doing any I/O: it
// streams HTML through html.Tokenizer (no document tree) and fingerprints script, iframe,
// image and link URLs, inline script text and script attributes against a library.Index, and
// reads Google Tag Manager containers for the tags they configure.
//
// An Extractor reads one page (Run for HTML, Inline for script text) into a Report: the hits
// (a service, a tracking ID, the Evidence of where), the unrecognized third-party scripts, the
// same-site scripts no pattern claims and, when asked, the links to follow. DecodeHTML turns a
// body into UTF-8 by its declared charset first. A Cache, one per scan, keeps what repeated
// script URLs and inline scripts yield. Inline scripts are also read with the white space
// before a vendor call's parenthesis removed and backquotes as quotes, and a vendor URL built
// around a variable ('https://' + name + '.disqus.com/embed.js') counts when a library pattern
// covers any host of its domain.
//
// The package knows nothing of fetching, scans or consentd's own resources: package crawler
// feeds it bodies and decides what a finding means for the scan.
package extract
