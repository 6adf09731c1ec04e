package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/consentd/consentd/app"
)

// With -processes N the load tool does not serve in its own process: it starts N server
// processes on the same database (itself again, in -serve-child mode: app.New and RunServer,
// what `consentd serve` runs, with the same settings as the in-process server) and spreads the
// posters over them. That is the deployment of several `serve` processes behind a load balancer
// sharing one Postgres, and one site's chain: every batch of that site, from whichever process,
// extends the same chain (docs/consent-records.md, "Batches and the chain").

// childAddrPrefix starts the line a child prints once it listens.
const childAddrPrefix = "consentd-load child listening on "

// serveChild runs one server on dbURL until stdin closes (the parent died or is done) or a
// signal arrives, and prints its address first.
func serveChild(ctx context.Context, dbURL string, workers int) error {
	a, err := app.New(ctx, app.Config{DatabaseURL: dbURL, Addr: "127.0.0.1:0", PublicRateLimit: 0, Workers: workers, WebhookAllowPrivate: true,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer a.Close()
	ln, err := a.Listen()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	fmt.Println(childAddrPrefix + ln.Addr().String())
	return a.RunServer(ctx, ln)
}

// child is one started server process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	base  string
}

// startChildren starts n server processes on dbURL and returns them once each listens.
func startChildren(ctx context.Context, n int, dbURL string, workers int) ([]*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var out []*child
	for range n {
		cmd := exec.CommandContext(ctx, self, "-serve-child", "-database-url", dbURL, "-workers", strconv.Itoa(workers))
		cmd.Stderr = os.Stderr
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 10 * time.Second
		stdin, err := cmd.StdinPipe()
		if err != nil {
			stopChildren(out)
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			stopChildren(out)
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			stopChildren(out)
			return nil, err
		}
		c := &child{cmd: cmd, stdin: stdin}
		out = append(out, c)
		addr := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if a, ok := strings.CutPrefix(sc.Text(), childAddrPrefix); ok {
					addr <- a
				}
			}
		}()
		select {
		case a := <-addr:
			c.base = app.BaseURL(a)
		case <-time.After(60 * time.Second):
			stopChildren(out)
			return nil, errors.New("a server process did not listen within 60 s")
		}
	}
	return out, nil
}

// stopChildren closes each child's stdin (its signal to stop) and waits for it.
func stopChildren(cs []*child) {
	for _, c := range cs {
		_ = c.stdin.Close()
	}
	for _, c := range cs {
		_ = c.cmd.Wait()
	}
}

// runProcesses is the -processes mode of run: the site is created in this process, then the
// load goes to n server processes, and the figures include the records per chain batch.
func runProcesses(ctx context.Context, n int, dbURL string, workers int, l load) error {
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
	cs, err := startChildren(ctx, n, dbURL, workers)
	if err != nil {
		return err
	}
	defer stopChildren(cs)
	for _, c := range cs {
		t.Servers = append(t.Servers, c.base)
	}
	t.BaseURL = t.Servers[0]
	res := drive(ctx, context.Background(), t, l)
	fmt.Printf("%d server processes on one %s database, one site's chain shared by all\n", n, dialect)
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
