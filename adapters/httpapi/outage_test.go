package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
)

// sqliteCode is a SQLite error as modernc's driver reports it: an extended result code.
type sqliteCode int

func (c sqliteCode) Error() string { return fmt.Sprintf("sqlite error (%d)", int(c)) }
func (c sqliteCode) Code() int     { return int(c) }

const (
	sqliteIOErrWrite = 10 | 3<<8 // SQLITE_IOERR_WRITE
	sqliteReadOnly   = 8         // SQLITE_READONLY
	sqliteFull       = 13        // SQLITE_FULL
)

// TestStoreOutageSQLite: the SQLite file fails every read and write (an I/O error, from the
// store's fault layer) under 16 concurrent consent posts: see testStoreOutage.
func TestStoreOutageSQLite(t *testing.T) {
	faults := &bunstore.Faults{}
	e := newEnvStore(t, "sqlite://"+filepath.Join(t.TempDir(), "api.db"), []byte("/* runtime */"), nil, bunstore.WithFaults(faults))
	testStoreOutage(t, e, func() { faults.Fail(sqliteCode(sqliteIOErrWrite)) }, func() { faults.Fail(nil) })
}

// TestStoreOutagePostgres: the connection between consentd and Postgres is cut (a TCP proxy
// in between closes every connection and refuses new ones) under 16 concurrent consent posts,
// then restored: see testStoreOutage.
func TestStoreOutagePostgres(t *testing.T) {
	u, err := url.Parse(pgtest.FreshURL(t))
	if err != nil {
		t.Fatal(err)
	}
	p := newFaultProxy(t, u.Host)
	u.Host = p.addr()
	e := newEnvStore(t, u.String(), []byte("/* runtime */"), nil)
	testStoreOutage(t, e, p.cut, p.restore)
}

// testStoreOutage posts consent decisions from 16 clients while down takes the store away for
// a second and up brings it back. While it is down, every answer (consent posts, the management
// API, /readyz) is 503 with Retry-After and code unavailable; consent posts are answered 201
// again within 2 s of its return; every decision answered 201 is stored.
func testStoreOutage(t *testing.T, e *env, down, up func()) {
	siteID, pk := e.site()
	post := "/api/v1/public/" + pk + "/consent"

	var (
		mu        sync.Mutex
		acked     = map[string]bool{}
		phase     atomic.Int32 // 0 before the outage, 1 down, 2 back up
		bad       []string
		refused   int // consent posts answered 503 while the store was down
		upAt      time.Time
		firstBack time.Time
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 30 * time.Second}
	for w := range 16 {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				visitor := fmt.Sprintf("w%d-%d", w, n)
				before := phase.Load()
				status, retry, code := postConsent(client, e.srv.URL+post, visitor)
				after := phase.Load()
				mu.Lock()
				switch {
				case status == http.StatusCreated:
					acked[visitor] = true
					if before == 2 && firstBack.IsZero() {
						firstBack = time.Now()
					}
				case before == 1 && after == 1 && (status != http.StatusServiceUnavailable || retry == "" || code != "unavailable"):
					bad = append(bad, fmt.Sprintf("%s while down: %d Retry-After %q code %q", visitor, status, retry, code))
				case before == 1 && after == 1:
					refused++
				case status != http.StatusServiceUnavailable:
					bad = append(bad, fmt.Sprintf("%s: %d code %q", visitor, status, code))
				}
				mu.Unlock()
				if status != http.StatusCreated {
					time.Sleep(20 * time.Millisecond) // a client honouring Retry-After waits longer
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	down()
	phase.Store(1)
	time.Sleep(500 * time.Millisecond)
	// Every other route answers alike while the store is down.
	for _, r := range []resp{
		e.do("GET", "/api/v1/sites/"+siteID, nil),
		e.do("GET", "/api/v1/sites/"+siteID+"/consent-records", nil),
		e.raw("GET", "/readyz", "", ""),
	} {
		e.want(r, http.StatusServiceUnavailable, "unavailable")
		if r.header.Get("Retry-After") == "" {
			t.Errorf("503 without Retry-After: %s", r.body)
		}
	}
	// The banner's configuration is served from the process's cache while it lasts (a banner
	// keeps working through a short outage); past it, it is 503 as well.
	if r := e.raw("GET", "/api/v1/public/"+pk+"/config", "", ""); r.status != http.StatusOK {
		e.want(r, http.StatusServiceUnavailable, "unavailable")
	}
	time.Sleep(500 * time.Millisecond)
	mu.Lock()
	upAt = time.Now()
	mu.Unlock()
	up()
	phase.Store(2)
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		back := firstBack
		mu.Unlock()
		if !back.IsZero() || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()

	for i, b := range bad {
		if i == 10 {
			t.Errorf("... and %d more", len(bad)-10)
			break
		}
		t.Error(b)
	}
	if firstBack.IsZero() {
		t.Fatal("no consent post answered 201 within 10 s of the store's return")
	}
	if d := firstBack.Sub(upAt); d > 2*time.Second {
		t.Errorf("the first 201 came %v after the store's return, want within 2 s", d)
	}
	if refused == 0 {
		t.Error("no consent post was answered while the store was down")
	}
	e.want(e.raw("GET", "/readyz", "", ""), http.StatusOK)

	// Nothing acknowledged is lost.
	var stored []string
	if err := e.store.DB().NewSelect().Table("consent_records").Column("visitor_id").
		Where("site_id = ?", siteID).Scan(context.Background(), &stored); err != nil {
		t.Fatal(err)
	}
	have := map[string]int{}
	for _, v := range stored {
		have[v]++
	}
	lost := 0
	for v := range acked {
		if have[v] == 0 {
			lost++
		}
	}
	if lost > 0 || len(acked) == 0 {
		t.Errorf("%d of %d acknowledged decisions are not stored", lost, len(acked))
	}
	t.Logf("%d decisions acknowledged, %d stored, %d answered 503 while the store was down; first 201 %v after its return",
		len(acked), len(stored), refused, firstBack.Sub(upAt))
}

// postConsent posts a decision and returns the status, Retry-After and error code.
func postConsent(c *http.Client, u, visitor string) (status int, retryAfter, code string) {
	body := `{"visitorId":"` + visitor + `","consentVersion":1,"categories":{"statistics":true}}`
	res, err := c.Post(u, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, "", err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var eb struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(b, &eb)
	return res.StatusCode, res.Header.Get("Retry-After"), eb.Error.Code
}

// faultProxy forwards TCP connections to a server until cut, which closes every connection
// and refuses new ones (accepts and closes them at once) until restore.
type faultProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
}

func newFaultProxy(t *testing.T, target string) *faultProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *faultProxy) addr() string { return p.ln.Addr().String() }

func (p *faultProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		go p.forward(c)
	}
}

func (p *faultProxy) forward(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	p.conns[c], p.conns[s] = struct{}{}, struct{}{}
	p.mu.Unlock()
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		dst.Close()
		src.Close()
	}
	go pipe(s, c)
	pipe(c, s)
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, s)
	p.mu.Unlock()
}

// cut closes every connection and refuses new ones.
func (p *faultProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// restore accepts connections again.
func (p *faultProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}
