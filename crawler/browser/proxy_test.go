package browser

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestProxyCountsATunnelBeingOpenedAsBusy: from a CONNECT until its TLS handshake ends, the
// page's network is not quiet. A late tag's script on a host the page had not used yet opens
// its tunnel first; were the handshake not counted, a loaded machine could end the page's quiet
// wait before the script's request was made, and the scan would miss the script.
func TestProxyCountsATunnelBeingOpenedAsBusy(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	br := &Browser{key: key}
	p, err := br.NewProxy(http.DefaultTransport.(*http.Transport).Clone(), NewBudget(0), 10)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.Addr(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("CONNECT static.late.example:443 HTTP/1.1\r\nHost: static.late.example:443\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("CONNECT answered %q, %v", status, err)
	}
	// The tunnel is open and its handshake not begun: a page waiting for quiet waits.
	time.Sleep(50 * time.Millisecond)
	if p.Quiet(0) {
		t.Fatal("the proxy counts the network quiet while a tunnel's handshake is pending")
	}
	// The browser gives up on the tunnel: the handshake fails, and the network goes quiet.
	conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !p.Quiet(0) {
		if time.Now().After(deadline) {
			t.Fatal("the network never went quiet after the tunnel closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
