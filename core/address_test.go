package core_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/core/watch"
)

// ianaSpecial are the ranges of the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (as of 2025), multicast, IPv4 240/4 and the deprecated IPv6 site-local range, written out
// here again so that the test does not read the table it checks.
var ianaSpecial = []string{
	// IPv4 (iana-ipv4-special-registry) and multicast.
	"0.0.0.0/8", "0.0.0.0/32", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
	"172.16.0.0/12", "192.0.0.0/24", "192.0.0.0/29", "192.0.0.8/32", "192.0.0.9/32",
	"192.0.0.10/32", "192.0.0.170/32", "192.0.0.171/32", "192.0.2.0/24", "192.31.196.0/24",
	"192.52.193.0/24", "192.88.99.0/24", "192.168.0.0/16", "192.175.48.0/24", "198.18.0.0/15",
	"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
	// IPv6 (iana-ipv6-special-registry), multicast and site-local.
	"::/128", "::1/128", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64",
	"100:0:0:1::/64", "2001::/23", "2001::/32", "2001:1::1/128", "2001:1::2/128", "2001:1::3/128",
	"2001:2::/48", "2001:3::/32", "2001:4:112::/48", "2001:10::/28", "2001:20::/28", "2001:30::/28",
	"2001:db8::/32", "2002::/16", "2620:4f:8000::/48", "3fff::/20", "5f00::/16", "fc00::/7",
	"fe80::/10", "fec0::/10", "ff00::/8",
}

// lastAddr is the last address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// TestSpecialAddress: the first and the last address of every special-purpose range are
// refused, as are the neighbours' edges that are special themselves; public addresses, also
// right next to special ranges and inside the NAT64 prefix when they embed a public IPv4
// address, are not.
func TestSpecialAddress(t *testing.T) {
	t.Parallel()
	for _, s := range ianaSpecial {
		p := netip.MustParsePrefix(s)
		for _, a := range []netip.Addr{p.Masked().Addr(), lastAddr(p)} {
			if core.SpecialAddress(a) == "" {
				t.Errorf("%s (in %s) is taken for a public address", a, p)
			}
		}
	}
	public := []string{
		"8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "126.255.255.255", "128.0.0.0",
		"169.253.255.255", "172.15.255.255", "172.32.0.0", "191.255.255.255", "192.0.1.0",
		"192.0.3.0", "192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0",
		"223.255.255.255", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8",
		"2606:4700:4700::1111", "2a00:1450:4001::1", "2001:200::1", "2001:db9::1", "2003::1",
		"3ffe:ffff::1", "2001:4860:4860::8888",
	}
	for _, s := range public {
		if r := core.SpecialAddress(netip.MustParseAddr(s)); r != "" {
			t.Errorf("%s: %q, want a public address", s, r)
		}
	}
	// Reasons, where a person reads them.
	for s, want := range map[string]string{
		"127.0.0.1": "loopback", "10.0.0.1": "private", "100.64.0.1": "private", "224.0.0.1": "multicast",
		"255.255.255.255": "broadcast", "240.0.0.1": "reserved", "0.0.0.0": "unspecified", "198.18.0.1": "benchmarking",
		"192.0.2.1": "documentation", "::1": "loopback", "::": "unspecified", "fe80::1%eth0": "link-local",
		"ff02::1": "multicast", "fd00::1": "private", "::ffff:169.254.169.254": "link-local",
		"64:ff9b::a9fe:a9fe": "link-local", "2002:7f00:1::": "loopback", "2001:db8::1": "documentation",
	} {
		if got := core.SpecialAddress(netip.MustParseAddr(s)); got != want {
			t.Errorf("%s: %q, want %q", s, got, want)
		}
	}
}

// TestHostAddress: a host is read as an IP address in every form that URL parsers or
// inet_aton read as one.
func TestHostAddress(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"127.0.0.1": "127.0.0.1", "127.0.0.1.": "127.0.0.1", "2130706433": "127.0.0.1", "1681915905": "100.64.0.1",
		"0177.0.0.1": "127.0.0.1", "0x7f.1": "127.0.0.1", "0X7F.0.0.1": "127.0.0.1", "127.1": "127.0.0.1",
		"127.0.1": "127.0.0.1", "0x7f000001": "127.0.0.1", "017700000001": "127.0.0.1", "0": "0.0.0.0",
		"0x": "0.0.0.0", "4294967295": "255.255.255.255", "0xe0.1": "224.0.0.1", "169.254.43518": "169.254.169.254",
		"[::1]": "::1", "::1": "::1", "[::ffff:127.0.0.1]": "::ffff:127.0.0.1", "[::ffff:7f00:1]": "::ffff:127.0.0.1",
		"fe80::1%eth0": "fe80::1%eth0", "8.8.8.8": "8.8.8.8",
	} {
		ip, literal, err := core.HostAddress(host)
		if err != nil || !literal || ip.String() != want {
			t.Errorf("%s: %v %v %v, want %s", host, ip, literal, err, want)
		}
	}
	for _, host := range []string{"example.com", "hooks.example", "1e100.net", "0x7f.example", "localhost", "a.1b"} {
		if _, literal, err := core.HostAddress(host); literal || err != nil {
			t.Errorf("%s: literal %v, err %v, want a name", host, literal, err)
		}
	}
	for _, host := range []string{"1.2.3.4.5", "256.1.1.1", "1.2.3.256", "4294967296", "08.1.1.1", "0x1g.1", "1..1", "[127.0.0.1]"} {
		if _, _, err := core.HostAddress(host); err == nil {
			t.Errorf("%s: read without an error", host)
		}
	}
}

// TestWebhookURLAddressRule: an endpoint's URL naming a special-purpose address, in any
// literal form, is refused at creation and change with a validation error naming url, the
// rule deliveries follow; CONSENTD_WEBHOOK_ALLOW_PRIVATE allows them.
func TestWebhookURLAddressRule(t *testing.T) {
	t.Parallel()
	refused := []string{
		"http://100.64.0.1/", "http://224.0.0.1/", "http://255.255.255.255/", "http://240.0.0.1/", "http://0.0.0.0/",
		"http://192.0.0.170/", "http://198.18.0.1/", "http://192.0.2.1/", "http://127.0.0.1:8080/", "http://1681915905/",
		"http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/", "http://127.1/", "http://127.0.0.1./",
		"http://0xa9fea9fe/latest/meta-data", "http://[::1]/", "http://[::]/", "http://[::ffff:127.0.0.1]/",
		"http://[::ffff:a9fe:a9fe]/", "http://[64:ff9b::a00:1]/", "http://[64:ff9b:1::1]/", "http://[100::1]/",
		"http://[2001:db8::1]/", "http://[2001::1]/", "http://[2002:a00:1::1]/", "http://[fc00::1]/",
		"http://[fe80::1%25eth0]/", "http://[ff02::1]/", "http://[fec0::1]/", "http://localhost/", "http://api.localhost./",
		"http://１２７.0.0.1/", "http://1.2.3.4.5/",
	}
	allowed := []string{"https://hooks.example/in", "http://8.8.8.8/", "http://134744072/", "http://[2606:4700::1111]/", "http://[64:ff9b::808:808]/"}
	for _, allowPrivate := range []bool{false, true} {
		var n int
		m, err := usecases.New(usecases.Deps{Store: memstore.New(), Catalog: emptyCatalog(t), WebhookAllowPrivate: allowPrivate, Now: time.Now,
			NewID: func() string { n++; return fmt.Sprintf("00000000-0000-7000-8000-%012d", n) }})
		if err != nil {
			t.Fatal(err)
		}
		sys := core.WithActor(ctx, core.System("test"))
		org, err := m.Orgs.CreateOrganization(sys, "acme")
		if err != nil {
			t.Fatal(err)
		}
		ep, err := m.Webhooks.CreateEndpoint(sys, org.ID, watch.WebhookInput{URL: ptr("https://hooks.example/a"), Events: []string{event.EventConfigChanged}})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range refused {
			created, cerr := m.Webhooks.CreateEndpoint(sys, org.ID, watch.WebhookInput{URL: ptr(u), Events: []string{event.EventConfigChanged}})
			if cerr == nil {
				if err := m.Webhooks.DeleteEndpoint(sys, org.ID, created.ID); err != nil {
					t.Fatal(err)
				}
			}
			_, uerr := m.Webhooks.UpdateEndpoint(sys, org.ID, ep.ID, watch.WebhookInput{URL: ptr(u)})
			for op, err := range map[string]error{"create": cerr, "update": uerr} {
				alwaysRefused := strings.Contains(u, "１") || strings.Contains(u, "1.2.3.4.5")
				if !allowPrivate || alwaysRefused {
					if core.ErrorCode(err) != core.CodeInvalid || !strings.HasPrefix(core.ErrorMessage(err), "url: ") {
						t.Errorf("%s %s: %v, want a validation error naming url", op, u, err)
					}
				} else if err != nil {
					t.Errorf("%s %s with private addresses allowed: %v", op, u, err)
				}
			}
			if n, _ := m.Webhooks.Endpoints(sys, org.ID); !allowPrivate && len(n) != 1 {
				t.Fatalf("%s: %d endpoints after refusals", u, len(n))
			}
		}
		for _, u := range allowed {
			if _, err := m.Webhooks.UpdateEndpoint(sys, org.ID, ep.ID, watch.WebhookInput{URL: ptr(u)}); err != nil {
				t.Errorf("update to %s: %v", u, err)
			}
		}
	}
}
