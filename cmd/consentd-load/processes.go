package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/consentd/consentd/app"
)

// With -processes N the load tool does not serve in its own process: it starts N `consentd
// serve` processes (the binary given by -consentd) on the same database, with the settings of
// the in-process server (public rate limit off, the same job workers), and spreads the posters
// over them. That is the deployment of several serve processes behind a load balancer sharing
// one Postgres, and one site's chain: every batch of that site, from whichever process,
// extends the same chain (docs/consent-records.md, "Batches and the chain").

// server is one started `consentd serve`.
type server struct {
	cmd  *exec.Cmd
	base string
	logs *lockedBuffer
}

// lockedBuffer is a server's output, written by its process's pipes and read on failure.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServers starts n `consentd serve` processes of bin on dbURL and returns them once
// each answers /healthz.
func startServers(ctx context.Context, bin string, n int, dbURL string, workers int) ([]*server, error) {
	var out []*server
	for range n {
		addr, err := freePort()
		if err != nil {
			stopServers(out)
			return nil, err
		}
		s := &server{cmd: exec.CommandContext(ctx, bin, "serve"), base: app.BaseURL(addr), logs: &lockedBuffer{}}
		s.cmd.Env = append(os.Environ(), "CONSENTD_DATABASE_URL="+dbURL, "CONSENTD_ADDR="+addr,
			"CONSENTD_PUBLIC_RATE_LIMIT=0", "CONSENTD_WORKERS="+strconv.Itoa(workers), "CONSENTD_LOG_LEVEL=warn")
		s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
		s.cmd.Cancel = func() error { return s.cmd.Process.Signal(syscall.SIGTERM) }
		s.cmd.WaitDelay = 10 * time.Second
		if err := s.cmd.Start(); err != nil {
			stopServers(out)
			return nil, err
		}
		out = append(out, s)
		if err := awaitHealthy(ctx, s.base); err != nil {
			stopServers(out)
			return nil, fmt.Errorf("%s: %w\n%s", s.base, err, s.logs.String())
		}
	}
	return out, nil
}

// freePort returns a loopback address no one listens on now.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// awaitHealthy waits up to a minute for base's /healthz to answer 200.
func awaitHealthy(ctx context.Context, base string) error {
	c := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthz", nil)
		if err != nil {
			return err
		}
		if res, err := c.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return errors.New("not healthy within a minute")
}

// stopServers stops each server as an orchestrator would (SIGTERM) and waits for it.
func stopServers(ss []*server) {
	for _, s := range ss {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, s := range ss {
		_ = s.cmd.Wait()
	}
}

// runProcesses is the -processes mode of run: the site is created in this process, then the
// load goes to n serve processes, and the figures include the records per chain batch. It
// fails when the site's total differs from the posts answered 201.
func runProcesses(ctx context.Context, bin string, n int, dbURL string, workers int, l load) error {
	a, err := app.New(ctx, app.Config{DatabaseURL: dbURL, Addr: "127.0.0.1:0", Workers: 0,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	t, err := newTarget(ctx, a)
	dialect := a.Dialect()
	_ = a.Close()
	if err != nil {
		return err
	}
	ss, err := startServers(ctx, bin, n, dbURL, workers)
	if err != nil {
		return err
	}
	defer stopServers(ss)
	for _, s := range ss {
		t.Servers = append(t.Servers, s.base)
	}
	t.BaseURL = t.Servers[0]
	res := drive(ctx, context.Background(), t, l)
	fmt.Printf("%d serve processes on one %s database, one site's chain shared by all\n", n, dialect)
	res.report(os.Stdout, dialect, l)
	client := newClient(1)
	total, err := total(context.Background(), client, t, "limit=1")
	if err != nil {
		return err
	}
	batches, err := newestBatch(context.Background(), client, t)
	if err != nil {
		return err
	}
	fmt.Printf("  total afterwards: %d, posts answered 201: %d\n", total, len(res.Created))
	if batches > 0 {
		fmt.Printf("  chain batches: %d, records per batch: %.1f\n", batches, float64(total)/float64(batches))
	}
	if total != len(res.Created) {
		return fmt.Errorf("the site holds %d records but %d posts were answered 201", total, len(res.Created))
	}
	return nil
}

// newestBatch is the highest batch number among the site's newest 100 records (newest by
// createdAt, which the processes set before their commits, so the last batch is among them):
// batches are numbered per site from 1, so it is how many batches the run's records took.
func newestBatch(ctx context.Context, c *http.Client, t target) (int64, error) {
	raw, err := listRecords(ctx, c, t, "limit=100")
	if err != nil {
		return 0, err
	}
	var hi int64
	for _, s := range gjson.GetBytes(raw, "records.#.batchSeq").Array() {
		hi = max(hi, s.Int())
	}
	return hi, nil
}
