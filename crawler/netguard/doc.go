// Package netguard is the scanner's rule for where outbound connections may go, and the dialer
// that enforces it.
//
// ForbiddenAddress is the one address rule, core.SpecialAddress: every range of the IANA
// special-purpose address registries, multicast, and IPv6 forms embedding such an IPv4 address
// (mapped, translated, NAT64, 6to4, Teredo, ISATAP), judged by the IPv4 address they would
// reach. A literal host is read as a URL parser reads it (core.HostAddress: 2130706433,
// 0177.0.0.1, 0x7f.1 and 127.1 are 127.0.0.1). Hooks.Dialer resolves the host
// itself and checks each address it is about to dial, so redirects and DNS rebinding are
// covered: the address checked is the address connected to. ConnectTo rules (curl's
// --connect-to) are applied before the check, so a scan can reach a local copy of a site under
// its real name and the check still judges where the connection really goes.
//
// The package knows nothing of scans; the crawler's static engine, its browser proxy and the
// webhook sender all dial through it.
package netguard
