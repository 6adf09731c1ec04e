package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core"
)

// BenchmarkEventsTwoServePostgres: two `consentd serve` processes on one Postgres database take
// interaction events (POST /public/{projectKey}/events, one "shown" per batch, as a page view
// sends) from 16 closed-loop connections each for CONSENTD_TEST_BENCH_SECONDS (default 10: the
// servers inherit the environment, and consentd refuses a CONSENTD_ variable it does not know
// unless it starts with CONSENTD_TEST_); it reports
// the events answered 204 per second, then stops both gracefully (each flushes its last counts)
// and fails unless the stored counters hold exactly the events the servers answered 204:
//
//	CONSENTD_TEST_POSTGRES_URL=… go test -run '^$' -bench EventsTwoServe -benchtime 1x ./cmd/consentd-load/
//
// The load comes from wrk when it is on PATH (apt-get install -y wrk), one process of one thread
// per server: the driver shared/bench/vs-floor.sh measures the floor with, so the two figures
// compare. Without wrk, 16 goroutines per server post with Go's HTTP client, which on a two-core
// machine takes a quarter of the CPU from the servers (perf, 5 Dec 2026: 26 % of all samples in the
// benchmark's own process; 16-25k events/s against 36-38k with wrk) and so measures the driver as
// much as consentd. The log line says which driver ran.
//
// Exact counts: each server's consentd_http_requests_total for the events route and status 204
// (read from /metrics once the load has stopped and the figure is steady) is what it
// acknowledged; their sum must equal the stored "shown" counters. With Go's client, every answer
// is read, so the driver's own count must equal it too; wrk stops with up to one request per
// connection unread, so its count may fall short of the servers' by at most that many.
func BenchmarkEventsTwoServePostgres(b *testing.B) {
	dbURL := pgtest.FreshURL(b)
	bin := filepath.Join(b.TempDir(), "consentd")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/consentd/consentd/cmd/consentd").CombinedOutput(); err != nil {
		b.Fatalf("build consentd: %v\n%s", err, out)
	}
	secs, _ := strconv.Atoi(os.Getenv("CONSENTD_TEST_BENCH_SECONDS"))
	if secs <= 0 {
		secs = 10
	}
	const conns = 16 // per server
	key := "cd_" + strings.ToLower(rand.Text())
	var bases []string
	var procs []*exec.Cmd
	var logs [2]bytes.Buffer
	for i := range 2 {
		addr := freeAddr(b)
		srv := exec.Command(bin, "serve")
		srv.Env = append(os.Environ(), "CONSENTD_DATABASE_URL="+dbURL, "CONSENTD_ADDR="+addr,
			"CONSENTD_BOOTSTRAP_API_KEY="+key, "CONSENTD_PUBLIC_RATE_LIMIT=0", "CONSENTD_WORKERS=0")
		srv.Stdout, srv.Stderr = &logs[i], &logs[i]
		if err := srv.Start(); err != nil {
			b.Fatal(err)
		}
		defer srv.Process.Kill() //nolint:errcheck // stopped gracefully below when all went well
		procs, bases = append(procs, srv), append(bases, "http://"+addr)
		waitHealthy(b, bases[i], &logs[i])
	}
	site, pk := createSite(b, bases[0], key)
	body := `{"consentVersion":1,"events":[{"type":"shown"}]}`
	urls := make([]string, len(bases))
	for i, base := range bases {
		urls[i] = base + core.PublicPath(pk, core.PublicEventsPath)
	}
	// Go's client reads every answer; wrk may stop with one per connection unread.
	driver, drive, unread := "Go's HTTP client", goPosters, int64(0)
	if _, err := exec.LookPath("wrk"); err == nil {
		driver, drive, unread = "wrk", wrkPosters, int64(conns*len(bases))
	}
	b.ResetTimer()
	start := time.Now()
	ok, bad := drive(b, urls, body, conns, time.Duration(secs)*time.Second)
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(ok)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(bad), "failed")
	var acked int64
	for _, base := range bases {
		acked += steady204(b, base)
	}
	if ok > acked || acked > ok+unread {
		b.Fatalf("the servers answered 204 to %d events, the driver (%s) read %d", acked, driver, ok)
	}
	for i, p := range procs {
		p.Process.Signal(os.Interrupt) //nolint:errcheck // a dead process fails Wait below
		if err := p.Wait(); err != nil {
			b.Fatalf("serve %d: %v\n%s", i, err, logs[i].String())
		}
	}
	s, err := bunstore.Open(context.Background(), dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rows, err := s.AnalyticsRows(context.Background(), site, start.Add(-2*time.Hour), time.Now().Add(2*time.Hour))
	if err != nil {
		b.Fatal(err)
	}
	var shown int64
	for _, r := range rows {
		shown += r.Shown
	}
	if shown != acked {
		b.Fatalf("stored shown %d, events the servers answered 204: %d", shown, acked)
	}
	b.Logf("driver %s: %d events answered 204 in %v (%d failed, %d acknowledged by the servers), %d stored",
		driver, ok, elapsed.Round(time.Millisecond), bad, acked, shown)
}

// goPosters posts body to each URL from conns goroutines per URL until d has passed, and returns
// the 204 answers and the others.
func goPosters(_ *testing.B, urls []string, body string, conns int, d time.Duration) (ok, bad int64) {
	var nOK, nBad atomic.Int64
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	for _, u := range urls {
		c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
		for range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(end) {
					req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
					req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
					req.Header.Set("User-Agent", benchUA)
					res, err := c.Do(req)
					if err != nil {
						nBad.Add(1)
						continue
					}
					res.Body.Close()
					if res.StatusCode == http.StatusNoContent {
						nOK.Add(1)
					} else {
						nBad.Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	return nOK.Load(), nBad.Load()
}

const benchUA = "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36"

// wrkPosters runs one wrk (one thread, conns connections) per URL, all at once, for d, and
// returns the 2xx answers they read (every 2xx is a 204 here: the route answers nothing else)
// and the failures (non-2xx answers, socket errors and timeouts).
func wrkPosters(b *testing.B, urls []string, body string, conns int, d time.Duration) (ok, bad int64) {
	script := filepath.Join(b.TempDir(), "events.lua")
	lua := "wrk.method = \"POST\"\nwrk.body = " + strconv.Quote(body) + "\n" +
		"wrk.headers[\"Content-Type\"] = \"text/plain;charset=UTF-8\"\nwrk.headers[\"User-Agent\"] = " + strconv.Quote(benchUA) + "\n"
	if err := os.WriteFile(script, []byte(lua), 0o600); err != nil {
		b.Fatal(err)
	}
	outs := make([][]byte, len(urls))
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = exec.Command("wrk", "-t1", "-c"+strconv.Itoa(conns), "-d"+strconv.Itoa(int(d.Seconds()))+"s",
				"--timeout", "10s", "-s", script, u).CombinedOutput()
		}()
	}
	wg.Wait()
	for i, out := range outs {
		if errs[i] != nil {
			b.Fatalf("wrk %s: %v\n%s", urls[i], errs[i], out)
		}
		answers, non2xx, sockErrs, err := wrkCounts(string(out))
		if err != nil {
			b.Fatalf("wrk %s: %v\n%s", urls[i], err, out)
		}
		ok, bad = ok+answers-non2xx, bad+non2xx+sockErrs
	}
	return ok, bad
}

var (
	wrkRequests = regexp.MustCompile(`(?m)^\s*(\d+) requests in `)
	wrkNon2xx   = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses: (\d+)`)
	wrkErrors   = regexp.MustCompile(`(?m)^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// wrkCounts reads wrk's report: the answers it read, how many of those were not 2xx or 3xx,
// and its socket errors (connect, read, write, timeout), which are not among the answers.
func wrkCounts(out string) (answers, non2xx, sockErrs int64, err error) {
	m := wrkRequests.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, 0, fmt.Errorf("no request count in wrk's report")
	}
	answers, _ = strconv.ParseInt(m[1], 10, 64)
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
		non2xx, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := wrkErrors.FindStringSubmatch(out); m != nil {
		for _, v := range m[1:] {
			n, _ := strconv.ParseInt(v, 10, 64)
			sockErrs += n
		}
	}
	return answers, non2xx, sockErrs, nil
}

// events204 is the events route's series of 204 answers in /metrics (the route label is the
// request's pattern: method, APIPrefix and the public route).
var events204 = regexp.MustCompile(`(?m)^consentd_http_requests_total\{method="POST",route="` +
	regexp.QuoteMeta("POST "+core.APIPrefix+core.PublicRoute(core.PublicEventsPath)) + `",status="204"\} (\d+)$`)

// steady204 reads the events route's 204 count from base's /metrics until two reads 200 ms
// apart agree (a request wrk left unread may still be finishing).
func steady204(b *testing.B, base string) int64 {
	read := func() int64 {
		res, err := http.Get(base + "/metrics")
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		m := events204.FindSubmatch(raw)
		if m == nil {
			b.Fatalf("%s/metrics has no 204 count of the events route", base)
		}
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return n
	}
	last := read()
	for {
		time.Sleep(200 * time.Millisecond)
		n := read()
		if n == last {
			return n
		}
		last = n
	}
}

// TestWrkCounts: the benchmark's reading of wrk's report, with and without failures (socket
// errors are not among the answers; non-2xx answers are).
func TestWrkCounts(t *testing.T) {
	const clean = "Running 10s test @ http://127.0.0.1:1/x\n  1 threads and 16 connections\n" +
		"  382623 requests in 10.05s, 30.29MB read\nRequests/sec:  38060.12\nTransfer/sec:      3.01MB\n"
	const failing = "Running 10s test @ http://127.0.0.1:1/x\n  1 threads and 16 connections\n" +
		"  1000 requests in 10.00s, 80.00KB read\n  Socket errors: connect 1, read 2, write 3, timeout 4\n" +
		"  Non-2xx or 3xx responses: 5\nRequests/sec:    100.00\n"
	for _, c := range []struct {
		out                      string
		answers, non2xx, sockErr int64
	}{{clean, 382623, 0, 0}, {failing, 1000, 5, 10}} {
		a, n, e, err := wrkCounts(c.out)
		if err != nil || a != c.answers || n != c.non2xx || e != c.sockErr {
			t.Errorf("wrkCounts = %d, %d, %d, %v; want %d, %d, %d", a, n, e, err, c.answers, c.non2xx, c.sockErr)
		}
	}
	if _, _, _, err := wrkCounts("unable to connect to 127.0.0.1:1 Connection refused\n"); err == nil {
		t.Error("wrkCounts read a report without a request count")
	}
}
