package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
	corescan "github.com/consentd/consentd/core/scan"
	sitepkg "github.com/consentd/consentd/core/site"
)

const gaPage = `<!doctype html><html><head>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-WORKER123"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag('js',new Date());gtag('config','G-WORKER123');</script>
</head><body>shop</body></html>`

// target is a loopback site that counts the requests of each page and can be slow.
type target struct {
	*httptest.Server
	mu      sync.Mutex
	hits    map[string]int
	delay   time.Duration
	started chan string // receives each page path as its request arrives
}

func newTarget(t *testing.T, delay time.Duration) *target {
	t.Helper()
	tg := &target{hits: map[string]int{}, delay: delay, started: make(chan string, 100)}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		tg.mu.Lock()
		tg.hits[r.URL.Path]++
		tg.mu.Unlock()
		select {
		case tg.started <- r.URL.Path:
		default:
		}
		select {
		case <-time.After(tg.delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, gaPage)
	}))
	t.Cleanup(tg.Close)
	return tg
}

// deployment is a Postgres database with sites, and an in-process consentd that triggers
// scans but works none (CONSENTD_WORKERS=0 in serve): the worker processes do.
type deployment struct {
	url string
	app *app.App
	// store is the test's own connection to the database, to look at scans and jobs.
	store *bunstore.Store
	org   string
}

func newDeployment(t *testing.T) *deployment {
	t.Helper()
	url := pgtest.FreshURL(t)
	// Static scans: the tests count page fetches, and a deep scan fetches each page twice.
	a, err := app.New(context.Background(), app.Config{DatabaseURL: url, Workers: 0, Logger: slog.New(slog.DiscardHandler), ScanMode: core.ScanStatic})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	store, err := bunstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	org, err := a.UseCases().Orgs.CreateOrganization(core.WithActor(context.Background(), core.System("consentd tests")), "acme")
	if err != nil {
		t.Fatal(err)
	}
	return &deployment{url: url, app: a, store: store, org: org.ID}
}

// scan creates a site on url and triggers its scan.
func (d *deployment) scan(t *testing.T, url string) *corescan.Scan {
	t.Helper()
	ctx := core.WithActor(context.Background(), core.System("consentd tests"))
	name := "shop"
	site, err := d.app.UseCases().Sites.CreateSite(ctx, d.org, sitepkg.SiteInput{Name: &name, URL: &url})
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.app.UseCases().Scans.TriggerScan(ctx, d.org, site.ID, corescan.ScanInput{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (d *deployment) waitFinished(t *testing.T, scanID string, within time.Duration) *corescan.Scan {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		s, err := d.store.ScanByID(context.Background(), scanID)
		if err != nil {
			t.Fatal(err)
		}
		if s.Status == corescan.ScanCompleted || s.Status == corescan.ScanFailed {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("scan %s still %s after %s", scanID, s.Status, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// workerProc is a running 'consentd worker'.
type workerProc struct {
	cmd  *exec.Cmd
	done chan error
	mu   sync.Mutex
	log  strings.Builder
}

// startWorker runs 'consentd worker' on the deployment's database with the extra
// environment, and waits until it works jobs. It is stopped with SIGTERM when t ends.
func startWorker(t *testing.T, d *deployment, env ...string) *workerProc {
	t.Helper()
	w := &workerProc{cmd: exec.Command(cli(t), "worker"), done: make(chan error, 1)}
	w.cmd.Env = append(os.Environ(), append([]string{
		"CONSENTD_DATABASE_URL=" + d.url, "CONSENTD_WORKERS=4", "CONSENTD_SCAN_ALLOW_PRIVATE=true",
		"CONSENTD_SCAN_RETRY_BASE=100ms", "CONSENTD_SCAN_TIMEOUT=20s", "CONSENTD_SCAN_RESCUE_AFTER=20s",
	}, env...)...)
	stderr, err := w.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			w.mu.Lock()
			w.log.WriteString(sc.Text() + "\n")
			w.mu.Unlock()
			if strings.Contains(sc.Text(), "consentd worker started") {
				once.Do(func() { close(ready) })
			}
		}
		w.done <- w.cmd.Wait()
	}()
	t.Cleanup(func() {
		if w.cmd.ProcessState == nil {
			w.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-w.done:
			case <-time.After(30 * time.Second):
				w.cmd.Process.Kill()
			}
		}
		if t.Failed() {
			t.Logf("worker %d log:\n%s", w.cmd.Process.Pid, w.output())
		}
	})
	select {
	case <-ready:
	case err := <-w.done:
		t.Fatalf("worker exited: %v\n%s", err, w.output())
	case <-time.After(30 * time.Second):
		t.Fatalf("worker not ready after 30s:\n%s", w.output())
	}
	return w
}

func (w *workerProc) output() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log.String()
}

// jobRow is a scan job as River stored it.
type jobRow struct {
	Attempt    int
	State      string
	AttemptBy  string
	ScanIDJSON string
}

func scanJobs(t *testing.T, d *deployment) []jobRow {
	t.Helper()
	rows, err := d.store.DB().QueryContext(context.Background(),
		"SELECT attempt, state, coalesce(attempted_by[array_length(attempted_by, 1)], ''), args->>'scanId' FROM river_job WHERE kind = 'scan'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []jobRow
	for rows.Next() {
		var j jobRow
		if err := rows.Scan(&j.Attempt, &j.State, &j.AttemptBy, &j.ScanIDJSON); err != nil {
			t.Fatal(err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTwoWorkersFiftyScans: two worker processes share 50 scans; each scan is worked exactly
// once (one request to its page, one attempt of its one job) and all end completed.
func TestTwoWorkersFiftyScans(t *testing.T) {
	t.Parallel()
	d := newDeployment(t)
	tg := newTarget(t, 150*time.Millisecond)
	startWorker(t, d)
	startWorker(t, d)
	const n = 50
	scans := make([]*corescan.Scan, n)
	for i := range n {
		scans[i] = d.scan(t, fmt.Sprintf("%s/shop/%d/", tg.URL, i))
	}
	for i, s := range scans {
		got := d.waitFinished(t, s.ID, 60*time.Second)
		if got.Status != corescan.ScanCompleted || len(got.DetectedServices) == 0 {
			t.Fatalf("scan %d: %s %v, detected %v", i, got.Status, got.ErrorMessage, got.DetectedServices)
		}
	}
	tg.mu.Lock()
	for i := range n {
		if h := tg.hits[fmt.Sprintf("/shop/%d/", i)]; h != 1 {
			t.Errorf("page of scan %d fetched %d times, want 1", i, h)
		}
	}
	tg.mu.Unlock()
	// River marks jobs completed a moment after the scans (its completer batches).
	var jobs []jobRow
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		jobs = scanJobs(t, d)
		done := 0
		for _, j := range jobs {
			if j.State == "completed" {
				done++
			}
		}
		if done == n {
			break
		}
	}
	if len(jobs) != n {
		t.Fatalf("%d scan jobs, want %d", len(jobs), n)
	}
	clients, perScan := map[string]int{}, map[string]int{}
	for _, j := range jobs {
		if j.Attempt != 1 || j.State != "completed" {
			t.Errorf("job of scan %s: attempt %d, state %s; want worked once, completed", j.ScanIDJSON, j.Attempt, j.State)
		}
		clients[j.AttemptBy]++
		perScan[j.ScanIDJSON]++
	}
	if len(perScan) != n {
		t.Errorf("jobs cover %d scans, want %d", len(perScan), n)
	}
	if len(clients) != 2 {
		t.Errorf("jobs worked by %v, want both worker processes", clients)
	}
}

// TestWorkerKilledMidScan: a worker process is SIGKILLed while it crawls; after the rescue
// interval another worker process works the scan again, and it ends completed.
//
// The bound: River's rescuer runs on the elected leader. The killed process was the leader,
// so the new one is elected when its lease runs out (at most 15 s), rescues at once the job
// running for longer than CONSENTD_SCAN_RESCUE_AFTER (3 s here), and its scheduler makes the
// retry available within 5 s more.
func TestWorkerKilledMidScan(t *testing.T) {
	t.Parallel()
	const rescueAfter = 3 * time.Second
	d := newDeployment(t)
	tg := newTarget(t, 2*time.Second)
	env := []string{"CONSENTD_SCAN_TIMEOUT=" + rescueAfter.String(), "CONSENTD_SCAN_RESCUE_AFTER=" + rescueAfter.String()}
	w1 := startWorker(t, d, env...)
	s := d.scan(t, tg.URL+"/slow/")
	select {
	case <-tg.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not start the scan")
	}
	if got, err := d.store.ScanByID(context.Background(), s.ID); err != nil || got.Status != corescan.ScanRunning {
		t.Fatalf("scan before the kill: %v %v, want running", got, err)
	}
	if err := w1.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-w1.done
	killed := time.Now()
	startWorker(t, d, env...)
	got := d.waitFinished(t, s.ID, rescueAfter+40*time.Second)
	t.Logf("scan %s %v, %s after the kill", got.Status, got.ErrorMessage, time.Since(killed).Round(time.Second))
	if got.Status == corescan.ScanFailed && (got.ErrorMessage == nil || *got.ErrorMessage == "") {
		t.Fatal("failed scan without an errorMessage")
	}
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if h := tg.hits["/slow/"]; h != 2 {
		t.Fatalf("page fetched %d times, want 2 (the killed attempt and the rescued one)", h)
	}
}

// TestWorkerGracefulShutdown: on SIGTERM a worker lets the running scan finish and exits
// cleanly.
func TestWorkerGracefulShutdown(t *testing.T) {
	t.Parallel()
	d := newDeployment(t)
	tg := newTarget(t, 1500*time.Millisecond)
	w := startWorker(t, d, "CONSENTD_SHUTDOWN_TIMEOUT=20s")
	s := d.scan(t, tg.URL+"/slow/")
	select {
	case <-tg.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not start the scan")
	}
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-w.done:
		if err != nil {
			t.Fatalf("worker exited with %v:\n%s", err, w.output())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("worker still running 30 s after SIGTERM")
	}
	got, err := d.store.ScanByID(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != corescan.ScanCompleted {
		t.Fatalf("scan after graceful shutdown: %s %v, want completed", got.Status, got.ErrorMessage)
	}
}

// TestWorkerOnSQLite: the standalone worker refuses the embedded store with an explanation.
func TestWorkerOnSQLite(t *testing.T) {
	_, stderr, err := runCLI(t, []string{"CONSENTD_DATABASE_URL=sqlite://" + t.TempDir() + "/c.db"}, "worker")
	if err == nil || !strings.Contains(stderr, "in-process by 'consentd serve'") {
		t.Fatalf("worker on SQLite: %v %s", err, stderr)
	}
}

// TestWorkerShutdownDeadline: a scan still running when the shutdown deadline passes is
// cancelled and handed back at once, so another worker completes it without waiting for the
// rescuer (set far out here).
func TestWorkerShutdownDeadline(t *testing.T) {
	t.Parallel()
	d := newDeployment(t)
	tg := newTarget(t, 3*time.Second)
	env := []string{"CONSENTD_SHUTDOWN_TIMEOUT=300ms", "CONSENTD_SCAN_RESCUE_AFTER=5m"}
	w := startWorker(t, d, env...)
	s := d.scan(t, tg.URL+"/slow/")
	select {
	case <-tg.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not start the scan")
	}
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-w.done:
		if err != nil {
			t.Fatalf("worker exited with %v:\n%s", err, w.output())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("worker still running 20 s after SIGTERM with a 300ms deadline")
	}
	if got, err := d.store.ScanByID(context.Background(), s.ID); err != nil || got.Status != corescan.ScanRunning {
		t.Fatalf("scan after the cancelled attempt: %+v %v, want running (to be retried)", got, err)
	}
	stopped := time.Now()
	for _, j := range scanJobs(t, d) {
		t.Logf("job after shutdown: %+v", j)
	}
	startWorker(t, d, env...)
	got := d.waitFinished(t, s.ID, 20*time.Second)
	t.Logf("completed %s after the first worker stopped", time.Since(stopped).Round(100*time.Millisecond))
	if got.Status != corescan.ScanCompleted {
		t.Fatalf("scan %s %v, want completed by the second worker", got.Status, got.ErrorMessage)
	}
}
