package netguard

import (
	"fmt"
	"net/netip"

	"github.com/consentd/consentd/core"
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

// ForbiddenAddress names why ip is not a public address (loopback, private, link-local,
// reserved…), or "" when it is one: the one address rule of outbound connections,
// core.SpecialAddress, which webhook deliveries and the webhook endpoints' validation obey
// too.
func ForbiddenAddress(ip netip.Addr) string { return core.SpecialAddress(ip) }
