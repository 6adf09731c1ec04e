package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core/consent"
)

// TestKillDuringIngestLosesNothing runs the real consentd binary, loads it with consent posts,
// SIGKILLs it mid-load and checks that every record answered 201 is in the database, and that
// the exact total (kept in counters) agrees with the records stored.
func TestKillDuringIngestLosesNothing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the consentd binary")
	}
	bin := consentdBinary(t)
	// The two databases' runs have servers, ports and databases of their own.
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		killDuringIngest(t, bin, "sqlite://"+filepath.Join(t.TempDir(), "kill.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		killDuringIngest(t, bin, pgtest.FreshURL(t))
	})
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// consentdBinary builds the consentd binary once for the package's tests.
func consentdBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "consentd-load-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "consentd")
		if out, err := exec.Command("go", "build", "-o", binPath, "github.com/consentd/consentd/cmd/consentd").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("build consentd: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

func killDuringIngest(t *testing.T, bin, dbURL string) {
	key := "cd_" + strings.ToLower(rand.Text())
	addr := freeAddr(t)
	var logs bytes.Buffer
	srv := exec.Command(bin, "serve")
	srv.Env = append(os.Environ(), "CONSENTD_DATABASE_URL="+dbURL, "CONSENTD_ADDR="+addr,
		"CONSENTD_BOOTSTRAP_API_KEY="+key, "CONSENTD_PUBLIC_RATE_LIMIT=0", "CONSENTD_WORKERS=0")
	srv.Stdout, srv.Stderr = &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill() //nolint:errcheck // already dead when the test went as planned
	base := "http://" + addr
	waitHealthy(t, base, &logs)
	tg := target{BaseURL: base, APIKey: key}
	tg.SiteID, tg.ProjectKey = createSite(t, base, key)

	rctx, cut := context.WithCancel(context.Background())
	defer cut()
	done := make(chan *result)
	go func() {
		done <- drive(context.Background(), rctx, tg, load{Posters: 32, Duration: 20 * time.Second, Max: 1_000_000})
	}()
	time.Sleep(1500 * time.Millisecond)
	if err := srv.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	srv.Wait() //nolint:errcheck // killed on purpose
	cut()      // posts to a dead server fail at once; stop them
	res := <-done
	if len(res.Created) < 50 {
		t.Fatalf("only %d posts answered 201 before the kill; the test proves nothing\n%s", len(res.Created), logs.String())
	}

	ctx := context.Background()
	// Postgres finishes a killed client's running statement before it notices the client is
	// gone: a batch in flight may still commit. Wait until the dead server's sessions have
	// ended, so that the records read and the total read next see the same committed state.
	if strings.HasPrefix(dbURL, "postgres") {
		waitSessionsGone(t, dbURL)
	}
	s, err := bunstore.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stored := map[string]bool{}
	q := consent.ConsentQuery{SiteID: tg.SiteID}
	if err := s.EachConsentRecord(ctx, q, func(r *consent.ConsentRecord) error { stored[r.ID] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, id := range res.Created {
		if !stored[id] {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d records answered 201 are missing after SIGKILL", lost, len(res.Created))
	}
	q.Page, q.Limit = 1, 1
	_, n, err := s.ConsentRecords(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(stored) {
		t.Fatalf("total %d, but %d records are stored", n, len(stored))
	}
	t.Logf("%d posts answered 201 before SIGKILL, all stored (%d records, in flight included); %d posts failed", len(res.Created), len(stored), res.PostErrs)
}

func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitHealthy(t testing.TB, base string, logs *bytes.Buffer) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(base + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("consentd did not become healthy:\n%s", logs.String())
}

func createSite(t testing.TB, base, key string) (id, projectKey string) {
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/sites", strings.NewReader(`{"name":"kill","url":"https://kill.example"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var s struct{ ID, ProjectKey string }
	if res.StatusCode != http.StatusCreated || json.Unmarshal(raw, &s) != nil {
		t.Fatalf("create site: %d %s", res.StatusCode, raw)
	}
	return s.ID, s.ProjectKey
}

// waitSessionsGone waits until no session but its own is connected to the database at dbURL.
func waitSessionsGone(t *testing.T, dbURL string) {
	t.Helper()
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions of the killed server still open after 30 s", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTwoServeProcessesShareOneChain runs the -processes mode: two real consentd serve
// processes on one Postgres database, the posters spread over them and over three sites, so
// that each site's chain is extended by both processes. Every post answered 201 must be stored
// (the mode fails otherwise), and every site's chain verifies.
func TestTwoServeProcessesShareOneChain(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the consentd binary")
	}
	url := pgtest.FreshURL(t)
	bin := consentdBinary(t)
	if err := run(context.Background(), []string{"-processes", "2", "-sites", "3", "-consentd", bin, "-database-url", url,
		"-posters", "16", "-listers", "1", "-duration", "3s", "-workers", "0"}); err != nil {
		t.Fatal(err)
	}
	s, err := bunstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var sites []string
	if err := s.DB().NewSelect().Table("consent_chains").Column("site_id").Scan(context.Background(), &sites); err != nil || len(sites) != 3 {
		t.Fatalf("chains: %v %v", sites, err)
	}
	for _, site := range sites {
		rep, err := consent.VerifyConsentChain(context.Background(), s, site)
		if err != nil || !rep.OK || rep.Records == 0 || rep.Batches < 2 {
			t.Fatalf("site %s's shared chain: %+v %v", site, rep, err)
		}
	}
}
