package netguard

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestMessage: the owner reads why a request failed in plain words, without this machine's
// resolver address or Go's wrapping.
func TestMessage(t *testing.T) {
	dns := &url.Error{Op: "Get", URL: "https://cdn.widget.example/e.js", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "cdn.widget.example", Server: "10.255.255.53:53", IsNotFound: true}}}
	refused := &url.Error{Op: "Get", URL: "http://localhost:1/", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}
	for _, c := range []struct {
		err         error
		want, never string
	}{
		{dns, "its host cdn.widget.example does not resolve (no such host)", "10.255.255.53"},
		{fmt.Errorf("fetch: %w", dns), "does not resolve", "10.255.255.53"},
		{refused, "its host refused the connection (connection refused)", "localhost:1"},
		{&url.Error{Op: "Get", URL: "https://x.example/", Err: fmt.Errorf("tls: handshake failure")}, "tls: handshake failure", "Get "},
	} {
		got := Message(c.err)
		if !strings.Contains(got, c.want) || strings.Contains(got, c.never) {
			t.Errorf("Message(%v) = %q, want %q and not %q", c.err, got, c.want, c.never)
		}
	}
}
