// Package trustedproxy is the one rule by which consentd's HTTP adapters believe what a reverse
// proxy says about a request: who the client is (Forwarded, X-Forwarded-For) and whether the
// client reached the proxy over HTTPS (Forwarded proto, X-Forwarded-Proto). A proxy's word
// counts only when the request's peer is one of the configured trusted proxies
// (CONSENTD_TRUSTED_PROXIES); from any other peer the headers are ignored, since a client can
// send them itself.
//
// It is a leaf under adapters/internal (stdlib and realclientip only) shared by the API and the
// console, so that neither adapter imports the other for it, and the two never disagree.
package trustedproxy

import (
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/realclientip/realclientip-go"
)

// Rule decides from a request's peer and its forwarding headers where it comes from. The zero
// value and a Rule of no proxies trust no header.
type Rule struct {
	trusted   []netip.Prefix
	forwarded realclientip.Strategy
}

// New returns the rule trusting the given proxies (none: every peer is the client).
func New(trusted []netip.Prefix) *Rule {
	r := &Rule{trusted: slices.Clone(trusted)}
	if len(trusted) == 0 {
		return r
	}
	nets := make([]net.IPNet, len(trusted))
	for i, p := range trusted {
		p = p.Masked()
		nets[i] = net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
	}
	r.forwarded = realclientip.NewChainStrategy(
		realclientip.Must(realclientip.NewRightmostTrustedRangeStrategy("Forwarded", nets)),
		realclientip.Must(realclientip.NewRightmostTrustedRangeStrategy("X-Forwarded-For", nets)),
	)
	return r
}

// ClientIP is the request's client address: its peer's, or, when the peer is a trusted proxy,
// the address the proxy names in Forwarded or X-Forwarded-For (the rightmost one not itself
// trusted, since anything left of it may be forged by the client). The API's rate limits and
// logs and the console's sign-in limit all count clients by this one rule.
func (rule *Rule) ClientIP(r *http.Request) string {
	peer := peerAddr(r)
	if !rule.fromProxy(peer) {
		return peer
	}
	if ip := rule.forwarded.ClientIP(r.Header, r.RemoteAddr); ip != "" {
		return ip
	}
	return peer
}

// HTTPS reports whether the client reached consentd over HTTPS: the connection itself is TLS,
// or the peer is a trusted proxy that says so, in the proto parameter of the last element of
// Forwarded (RFC 7239) or else in the last value of X-Forwarded-Proto (the one the nearest
// proxy wrote). An untrusted peer's headers never count.
func (rule *Rule) HTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if !rule.fromProxy(peerAddr(r)) {
		return false
	}
	if proto, ok := forwardedProto(r.Header.Values("Forwarded")); ok {
		return strings.EqualFold(proto, "https")
	}
	return strings.EqualFold(lastValue(r.Header.Values("X-Forwarded-Proto")), "https")
}

// BaseURL is the scheme and host the client used: https when HTTPS says so, the request's
// Host header as the host.
func (rule *Rule) BaseURL(r *http.Request) string {
	if rule.HTTPS(r) {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// fromProxy reports whether peer is a trusted proxy.
func (rule *Rule) fromProxy(peer string) bool {
	if rule == nil || len(rule.trusted) == 0 {
		return false
	}
	a, err := netip.ParseAddr(peer)
	if err != nil {
		return false
	}
	a = a.Unmap().WithZone("")
	return slices.ContainsFunc(rule.trusted, func(p netip.Prefix) bool { return p.Contains(a) })
}

// forwardedProto is the proto parameter of the last element of the Forwarded header lines,
// and whether that element has one.
func forwardedProto(lines []string) (string, bool) {
	last := lastValue(lines)
	if last == "" {
		return "", false
	}
	for pair := range strings.SplitSeq(last, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "proto") {
			return strings.Trim(strings.TrimSpace(v), `"`), true
		}
	}
	return "", false
}

// lastValue is the last comma-separated value of a header's lines, trimmed.
func lastValue(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	l := lines[len(lines)-1]
	if i := strings.LastIndexByte(l, ','); i >= 0 {
		l = l[i+1:]
	}
	return strings.TrimSpace(l)
}

// peerAddr is the address of the request's peer: the client, or the proxy in front of it.
func peerAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
