package main

import (
	"io"
	"net/http"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	corescan "github.com/consentd/consentd/core/scan"
)

// slowBody is a request body that arrives in pieces, the last one after SIGTERM was sent.
type slowBody struct {
	parts [][]byte
	pause time.Duration
	sent  chan struct{} // closed once the first part is out
}

func (b *slowBody) Read(p []byte) (int, error) {
	if len(b.parts) == 0 {
		return 0, io.EOF
	}
	if b.sent == nil {
		time.Sleep(b.pause)
	}
	n := copy(p, b.parts[0])
	b.parts = b.parts[1:]
	if b.sent != nil {
		close(b.sent)
		b.sent = nil
	}
	return n, nil
}

// TestServeGracefulShutdown sends SIGTERM to 'consentd serve' while a request is still
// arriving and a scan is running: the request is answered, the scan completes, and the
// process exits 0.
func TestServeGracefulShutdown(t *testing.T) {
	t.Parallel()
	db := "sqlite://" + filepath.Join(t.TempDir(), "consentd.db")
	tg := newTarget(t, 3*time.Second)
	p := startServe(t, db)
	site, s := p.startSlowScan(t, tg)

	body := &slowBody{parts: [][]byte{[]byte(`{"name":"Second",`), []byte(`"url":"https://second.example"}`)},
		pause: 2 * time.Second, sent: make(chan struct{})}
	first := body.sent
	req, _ := http.NewRequest("POST", p.base+"/sites", body)
	req.Header.Set("Authorization", "Bearer "+serveKey)
	req.Header.Set("Content-Type", "application/json")
	answered := make(chan int, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("slow request: %v", err)
			answered <- 0
			return
		}
		res.Body.Close()
		answered <- res.StatusCode
	}()
	<-first
	time.Sleep(200 * time.Millisecond) // the request is inside the server, its body half read
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := <-answered; code != http.StatusCreated {
		t.Fatalf("request in flight at SIGTERM answered %d, want 201", code)
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM, want 0\n%s", err, p.log.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve still running 30s after SIGTERM")
	}

	p2 := startServe(t, db)
	var got corescan.Scan
	p2.call(t, "GET", "/sites/"+site.ID+"/scans/"+s.ID, "", &got)
	if got.Status != corescan.ScanCompleted {
		t.Fatalf("scan running at SIGTERM is %s after a graceful stop, want completed", got.Status)
	}
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if h := tg.hits["/slow/"]; h != 1 {
		t.Fatalf("page fetched %d times: the scan was not finished by the stopping process", h)
	}
}
