package netguard

import (
	"fmt"
	"net/netip"
)

// RefusedError is returned by the dialer for an address the scan may not reach.
type RefusedError struct {
	Host    string
	IP      netip.Addr
	Reason  string // what ForbiddenAddress said
	Literal bool   // Host is the address, as written in the URL
}

func (e *RefusedError) Error() string {
	target := e.IP.String()
	if e.Literal {
		target = e.Host
	} else if e.Host != "" && e.Host != target {
		target = e.Host + " (" + target + ")"
	}
	return fmt.Sprintf("refused to scan %s: %s address (set CONSENTD_SCAN_ALLOW_PRIVATE=true to allow)", target, e.Reason)
}

// Special-purpose ranges that ForbiddenAddress refuses beyond what netip classifies.
var (
	sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")  // carrier-grade NAT, RFC 6598
	siteLocal          = netip.MustParsePrefix("fec0::/10")      // deprecated site-local, RFC 3879
	discardOnly        = netip.MustParsePrefix("100::/64")       // discard-only, RFC 6666
	nat64Local         = netip.MustParsePrefix("64:ff9b:1::/48") // local-use NAT64, RFC 8215
	documentation6     = []netip.Prefix{
		netip.MustParsePrefix("2001:db8::/32"), // RFC 3849
		netip.MustParsePrefix("3fff::/20"),     // RFC 9637
	}
)

// ForbiddenAddress names why ip is not a public address (loopback, private, link-local,
// reserved…), or "" when it is one: the scanner's address rule, which other outbound traffic
// (webhook deliveries) obeys too. An IPv6 address
// that embeds an IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo, ISATAP) is
// judged by the IPv4 addresses it embeds, by the same rule: a translator or tunnel on the way
// would deliver the connection to them.
func ForbiddenAddress(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	if r := plainReason(ip); r != "" || ip.Is4() {
		return r
	}
	switch {
	case siteLocal.Contains(ip), nat64Local.Contains(ip):
		return "private"
	case discardOnly.Contains(ip):
		return "reserved"
	case documentation6[0].Contains(ip), documentation6[1].Contains(ip):
		return "documentation"
	}
	for _, v4 := range embeddedIPv4(ip) {
		if r := plainReason(v4); r != "" {
			return r
		}
	}
	return ""
}

// plainReason is the rule for IPv4 addresses, and for IPv6 addresses taken as they are.
func plainReason(ip netip.Addr) string {
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip.IsPrivate(), sharedAddressSpace.Contains(ip): // IsPrivate includes fc00::/7
		return "private"
	case ip.Is4() && ip.As4()[0] == 0: // 0.0.0.0/8 "this network"
		return "unspecified"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	return ""
}

// embeddedIPv4 returns the IPv4 addresses an IPv6 address carries in one of the standard
// embeddings, where a translator or tunnel would send the traffic.
func embeddedIPv4(ip netip.Addr) []netip.Addr {
	if !ip.Is6() {
		return nil
	}
	b := ip.As16()
	v4 := func(i int) netip.Addr { return netip.AddrFrom4([4]byte(b[i : i+4])) }
	zero := func(from, to int) bool {
		for _, c := range b[from:to] {
			if c != 0 {
				return false
			}
		}
		return true
	}
	var out []netip.Addr
	switch {
	case zero(0, 12): // ::a.b.c.d, IPv4-compatible (RFC 4291, deprecated)
		out = append(out, v4(12))
	case zero(0, 8) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0: // ::ffff:0:a.b.c.d, IPv4-translated (RFC 2765)
		out = append(out, v4(12))
	case b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && zero(4, 12): // 64:ff9b::/96, NAT64 (RFC 6052)
		out = append(out, v4(12))
	case b[0] == 0x20 && b[1] == 0x02: // 2002::/16, 6to4 (RFC 3056)
		out = append(out, v4(2))
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0: // 2001::/32, Teredo (RFC 4380)
		client := v4(12).As4()
		for i := range client {
			client[i] ^= 0xff
		}
		out = append(out, v4(4), netip.AddrFrom4(client))
	}
	// ISATAP interface identifier (RFC 5214) under any prefix: [02]00:5efe:a.b.c.d.
	if b[8]&^0x03 == 0 && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe {
		out = append(out, v4(12))
	}
	return out
}
