// Package browser runs the headless Chromium of the crawler's deep scans and verifications.
//
// A Pool starts Chromium processes on first use (Acquire), at most Options.Size, and replaces
// those that crash or hang. A browser has no network of its own: its default proxy refuses
// every request and host names never resolve inside it. Each page gets a browser context
// whose only way out is a Proxy, an HTTP proxy on loopback that forwards through the caller's
// transport (the scan's guarded dialer, see netguard), terminates HTTPS with certificates
// signed by that browser's own key, counts bytes against a Budget and keeps a Record of every
// request, with the text of the scripts. Settle then makes a loaded page do what it would do
// within seconds of a visit (first interaction, timers run early) so late tags are seen.
//
// Flags are the Chromium launch options shared with the tests that drive a browser. The
// package knows nothing of sites, scans or the library: package crawler matches what the
// browser did.
package browser
