package browser

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/consentd/consentd/crawler/netguard"
)

// The browser's only way out is a Proxy: an HTTP proxy on loopback, one per page, that
// the page's browser context is created with. It forwards each request through the scan's
// transport, whose dialer applies the address guard (netguard) (after DNS, for every redirect hop the
// browser follows, since each hop is a new request) and the connect-to rules, and whose TLS
// configuration trusts the system roots plus the scan's extra CA. HTTPS is terminated at the
// proxy (CONNECT, then TLS with a certificate signed by the browser's own key, which that
// browser alone was started trusting), so every request is seen, counted and recorded.

// MaxScriptBody bounds the script text kept per response for fingerprinting.
const MaxScriptBody = 2 << 20

// Budget is the byte budget of one scan, shared by its pages' proxies.
type Budget struct {
	limit int64 // 0: none
	used  atomic.Int64
	hit   atomic.Bool
}

// NewBudget returns a budget of limit bytes, or none when limit is 0.
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// Limit is the budget in bytes, 0 for none.
func (b *Budget) Limit() int64 { return b.limit }

// Hit reports whether a request was refused or cut because the budget was used up.
func (b *Budget) Hit() bool { return b.hit.Load() }

func (b *Budget) exceeded() bool { return b.limit > 0 && b.used.Load() >= b.limit }

// Record is one request a Proxy handled.
type Record struct {
	URL         string
	Status      int
	Bytes       int64
	ContentType string
	Dest        string // Sec-Fetch-Dest
	Body        []byte // script text, when it is a script of at most MaxScriptBody
	Err         string // why it was not loaded, or was cut
	Refused     bool   // the address guard refused it
	// Unreachable is true when the request went out and no answer came: the host does not
	// resolve, the connection was refused or reset, the server did not answer in time.
	Unreachable bool
}

// Proxy serves one page's browser context.
type Proxy struct {
	ln         net.Listener
	srv        *http.Server
	inner      *http.Server
	conns      chan net.Conn
	tr         *http.Transport
	br         *Browser
	budget     *Budget
	maxRecords int

	// Rewrite, when set (before the browser uses the proxy), sees each request before it is
	// forwarded: it may change its headers, or answer it here by returning a response, which
	// never reaches the network and is recorded as any other.
	Rewrite func(r *http.Request) *LocalResponse

	inflight atomic.Int64
	last     atomic.Int64 // unix nanoseconds of the last activity

	mu      sync.Mutex
	records []Record
	closed  bool
	done    chan struct{}
}

// LocalResponse is an answer a proxy gives without forwarding (Proxy.Rewrite).
type LocalResponse struct {
	Status      int
	ContentType string
	Body        []byte
}

// NewProxy starts a proxy for one page of br: it forwards through tr, counts against budget and
// keeps at most maxRecords records.
func (br *Browser) NewProxy(tr *http.Transport, budget *Budget, maxRecords int) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, tr: tr, br: br, budget: budget, maxRecords: maxRecords, conns: make(chan net.Conn), done: make(chan struct{})}
	p.Touch()
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	p.inner = &http.Server{Handler: http.HandlerFunc(p.serveTLS), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	go func() { _ = p.inner.Serve(&chanListener{p: p}) }()
	return p, nil
}

// Addr is the proxy's address for the browser context.
func (p *Proxy) Addr() string { return "http://" + p.ln.Addr().String() }

// Close stops the proxy.
func (p *Proxy) Close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.done)
	}
	p.mu.Unlock()
	_ = p.srv.Close()
	_ = p.inner.Close()
}

// Touch counts as network activity now: what the page does next is waited for.
func (p *Proxy) Touch() { p.last.Store(time.Now().UnixNano()) }

// Quiet reports whether no request is in flight and none ended within d.
func (p *Proxy) Quiet(d time.Duration) bool {
	return p.inflight.Load() == 0 && time.Since(time.Unix(0, p.last.Load())) >= d
}

// Records are the requests handled so far.
func (p *Proxy) Records() []Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Record(nil), p.records...)
}

func (p *Proxy) record(r Record) {
	p.mu.Lock()
	if len(p.records) < p.maxRecords {
		p.records = append(p.records, r)
	}
	p.mu.Unlock()
}

// ServeHTTP handles the browser's proxy requests: CONNECT for HTTPS, absolute-form for HTTP.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Scheme != "http" {
		http.Error(w, "consentd proxy: absolute http URL expected", http.StatusBadRequest)
		return
	}
	p.forward(w, r, r.URL.String())
}

// handshakeWithin bounds a tunnel's TLS handshake with the browser.
const handshakeWithin = 10 * time.Second

// connect terminates the browser's TLS with a certificate for the requested host and hands the
// connection to the inner server, which sees the requests inside. From the CONNECT to the end
// of the handshake the network counts as busy: a script that a late tag inserts on a host the
// page had not used yet opens its tunnel first, and on a loaded machine the handshake can take
// longer than the quiet a page is given after its clock was run forward (Settle), which would
// end the page before its request was made.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	p.inflight.Add(1)
	defer func() { p.Touch(); p.inflight.Add(-1) }()
	p.Touch()
	host := r.Host
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "consentd proxy: cannot take over the connection", http.StatusInternalServerError)
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		conn.Close()
		return
	}
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		name = host
	}
	tconn := tls.Server(conn, &tls.Config{
		NextProtos: []string{"http/1.1"},
		MinVersion: tls.VersionTLS12,
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			n := hello.ServerName
			if n == "" {
				n = name
			}
			return p.br.certificate(n)
		},
	})
	_ = conn.SetDeadline(time.Now().Add(handshakeWithin))
	if err := tconn.Handshake(); err != nil {
		conn.Close()
		return
	}
	_ = conn.SetDeadline(time.Time{}) // the inner server sets its own
	select {
	case p.conns <- tconn:
	case <-p.done:
		conn.Close()
	}
}

// serveTLS handles a request that arrived inside a CONNECT tunnel.
func (p *Proxy) serveTLS(w http.ResponseWriter, r *http.Request) {
	p.forward(w, r, "https://"+r.Host+r.URL.RequestURI())
}

// hopHeaders are not forwarded (RFC 9110, 7.6.1), nor are the proxy's own.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, target string) {
	p.inflight.Add(1)
	defer func() { p.Touch(); p.inflight.Add(-1) }()
	p.Touch()
	rec := Record{URL: target, Dest: r.Header.Get("Sec-Fetch-Dest")}
	if p.budget.exceeded() {
		p.budget.hit.Store(true)
		rec.Err = fmt.Sprintf("not loaded: the scan's download budget of %d bytes was used up", p.budget.limit)
		p.record(rec)
		http.Error(w, "consentd: scan budget used up", http.StatusServiceUnavailable)
		return
	}
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		rec.Err = "not loaded: WebSocket connections are not proxied"
		p.record(rec)
		http.Error(w, "consentd: websockets are not proxied", http.StatusNotImplemented)
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target, r.Body)
	if err != nil {
		rec.Err = "not loaded: " + err.Error()
		p.record(rec)
		http.Error(w, "consentd: bad request", http.StatusBadRequest)
		return
	}
	out.ContentLength = r.ContentLength
	for k, vs := range r.Header {
		out.Header[k] = vs
	}
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	// The transport asks for gzip itself and decompresses, so script bodies can be read.
	out.Header.Del("Accept-Encoding")
	if p.Rewrite != nil {
		if lr := p.Rewrite(out); lr != nil {
			rec.Status, rec.ContentType, rec.Bytes = lr.Status, lr.ContentType, int64(len(lr.Body))
			p.record(rec)
			// A page's cross-origin fetch reads the answer only with CORS allowed, as the
			// server it stands in for allows it.
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Content-Type", lr.ContentType)
			w.WriteHeader(lr.Status)
			_, _ = w.Write(lr.Body)
			return
		}
	}
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		var refused *netguard.RefusedError
		rec.Refused = errors.As(err, &refused)
		rec.Unreachable = !rec.Refused
		rec.Err = netguard.Message(err)
		p.record(rec)
		http.Error(w, "consentd: "+rec.Err, http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	rec.Status, rec.ContentType = resp.StatusCode, resp.Header.Get("Content-Type")
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	for _, h := range hopHeaders {
		w.Header().Del(h)
	}
	if resp.Uncompressed {
		w.Header().Del("Content-Length")
		w.Header().Del("Content-Encoding")
	}
	w.WriteHeader(resp.StatusCode)
	keep := isScriptResponse(rec.Dest, rec.ContentType)
	var kept []byte
	buf := make([]byte, 32<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			rec.Bytes += int64(n)
			p.budget.used.Add(int64(n))
			p.Touch()
			if keep && len(kept)+n <= MaxScriptBody {
				kept = append(kept, buf[:n]...)
			} else if keep {
				keep, kept = false, nil
			}
			if _, werr := w.Write(buf[:n]); werr != nil {
				break
			}
			if p.budget.exceeded() {
				p.budget.hit.Store(true)
				rec.Err = fmt.Sprintf("cut: the scan's download budget of %d bytes was used up", p.budget.limit)
				keep, kept = false, nil
				break
			}
		}
		if rerr != nil {
			break
		}
	}
	if keep {
		rec.Body = kept
	}
	p.record(rec)
}

// isScriptResponse reports whether a response is script text worth fingerprinting.
func isScriptResponse(dest, ctype string) bool {
	if dest == "script" {
		return true
	}
	ct := strings.ToLower(ctype)
	return strings.Contains(ct, "javascript") || strings.Contains(ct, "ecmascript")
}

// chanListener hands the proxy's TLS connections to its inner server.
type chanListener struct{ p *Proxy }

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.p.conns:
		return c, nil
	case <-l.p.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error   { return nil }
func (l *chanListener) Addr() net.Addr { return l.p.ln.Addr() }

// certificate returns the browser's certificate for host: self-signed with the browser's key,
// whose SPKI the browser was started trusting (--ignore-certificate-errors-spki-list).
func (br *Browser) certificate(host string) (*tls.Certificate, error) {
	if c, ok := br.certs.Load(host); ok {
		return c.(*tls.Certificate), nil
	}
	serial, err := randSerial()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host, Organization: []string{"consentd scan proxy"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &br.key.PublicKey, br.key)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: br.key}
	actual, _ := br.certs.LoadOrStore(host, c)
	return actual.(*tls.Certificate), nil
}

func randSerial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
}
