package crawler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"time"
)

// refusedError is returned by the dialer for an address the scan may not reach.
type refusedError struct {
	host   string
	ip     netip.Addr
	reason string
}

func (e *refusedError) Error() string {
	target := e.ip.String()
	if e.host != "" && e.host != target {
		target = e.host + " (" + target + ")"
	}
	return fmt.Sprintf("refused to scan %s: %s address (set CONSENTD_SCAN_ALLOW_PRIVATE=true to allow)", target, e.reason)
}

var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT, RFC 6598

// forbiddenReason names why ip may not be dialled without AllowPrivate, or "".
func forbiddenReason(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip.IsPrivate(), sharedAddressSpace.Contains(ip):
		return "private"
	case ip.Is4() && ip.As4()[0] == 0: // 0.0.0.0/8 "this network"
		return "unspecified"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	return ""
}

// netHooks are the resolver and connector of a scan; tests replace them to route every host to a
// loopback replay server while the address check still runs on what the resolver answered.
type netHooks struct {
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	connect func(ctx context.Context, network, addr string) (net.Conn, error)
}

func defaultHooks(timeout time.Duration) netHooks {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	return netHooks{
		resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
		connect: d.DialContext,
	}
}

// dialer resolves the host itself and dials only addresses that pass the check, so the address
// checked is the address connected to (no second resolution an attacker's DNS could answer
// differently), for the first request and every redirect alike.
func (h netHooks) dialer(allowPrivate bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		var ips []netip.Addr
		if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
			ips = []netip.Addr{ip}
		} else if ips, err = h.resolve(ctx, host); err != nil {
			return nil, err
		}
		if len(ips) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
		var firstErr error
		for _, ip := range ips {
			if !allowPrivate {
				if reason := forbiddenReason(ip); reason != "" {
					if firstErr == nil {
						firstErr = &refusedError{host: host, ip: ip.Unmap(), reason: reason}
					}
					continue
				}
			}
			conn, err := h.connect(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			var re *refusedError
			if firstErr == nil || errors.As(firstErr, &re) {
				firstErr = err
			}
		}
		return nil, firstErr
	}
}

// isTemporaryNet classifies transport errors.
func isTemporaryNet(err error) bool {
	var refused *refusedError
	if errors.As(err, &refused) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return !dnsErr.IsNotFound
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return false
}
