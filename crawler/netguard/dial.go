package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"time"

	"github.com/consentd/consentd/core"
)

// Hooks are the resolver and connector of a dialer; tests replace them to route every host to a
// loopback replay server while the address check still runs on what the resolver answered.
type Hooks struct {
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	Connect func(ctx context.Context, network, addr string) (net.Conn, error)
}

// DefaultHooks resolve with the system resolver and connect with a net.Dialer of the given
// timeout.
func DefaultHooks(timeout time.Duration) Hooks {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	return Hooks{
		Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
		Connect: d.DialContext,
	}
}

// Dialer returns a DialContext that resolves the host itself and dials only addresses that pass the check, so the address
// checked is the address connected to (no second resolution an attacker's DNS could answer
// differently), for the first request and every redirect alike.
// Connect-to rules are applied first: the check is on where the connection really goes.
func (h Hooks) Dialer(allowPrivate bool, rules []ConnectTo) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		host, port = route(rules, host, port)
		var ips []netip.Addr
		literal := false
		if ip, lit, err := core.HostAddress(host); err != nil {
			return nil, err
		} else if lit {
			ips, literal = []netip.Addr{ip}, true
		} else if ips, err = h.Resolve(ctx, host); err != nil {
			return nil, err
		}
		if len(ips) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
		var firstErr error
		for _, ip := range ips {
			if !allowPrivate {
				if reason := ForbiddenAddress(ip); reason != "" {
					if firstErr == nil {
						firstErr = &RefusedError{Host: host, IP: ip.Unmap(), Reason: reason, Literal: literal}
					}
					continue
				}
			}
			conn, err := h.Connect(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			var re *RefusedError
			if firstErr == nil || errors.As(firstErr, &re) {
				firstErr = err
			}
		}
		return nil, firstErr
	}
}
