package crawler

import "net/netip"

// ForbiddenAddress names why ip is not a public address (loopback, private, link-local,
// reserved…), or "" when it is one: the scanner's address rule, for other outbound traffic
// that must obey it too (webhook deliveries).
func ForbiddenAddress(ip netip.Addr) string { return forbiddenReason(ip) }
