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
	"github.com/consentd/consentd/core"
	sitepkg "github.com/consentd/consentd/core/site"
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

// runProcesses is the -processes mode of run: the sites are created in this process, then the
// load goes to n serve processes, and the figures include the records per chain batch. It
// fails when the sites' total differs from the posts answered 201.
func runProcesses(ctx context.Context, bin string, n, sites int, dbURL string, workers int, l load) error {
	a, err := app.New(ctx, app.Config{DatabaseURL: dbURL, Addr: "127.0.0.1:0", Workers: 0,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	t, err := newTarget(ctx, a)
	if err == nil {
		err = addSites(ctx, a, &t, sites)
	}
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
	switch {
	case l.Config:
		fmt.Printf("%d serve processes on one %s database, configuration GETs only\n", n, dialect)
	case sites == 1:
		fmt.Printf("%d serve processes on one %s database, one site's chain shared by all\n", n, dialect)
	case sites%n == 0:
		fmt.Printf("%d serve processes on one %s database, %d sites, each written by one process\n", n, dialect, sites)
	default:
		fmt.Printf("%d serve processes on one %s database, %d sites, each written by several\n", n, dialect, sites)
	}
	res.report(os.Stdout, dialect, l)
	client := newClient(1)
	var stored, batches int64
	for _, s := range t.Sites {
		st := t
		st.SiteID, st.ProjectKey = s.ID, s.ProjectKey
		records, err := total(context.Background(), client, st, "limit=1")
		if err != nil {
			return err
		}
		b, err := newestBatch(context.Background(), client, st)
		if err != nil {
			return err
		}
		stored, batches = stored+int64(records), batches+b
	}
	fmt.Printf("  total afterwards: %d, posts answered 201: %d\n", stored, len(res.Created))
	if batches > 0 {
		fmt.Printf("  chain batches: %d, records per batch: %.1f\n", batches, float64(stored)/float64(batches))
	}
	if stored != int64(len(res.Created)) {
		return fmt.Errorf("the sites hold %d records but %d posts were answered 201", stored, len(res.Created))
	}
	return nil
}

// addSites gives t's organization sites-1 more sites and lists all of them in t.Sites.
func addSites(ctx context.Context, a *app.App, t *target, sites int) error {
	t.Sites = []site{{t.SiteID, t.ProjectKey}}
	ctx = core.WithActor(ctx, core.System("consentd-load"))
	for i := range sites - 1 {
		name, url := fmt.Sprintf("load %d", i+2), fmt.Sprintf("https://load%d.example", i+2)
		s, err := a.UseCases().Sites.CreateSite(ctx, t.OrgID, sitepkg.SiteInput{Name: &name, URL: &url})
		if err != nil {
			return err
		}
		t.Sites = append(t.Sites, site{s.ID, s.ProjectKey})
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
