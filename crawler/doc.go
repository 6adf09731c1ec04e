// Package crawler is consentd's scan engine: it fetches a site's pages and reports the library
// services, tracking IDs, unrecognized third-party scripts and cookies it sees. It knows nothing
// of sites or scans in the database; the scan worker reaches it through an adapter.
//
// One colly collector, HTTP client and connection pool per scan. Pages are crawled breadth first,
// level by level, by at most Options.Concurrency goroutines, following links on the registrable
// domains of the start URLs, so the pages chosen under a page limit do not depend on timing.
// Every connection goes through a dialer that resolves the host itself and refuses loopback,
// private, link-local, multicast and unspecified addresses (unless allowed) on the address it
// actually dials: redirects and DNS rebinding are covered, and IPv6 forms embedding such an
// IPv4 address are judged by it. Options.ConnectTo (curl's --connect-to) and Options.RootCAPEM
// let a scan reach a local copy of a site and its vendors under their real names, for tests
// without the internet. Set-Cookie headers are recorded on
// every response, redirect hops included. Bodies over Options.MaxBodyBytes are reported as page
// errors. Pages are decoded by their declared charset, streamed through html.Tokenizer (no
// tree) and fingerprinted with a library.Index, what repeated script URLs and inline scripts
// yield being cached for the scan; goquery is used only for the storefront password form. Google Tag Manager containers found on a page are fetched and the tags they configure
// are fingerprinted; so are the page's same-site scripts that turn out, by their content, to be
// containers served by the site itself. Inline scripts are also read with the white space
// before a vendor call's parenthesis removed and backquotes as quotes, and a vendor URL built
// around a variable ('https://' + name + '.disqus.com/embed.js') counts when a library pattern
// covers any host of its domain.
//
// Tests replay the recorded sites of testdata/sites on loopback; docs/crawler.md describes the
// corpus format, the benchmarks and the figures measured.
package crawler
