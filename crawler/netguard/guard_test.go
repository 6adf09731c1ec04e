package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"testing"
)

func TestForbiddenAddresses(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "10.1.2.3": "private", "192.168.0.1": "private",
		"172.16.5.4": "private", "fd00::1": "private", "169.254.169.254": "link-local", "fe80::1": "link-local",
		"224.0.0.1": "multicast", "ff02::1": "multicast", "0.0.0.0": "unspecified", "::": "unspecified",
		"100.64.0.1": "private", "::ffff:127.0.0.1": "loopback", "8.8.8.8": "", "203.0.113.10": "documentation", "2606:4700::1": "",
		"255.255.255.255": "broadcast", "0.1.2.3": "unspecified",

		// IPv6 ranges of their own.
		"fc00::1": "private", "fdff:ffff::1": "private", "fec0::1": "private", "ff05::2": "multicast",
		"ff0e::1": "multicast", "fe80::1%eth0": "link-local", "2001:db8::1": "documentation",
		"3fff:1::1": "documentation", "100::1": "reserved", "2606:4700:4700::1111": "",

		// IPv4-mapped and IPv4-compatible.
		"::ffff:169.254.169.254": "link-local", "::ffff:10.0.0.1": "private", "::ffff:8.8.8.8": "",
		"::127.0.0.1": "loopback", "::10.0.0.1": "private", "::a9fe:a9fe": "link-local", "::0.0.0.2": "unspecified",
		"::8.8.8.8": "reserved", // outside 2000::/3
		// IPv4-translated (SIIT).
		"::ffff:0:127.0.0.1": "loopback", "::ffff:0:8.8.8.8": "reserved",
		// NAT64, well-known and local-use prefixes.
		"64:ff9b::a9fe:a9fe": "link-local", "64:ff9b::127.0.0.1": "loopback", "64:ff9b::192.168.1.1": "private",
		"64:ff9b::100.64.0.9": "private", "64:ff9b::8.8.8.8": "", "64:ff9b:1::8.8.8.8": "private",
		"64:ff9b:1:abcd::1": "private",
		// 6to4: IPv4 in bits 16-48.
		"2002:7f00:1::1": "loopback", "2002:a9fe:a9fe::": "link-local", "2002:c0a8:101:1::5": "private",
		"2002:808:808::1": "reserved", // 6to4 is a special-purpose range of its own
		// Teredo: server in bits 32-64, client is the last 32 bits inverted.
		"2001:0:4136:e378:8000:63bf:80ff:fffe": "loopback",      // client 127.0.0.1
		"2001:0:4136:e378:8000:63bf:5601:5601": "link-local",    // client 169.254.169.254... inverted
		"2001:0:a00:1:8000:63bf:f7f7:f7f7":     "private",       // server 10.0.0.1, client 8.8.8.8
		"2001:0:4136:e378:8000:63bf:3fff:fdd2": "documentation", // server 65.54.227.120, client 192.0.2.45
		"2001:0:4136:e378:8000:63bf:f7f7:f7f7": "reserved",      // public server and client: Teredo is in 2001::/23
		// ISATAP interface identifiers under a global prefix.
		"2606:4700::5efe:a9fe:a9fe": "link-local", "2606:4700::200:5efe:10.1.1.1": "private",
		"2606:4700::5efe:8.8.8.8": "",
	}
	for ip, want := range cases {
		if got := ForbiddenAddress(mustAddr(t, ip)); got != want {
			t.Errorf("%s: %q, want %q", ip, got, want)
		}
	}
}

// TestDialerRefusesEmbeddedIPv4 checks that IPv6 literals embedding a non-public IPv4 address
// are refused before any connection, with the message given for the IPv4 address itself.
func TestDialerRefusesEmbeddedIPv4(t *testing.T) {
	t.Parallel()
	const allow = " address (set CONSENTD_SCAN_ALLOW_PRIVATE=true to allow)"
	cases := map[string]string{
		"[::ffff:127.0.0.1]:80":                     "refused to scan ::ffff:127.0.0.1: loopback" + allow,
		"[::127.0.0.1]:80":                          "refused to scan ::127.0.0.1: loopback" + allow,
		"[64:ff9b::a9fe:a9fe]:80":                   "refused to scan 64:ff9b::a9fe:a9fe: link-local" + allow,
		"[64:ff9b:1::a00:1]:443":                    "refused to scan 64:ff9b:1::a00:1: private" + allow,
		"[2002:a00:1::1]:80":                        "refused to scan 2002:a00:1::1: private" + allow,
		"[2001:0:4136:e378:8000:63bf:80ff:fffe]:80": "refused to scan 2001:0:4136:e378:8000:63bf:80ff:fffe: loopback" + allow,
		"[2606:4700::5efe:7f00:1]:80":               "refused to scan 2606:4700::5efe:7f00:1: loopback" + allow,
		"[fd00::1]:80":                              "refused to scan fd00::1: private" + allow,
		"[2001:db8::1]:80":                          "refused to scan 2001:db8::1: documentation" + allow,
		// IPv4 literals in the forms URL parsers and inet_aton read.
		"2130706433:80":  "refused to scan 2130706433: loopback" + allow,
		"0177.0.0.1:80":  "refused to scan 0177.0.0.1: loopback" + allow,
		"0x7f.1:80":      "refused to scan 0x7f.1: loopback" + allow,
		"1681915905:443": "refused to scan 1681915905: private" + allow,
	}
	for addr, want := range cases {
		dialed := 0
		h := Hooks{
			Resolve: func(context.Context, string) ([]netip.Addr, error) { t.Fatal("resolved a literal"); return nil, nil },
			Connect: func(context.Context, string, string) (net.Conn, error) { dialed++; return nil, syscall.ECONNREFUSED },
		}
		_, err := h.Dialer(false, nil)(context.Background(), "tcp", addr)
		if dialed != 0 || err == nil || err.Error() != want {
			t.Errorf("%s: dialed %d times, err %v, want %q", addr, dialed, err, want)
		}
		var refused *RefusedError
		if !errors.As(err, &refused) {
			t.Errorf("%s: err %T, want a *RefusedError", addr, err)
		}
	}
	// A resolver answering an embedded form is refused the same way.
	h := Hooks{
		Resolve: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{mustAddr(t, "64:ff9b::a9fe:a9fe")}, nil
		},
		Connect: func(context.Context, string, string) (net.Conn, error) {
			t.Error("dialed")
			return nil, syscall.ECONNREFUSED
		},
	}
	_, err := h.Dialer(false, nil)(context.Background(), "tcp", "metadata.example:80")
	if err == nil || err.Error() != "refused to scan metadata.example (64:ff9b::a9fe:a9fe): link-local"+allow {
		t.Errorf("resolved NAT64 address: err %v", err)
	}
}

func TestDialerChecksEveryAnswer(t *testing.T) {
	t.Parallel()
	var dialed []string
	h := Hooks{
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			return []netip.Addr{mustAddr(t, "10.0.0.1"), mustAddr(t, "9.9.9.9")}, nil
		},
		Connect: func(_ context.Context, _, addr string) (net.Conn, error) {
			dialed = append(dialed, addr)
			return nil, syscall.ECONNREFUSED
		},
	}
	_, err := h.Dialer(false, nil)(context.Background(), "tcp", "rebind.example:80")
	if fmt.Sprint(dialed) != "[9.9.9.9:80]" {
		t.Errorf("dialed %v, want only the public address", dialed)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("err = %v", err)
	}
	dialed = nil
	h.Resolve = func(context.Context, string) ([]netip.Addr, error) { return []netip.Addr{mustAddr(t, "10.0.0.1")}, nil }
	_, err = h.Dialer(false, nil)(context.Background(), "tcp", "rebind.example:80")
	if len(dialed) != 0 || err == nil || err.Error() != "refused to scan rebind.example (10.0.0.1): private address (set CONSENTD_SCAN_ALLOW_PRIVATE=true to allow)" {
		t.Errorf("dialed %v, err %v", dialed, err)
	}
}

func mustAddr(t testing.TB, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
