package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	corescan "github.com/consentd/consentd/core/scan"
)

const serveKey = "cd_serve-test-key-0123456789"

// serveProc is a 'consentd serve' process.
type serveProc struct {
	cmd  *exec.Cmd
	done chan error
	base string
	mu   sync.Mutex
	log  strings.Builder
}

var listeningAddr = regexp.MustCompile(`"msg":"consentd listening","addr":"([^"]+)"`)

// startServe runs 'consentd serve' on databaseURL on a free loopback port and waits until it
// listens. It is stopped with SIGTERM when t ends, unless the test killed it.
func startServe(t *testing.T, databaseURL string, env ...string) *serveProc {
	t.Helper()
	p := &serveProc{cmd: exec.Command(cli(t), "serve"), done: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), append([]string{
		"CONSENTD_DATABASE_URL=" + databaseURL, "CONSENTD_ADDR=127.0.0.1:0", "CONSENTD_WORKERS=2",
		"CONSENTD_SCAN_ALLOW_PRIVATE=true", "CONSENTD_BOOTSTRAP_API_KEY=" + serveKey,
		// These tests count page fetches; a deep scan fetches each page twice (the static
		// pass, then the browser).
		"CONSENTD_SCAN_MODE=static",
	}, env...)...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := listeningAddr.FindStringSubmatch(sc.Text()); m != nil {
				ready <- m[1]
			}
		}
		p.done <- p.cmd.Wait()
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(30 * time.Second):
				p.cmd.Process.Kill()
			}
		}
		if t.Failed() {
			p.mu.Lock()
			t.Logf("serve %d log:\n%s", p.cmd.Process.Pid, p.log.String())
			p.mu.Unlock()
		}
	})
	select {
	case addr := <-ready:
		p.base = "http://" + addr + "/api/v1"
	case err := <-p.done:
		t.Fatalf("serve exited: %v\n%s", err, p.log.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve not listening after 30s")
	}
	return p
}

// call sends a request with the test key and decodes the JSON answer into out.
func (p *serveProc) call(t *testing.T, method, path, body string, out any) {
	t.Helper()
	req, err := http.NewRequest(method, p.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+serveKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d", method, path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// startSlowScan creates a site on tg's slow page and starts its scan, and returns once the
// scan's first request has reached tg.
func (p *serveProc) startSlowScan(t *testing.T, tg *target) (site struct{ ID string }, s corescan.Scan) {
	t.Helper()
	p.call(t, "POST", "/sites", fmt.Sprintf(`{"name":"Shop","url":%q}`, tg.URL+"/slow/"), &site)
	p.call(t, "POST", "/sites/"+site.ID+"/scan", "", &s)
	// Wait for the page itself: the crawler may ask for other paths first (a sitemap, say),
	// and a process killed before it reached the page has not fetched it.
	deadline := time.After(30 * time.Second)
	for {
		select {
		case path := <-tg.started:
			if path == "/slow/" {
				return site, s
			}
		case <-deadline:
			t.Fatal("the scan did not reach /slow/")
		}
	}
}

// awaitScan polls the scan until it completed, and fails the test if it failed or took more
// than within since from.
func (p *serveProc) awaitScan(t *testing.T, siteID, scanID string, from time.Time, within time.Duration) {
	t.Helper()
	for {
		var got corescan.Scan
		p.call(t, "GET", "/sites/"+siteID+"/scans/"+scanID, "", &got)
		if got.Status == corescan.ScanCompleted {
			t.Logf("scan completed %s after %s", time.Since(from).Round(100*time.Millisecond), from.Format(time.TimeOnly))
			return
		}
		if got.Status == corescan.ScanFailed || time.Since(from) > within {
			t.Fatalf("scan %s %v %s after %s; want completed within %s", got.Status, got.ErrorMessage, time.Since(from), from.Format(time.TimeOnly), within)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestServeReclaimsDeadScanOnSQLite: a scan running when 'consentd serve' was killed is
// worked again within seconds of the next start on the embedded store, not after the rescue
// delay (here the default: scan timeout plus a minute).
func TestServeReclaimsDeadScanOnSQLite(t *testing.T) {
	t.Parallel()
	db := "sqlite://" + filepath.Join(t.TempDir(), "consentd.db")
	tg := newTarget(t, 3*time.Second)
	p1 := startServe(t, db)
	site, s := p1.startSlowScan(t, tg)
	var before corescan.Scan
	p1.call(t, "GET", "/sites/"+site.ID+"/scans/"+s.ID, "", &before)
	if before.Status != corescan.ScanRunning {
		t.Fatalf("scan before the kill: %s, want running", before.Status)
	}
	if err := p1.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p1.done
	restarted := time.Now()
	p2 := startServe(t, db)
	p2.awaitScan(t, site.ID, s.ID, restarted, 30*time.Second)
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if h := tg.hits["/slow/"]; h != 2 {
		t.Fatalf("page fetched %d times, want 2 (the killed attempt and the reclaimed one)", h)
	}
}

// TestSecondServeOnSQLiteRefused: a second 'consentd serve' on the SQLite file a live one
// serves, while a scan is in flight, exits at once with a message saying so, and the first's
// scan is neither taken back nor crawled twice.
func TestSecondServeOnSQLiteRefused(t *testing.T) {
	t.Parallel()
	db := "sqlite://" + filepath.Join(t.TempDir(), "consentd.db")
	tg := newTarget(t, 3*time.Second)
	p1 := startServe(t, db)
	site, s := p1.startSlowScan(t, tg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	second := exec.CommandContext(ctx, cli(t), "serve")
	second.Env = append(os.Environ(), "CONSENTD_DATABASE_URL="+db, "CONSENTD_ADDR=127.0.0.1:0", "CONSENTD_SCAN_ALLOW_PRIVATE=true")
	out, err := second.CombinedOutput()
	if ctx.Err() != nil || err == nil || !strings.Contains(string(out), "in use by another 'consentd serve'") {
		t.Fatalf("second serve: %v (still running: %v)\n%s", err, ctx.Err() != nil, out)
	}
	// Commands that read or add run beside the server.
	if out, stderr, err := runCLI(t, []string{"CONSENTD_DATABASE_URL=" + db}, "org", "list"); err != nil || !strings.Contains(out, "default") {
		t.Fatalf("org list beside serve: %v %s %s", err, out, stderr)
	}
	p1.awaitScan(t, site.ID, s.ID, time.Now(), 30*time.Second)
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if h := tg.hits["/slow/"]; h != 1 {
		t.Fatalf("page fetched %d times, want once", h)
	}
}

// TestMetricsFromTheStart: a server that has done nothing yet already has a series, at zero,
// for every known label value of its labelled families, so that dashboards and alerts work
// from the first start.
func TestMetricsFromTheStart(t *testing.T) {
	t.Parallel()
	p := startServe(t, "sqlite://"+filepath.Join(t.TempDir(), "consentd.db"))
	res, err := http.Get(strings.TrimSuffix(p.base, "/api/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	text := string(b)
	var want []string
	for _, mode := range core.ScanModes() {
		for _, status := range []string{"completed", "failed", "pending", "error"} {
			want = append(want, fmt.Sprintf(`consentd_scans_total{mode=%q,status=%q} 0`, mode, status),
				fmt.Sprintf(`consentd_scan_duration_seconds_count{mode=%q,status=%q} 0`, mode, status))
		}
	}
	for _, j := range core.Jurisdictions() {
		for _, a := range consent.ConsentActions() {
			want = append(want, fmt.Sprintf(`consentd_consent_records_total{action=%q,jurisdiction=%q} 0`, a, j))
		}
	}
	want = append(want,
		`consentd_job_latency_seconds_count{kind="scan"} 0`,
		`consentd_crawler_matches_total{kind="service"} 0`,
		`consentd_crawler_matches_total{kind="unrecognized"} 0`,
		`consentd_store_errors_total{operation="DELETE"} 0`,
		`consentd_http_request_duration_seconds_count{route="POST /api/v1/sites/{id}/scan"} 0`,
	)
	for _, w := range want {
		if !strings.Contains(text, w+"\n") {
			t.Errorf("/metrics lacks %s", w)
		}
	}
}

// TestServeReclaimsOwnScanOnPostgres: on Postgres, a serve killed with SIGKILL during a scan
// and started again on the same port (so with the same instance ID, host and port) takes its
// predecessor's scan back at once and completes it within a minute, not after the rescue delay
// (the default: scan timeout plus a minute, six minutes). A second live process given the same
// instance ID is refused, so that no live process's job is ever taken.
func TestServeReclaimsOwnScanOnPostgres(t *testing.T) {
	t.Parallel()
	db := pgtest.FreshURL(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	// The page takes longer than refusing the twin below (a process start, seconds on a busy
	// machine), so that the first process is still on it when it is killed.
	tg := newTarget(t, 10*time.Second)
	p1 := startServe(t, db, "CONSENTD_ADDR="+addr)
	site, s := p1.startSlowScan(t, tg)
	// The same instance ID on another port, while p1 lives: refused.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	host, _ := os.Hostname()
	_, port, _ := net.SplitHostPort(addr)
	twin := exec.CommandContext(ctx, cli(t), "serve")
	twin.Env = append(os.Environ(), "CONSENTD_DATABASE_URL="+db, "CONSENTD_ADDR=127.0.0.1:0", "CONSENTD_INSTANCE_ID=serve@"+host+":"+port)
	if out, err := twin.CombinedOutput(); err == nil || !strings.Contains(string(out), "in use by another live consentd process") {
		t.Fatalf("a second process with the same instance ID: %v\n%s", err, out)
	}
	var before corescan.Scan
	p1.call(t, "GET", "/sites/"+site.ID+"/scans/"+s.ID, "", &before)
	if before.Status != corescan.ScanRunning {
		t.Fatalf("scan before the kill: %s, want running", before.Status)
	}
	if err := p1.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p1.done
	restarted := time.Now()
	p2 := startServe(t, db, "CONSENTD_ADDR="+addr)
	p2.awaitScan(t, site.ID, s.ID, restarted, time.Minute)
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if h := tg.hits["/slow/"]; h != 2 {
		t.Fatalf("page fetched %d times, want 2 (the killed attempt and the reclaimed one)", h)
	}
}
