package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
)

// BenchmarkEventsTwoServePostgres: two `consentd serve` processes on one Postgres database take
// interaction events (POST /public/{projectKey}/events, one "shown" per batch, as a page view
// sends) from 16 closed-loop posters each for CONSENTD_BENCH_SECONDS (default 10); it reports
// the events answered 204 per second, then stops both gracefully (each flushes its last counts)
// and fails unless the stored counters hold exactly the events answered:
//
//	CONSENTD_TEST_POSTGRES_URL=… go test -run '^$' -bench EventsTwoServe -benchtime 1x ./cmd/consentd-load/
func BenchmarkEventsTwoServePostgres(b *testing.B) {
	dbURL := pgtest.FreshURL(b)
	bin := filepath.Join(b.TempDir(), "consentd")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/consentd/consentd/cmd/consentd").CombinedOutput(); err != nil {
		b.Fatalf("build consentd: %v\n%s", err, out)
	}
	secs, _ := strconv.Atoi(os.Getenv("CONSENTD_BENCH_SECONDS"))
	if secs <= 0 {
		secs = 10
	}
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
	var ok, bad atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	end := start.Add(time.Duration(secs) * time.Second)
	for _, base := range bases {
		c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(end) {
					req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/public/"+pk+"/events", strings.NewReader(body))
					req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
					req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36")
					res, err := c.Do(req)
					if err != nil {
						bad.Add(1)
						continue
					}
					res.Body.Close()
					if res.StatusCode == http.StatusNoContent {
						ok.Add(1)
					} else {
						bad.Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(ok.Load())/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(bad.Load()), "failed")
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
	if shown != ok.Load() {
		b.Fatalf("stored shown %d, events answered 204: %d", shown, ok.Load())
	}
	b.Logf("%d events answered 204 in %v (%d failed), %d stored", ok.Load(), elapsed.Round(time.Millisecond), bad.Load(), shown)
}
