package core

import (
	"net/netip"
	"strconv"
	"strings"
)

// The address rule of outbound connections that consentd makes for its users (webhook
// deliveries and the scanner): where a connection may go. One function, SpecialAddress,
// answers both the check of an address before it is dialled (after DNS, for every
// redirect) and the check of a literal address when a webhook endpoint is created or changed,
// so the two never disagree.

// specialRange is a range of the IANA special-purpose address registries (IPv4 and IPv6) or
// of multicast, and the word that names it in refusals. A range whose reason is "" is judged
// by the IPv4 address it embeds only (see SpecialAddress).
type specialRange struct {
	prefix netip.Prefix
	reason string
}

func ranges(pairs ...string) []specialRange {
	out := make([]specialRange, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, specialRange{netip.MustParsePrefix(pairs[i]), pairs[i+1]})
	}
	return out
}

// specialRanges4 are the IPv4 Special-Purpose Address Registry's entries (RFC 6890 and its
// updates, https://www.iana.org/assignments/iana-ipv4-special-registry), every one of them,
// also those the registry marks globally reachable (anycast services such as AS112 and AMT
// are no webhook receivers), and multicast (RFC 5771). More specific entries first.
var specialRanges4 = ranges(
	"0.0.0.0/8", "unspecified", // "this network", RFC 791
	"10.0.0.0/8", "private", // RFC 1918
	"100.64.0.0/10", "private", // shared address space (carrier-grade NAT), RFC 6598
	"127.0.0.0/8", "loopback", // RFC 1122
	"169.254.0.0/16", "link-local", // RFC 3927
	"172.16.0.0/12", "private", // RFC 1918
	"192.0.0.0/24", "reserved", // IETF protocol assignments, RFC 6890 (DS-Lite, PCP, TURN, NAT64 discovery)
	"192.0.2.0/24", "documentation", // TEST-NET-1, RFC 5737
	"192.31.196.0/24", "reserved", // AS112-v4, RFC 7535
	"192.52.193.0/24", "reserved", // AMT, RFC 7450
	"192.88.99.0/24", "reserved", // deprecated 6to4 relay anycast, RFC 7526
	"192.168.0.0/16", "private", // RFC 1918
	"192.175.48.0/24", "reserved", // direct delegation AS112 service, RFC 7534
	"198.18.0.0/15", "benchmarking", // RFC 2544
	"198.51.100.0/24", "documentation", // TEST-NET-2, RFC 5737
	"203.0.113.0/24", "documentation", // TEST-NET-3, RFC 5737
	"224.0.0.0/4", "multicast", // RFC 5771
	"255.255.255.255/32", "broadcast", // limited broadcast, RFC 8190
	"240.0.0.0/4", "reserved", // RFC 1112
)

// specialRanges6 are the IPv6 Special-Purpose Address Registry's entries
// (https://www.iana.org/assignments/iana-ipv6-special-registry), deprecated site-local
// and multicast. IPv4-mapped addresses (::ffff:0:0/96) are IPv4 addresses and follow the IPv4
// table. More specific entries first.
var specialRanges6 = ranges(
	"::/128", "unspecified", // RFC 4291
	"::1/128", "loopback", // RFC 4291
	// The NAT64 well-known prefix (RFC 6052) is globally reachable: a translator delivers
	// 64:ff9b::a.b.c.d to a.b.c.d, which DNS64 networks rely on to reach IPv4-only hosts,
	// so it is judged by the IPv4 address it embeds, like ::ffff:a.b.c.d.
	"64:ff9b::/96", "",
	"64:ff9b:1::/48", "private", // local-use IPv4/IPv6 translation, RFC 8215
	"100::/64", "reserved", // discard-only, RFC 6666
	"100:0:0:1::/64", "reserved", // dummy IPv6 prefix, RFC 9780
	"2001:db8::/32", "documentation", // RFC 3849
	"2001::/23", "reserved", // IETF protocol assignments, RFC 2928: Teredo, benchmarking, ORCHID, AMT, AS112, anycast services
	"2002::/16", "reserved", // 6to4, RFC 3056 (its relays deprecated, RFC 7526)
	"2620:4f:8000::/48", "reserved", // direct delegation AS112 service, RFC 7534
	"3fff::/20", "documentation", // RFC 9637
	"5f00::/16", "reserved", // segment routing (SRv6) SIDs, RFC 9602
	"fc00::/7", "private", // unique local, RFC 4193
	"fe80::/10", "link-local", // RFC 4291
	"fec0::/10", "private", // deprecated site-local, RFC 3879
	"ff00::/8", "multicast", // RFC 4291
)

// globalUnicast6 is the only IPv6 space IANA allocates for global unicast (RFC 4291, the IANA
// IPv6 address space registry); the rest is reserved by the IETF or special.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// SpecialAddress names why ip is not a public unicast address that consentd may connect to on
// a user's behalf ("loopback", "private", "link-local", "multicast", "unspecified",
// "broadcast", "documentation", "benchmarking", "reserved"), or answers "" for a public one.
// It refuses every range of the IANA special-purpose address registries (IPv4 and IPv6),
// multicast, and IPv6 outside 2000::/3. An IPv6 address that embeds an IPv4 address
// (mapped, compatible, translated, NAT64, 6to4, Teredo, ISATAP) is first judged by the
// IPv4 addresses it embeds, by the same rule, since a translator or tunnel on the way would
// deliver the connection to them; the NAT64 well-known prefix only by them.
func SpecialAddress(ip netip.Addr) string {
	if !ip.IsValid() {
		return "unspecified"
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is4() {
		for _, r := range specialRanges4 {
			if r.prefix.Contains(ip) {
				return r.reason
			}
		}
		return ""
	}
	if ip == netip.IPv6Unspecified() {
		return "unspecified"
	}
	if ip == netip.IPv6Loopback() {
		return "loopback"
	}
	for _, v4 := range embeddedIPv4(ip) {
		if r := SpecialAddress(v4); r != "" {
			return r
		}
	}
	for _, r := range specialRanges6 {
		if r.prefix.Contains(ip) {
			return r.reason
		}
	}
	if !globalUnicast6.Contains(ip) {
		return "reserved"
	}
	return ""
}

// embeddedIPv4 returns the IPv4 addresses an IPv6 address carries in one of the standard
// embeddings, where a translator or tunnel would send the traffic.
func embeddedIPv4(ip netip.Addr) []netip.Addr {
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

// HostAddress reads the host of a URL (or of a dial address) as an IP address when it is
// written as one, in any form a browser's URL parser (the WHATWG URL standard) or the C
// library's inet_aton reads as IPv4: dotted decimal, a single number (http://2130706433/),
// fewer parts (127.1), octal (0177.0.0.1) or hexadecimal (0x7f.1) parts, a trailing dot;
// and IPv6, with or without brackets, zone included. literal is false for a name; err is set
// for a host that ends in a number but is no valid IPv4 address (http://1.2.3.4.5/,
// http://256.1.1.1/), which browsers refuse as well.
func HostAddress(host string) (ip netip.Addr, literal bool, err error) {
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		ip, err := netip.ParseAddr(host[1 : len(host)-1])
		if err != nil || !ip.Is6() {
			return netip.Addr{}, false, Errorf(CodeInvalid, "%s is not an IPv6 address", host)
		}
		return ip, true, nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip, true, nil
	}
	labels := strings.Split(host, ".")
	if len(labels) > 1 && labels[len(labels)-1] == "" {
		labels = labels[:len(labels)-1]
	}
	if !endsInNumber(labels[len(labels)-1]) {
		return netip.Addr{}, false, nil
	}
	bad := Errorf(CodeInvalid, "%s ends in a number but is not an IPv4 address", host)
	if len(labels) > 4 {
		return netip.Addr{}, false, bad
	}
	var n uint64
	for i, l := range labels {
		v, ok := ipv4Number(l)
		last := i == len(labels)-1
		if !ok || (!last && v > 255) || (last && v >= 1<<(8*(5-len(labels)))) {
			return netip.Addr{}, false, bad
		}
		if last {
			n = n<<(8*(5-len(labels))) | v
		} else {
			n = n<<8 | v
		}
	}
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true, nil
}

// endsInNumber is the WHATWG URL standard's test of a host's last label: digits only, or a
// hexadecimal number with its 0x prefix.
func endsInNumber(l string) bool {
	if l == "" {
		return false
	}
	if strings.Trim(l, "0123456789") == "" {
		return true
	}
	if len(l) >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
		return strings.Trim(l[2:], "0123456789abcdefABCDEF") == ""
	}
	return false
}

// ipv4Number reads one part of an IPv4 address: decimal, octal with a leading 0, or
// hexadecimal with 0x ("0x" alone is 0).
func ipv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		s, base = s[2:], 16
		if s == "" {
			return 0, true
		}
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if strings.ContainsAny(s, "+-_") {
		return 0, false
	}
	v, err := strconv.ParseUint(s, base, 64)
	if err != nil || v > 1<<32 {
		return 0, false
	}
	return v, true
}
