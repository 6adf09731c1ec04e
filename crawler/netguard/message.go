package netguard

import (
	"errors"
	"net"
	"net/url"
	"syscall"
)

// Message turns a transport error into a short message for a site's owner, without Go's
// wrapping noise and without this machine's resolver or addresses: a refusal by the guard
// as it is, a host that does not resolve or refuses the connection in those words, anything
// else as the error under the URL.
func Message(err error) string {
	var refused *RefusedError
	if errors.As(err, &refused) {
		return refused.Error()
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		if dns.IsNotFound {
			return "its host " + dns.Name + " does not resolve (no such host)"
		}
		return "its host " + dns.Name + " could not be looked up"
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return "its host refused the connection (connection refused)"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}
