// Package crawler is consentd's scan engine: it fetches a site's pages and reports the library
// services, tracking IDs, unrecognized third-party scripts, cookies and storage it sees. It
// knows nothing of sites or scans in the database: the scan worker reaches it through
// adapters/sitecrawler (core's SiteCrawler), the 'consentd scan' and 'consentd verify'
// commands call it directly.
//
// It reports in the kernel's types and words (core/report.go, as River's drivers return
// rivertype's): a Result is the detailed view 'consentd scan' prints, whose pre-consent
// findings and verification are core's types as they are, and Result.Report is the kernel's
// report (core.CrawlResult) a scan stores. It defines no copy of a kernel type
// (kerneltypes_test.go fails on one).
//
// # Three modes
//
// Static (Engine.Crawl, Result.Mode "static"): one colly collector, HTTP client and connection
// pool per scan. Pages are crawled breadth first, level by level, by at most
// Options.Concurrency goroutines, following links on the registrable domains of the start
// URLs, so the pages chosen under a page limit do not depend on timing. Set-Cookie headers are
// recorded on every response, redirect hops included; bodies over Options.MaxBodyBytes are
// reported as page errors; robots.txt is obeyed unless Options.IgnoreRobots, and a Shopify
// storefront's password page is unlocked with Options.StorefrontPassword (goquery reads the
// form). Each HTML page goes through package extract; Google Tag Manager containers found on a
// page are fetched and the tags they configure fingerprinted, and so are the page's same-site
// scripts that turn out, by their content, to be containers served by the site itself.
//
// Deep (Engine.DeepCrawl, "deep"): the static pass discovers the pages and reads their HTML,
// then each page is loaded with no consent given in a fresh browser context of a Chromium of a
// browser.Pool. What the browser requested (every request goes through the page's
// browser.Proxy), the script bodies it received, the cookies and storage keys it held at the
// end and the tags it was given but held are matched against the library; what a service did
// before consent is reported as Result.PreConsent. Links made by the pages' scripts are
// followed in further waves. A browser that crashes or hangs is replaced and the page tried
// once more.
//
// Verify (Engine.Verify, "verify"): the deep scan's browser pass, run once per consent state
// (no decision, reject all, accept all, withdrawn, one per category) by driving the banner of
// consentd's runtime on the pages, recording per state what loaded and what was stored, and
// whether Google Consent Mode's default came before any Google tag request;
// Result.Verification holds it, for core's compliance rules.
//
// # Layout
//
// Package crawler keeps the orchestration: engine.go (the static scan), deep.go and
// deepmerge.go (the browser pass and what it adds), verify.go, verifypage.go and
// verifyrecord.go (the states of a verification), result.go and types.go (the Result),
// report.go (the kernel's report of it). The
// leaves, which call nothing of it, are packages of their own:
//
//   - crawler/netguard: the address rule and the dialer every scan connection goes through. It
//     resolves the host itself and refuses loopback, private, link-local, multicast and
//     unspecified addresses (unless Options.AllowPrivate) on the address it actually dials, so
//     redirects and DNS rebinding are covered. Options.ConnectTo (curl's --connect-to) and
//     Options.RootCAPEM let a scan reach a local copy of a site under its real names.
//   - crawler/extract: the pure HTML and script fingerprinting, no I/O: html.Tokenizer (no
//     tree), a library.Index and a per-scan cache of what repeated script URLs and inline
//     scripts yield.
//   - crawler/browser: the Chromium pool, the per-page proxy that is a browser's only way out,
//     and the settling that runs a page's clock forward so late tags load; its Flags are the
//     launch flags tests use too.
//
// Tests replay the recorded sites of testdata/sites on loopback (crawler/crawlertest serves
// them to a browser); docs/crawler.md describes the corpus format, the benchmarks and the
// figures measured.
package crawler
