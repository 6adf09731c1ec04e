// Package netguard is the scanner's rule for where outbound connections may go, and the dialer
// that enforces it.
//
// ForbiddenAddress refuses loopback, private, link-local, multicast, unspecified and reserved
// addresses, and IPv6 forms embedding such an IPv4 address (mapped, translated, NAT64, 6to4,
// Teredo, ISATAP), judged by the IPv4 address they would reach. Hooks.Dialer resolves the host
// itself and checks each address it is about to dial, so redirects and DNS rebinding are
// covered: the address checked is the address connected to. ConnectTo rules (curl's
// --connect-to) are applied before the check, so a scan can reach a local copy of a site under
// its real name and the check still judges where the connection really goes.
//
// The package knows nothing of scans; the crawler's static engine, its browser proxy and the
// webhook sender all dial through it.
package netguard
