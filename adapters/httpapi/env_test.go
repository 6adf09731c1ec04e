package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/iabgvl"
	"github.com/consentd/consentd/adapters/tcstring"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// recordingQueue is a test double of core.ScanQueue: it keeps the jobs it was given so that a
// test can work them through core's scan worker.
type recordingQueue struct {
	mu   sync.Mutex
	jobs []scan.ScanJob
}

func (q *recordingQueue) EnqueueScan(_ context.Context, _ scan.Store, job scan.ScanJob) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, job)
	return nil
}

var (
	catalogOnce sync.Once
	catalog     *library.Catalog
)

func loadCatalog(t testing.TB) *library.Catalog {
	catalogOnce.Do(func() {
		var err error
		catalog, err = library.Load("")
		if err != nil {
			panic(err)
		}
	})
	return catalog
}

type env struct {
	t     testing.TB
	srv   *httptest.Server
	m     *usecases.UseCases
	queue *recordingQueue
	keyA  string // organization A
	keyB  string // organization B
	logs  *logBuffer
	store *bunstore.Store
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvOn(t, "sqlite://"+filepath.Join(t.TempDir(), "api.db"))
}

// newPostgresEnv is newEnv on a fresh Postgres database (skipped without one, see pgtest).
func newPostgresEnv(t *testing.T) *env {
	t.Helper()
	return newEnvOn(t, pgtest.FreshURL(t))
}

// logBuffer collects the handler's log lines (JSON, one a line) for tests that assert on them.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// errors returns the ERROR-level lines logged since the last call, and forgets them.
func (l *logBuffer) errors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.b.String(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			out = append(out, line)
		}
	}
	l.b.Reset()
	return out
}

// memCore is core on store (a memory store, for tests that need no database) with the
// library's catalog.
func memCore(tb testing.TB, store usecases.Store) *usecases.UseCases {
	tb.Helper()
	m, err := usecases.New(usecases.Deps{Store: store, Catalog: loadCatalog(tb), Now: time.Now,
		NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func newEnvOn(t testing.TB, dbURL string) *env {
	t.Helper()
	return newEnvWith(t, dbURL, []byte("/* runtime */"))
}

// sysCtx is the tests' setup acting as the operator's command line or a job would: without
// an actor the use cases refuse.
var sysCtx = core.WithActor(context.Background(), core.System("httpapi tests"))

// newEnvWith is newEnvOn serving runtime as the banner runtime (the loader's code).
func newEnvWith(t testing.TB, dbURL string, runtime []byte) *env {
	t.Helper()
	return newEnvDeps(t, dbURL, runtime, nil)
}

// newEnvDeps is newEnvWith with core's dependencies changed by deps (nil: as they are).
func newEnvDeps(t testing.TB, dbURL string, runtime []byte, deps func(*usecases.Deps)) *env {
	t.Helper()
	return newEnvStore(t, dbURL, runtime, deps)
}

// newEnvStore is newEnvDeps with the store opened with opts (bunstore.WithFaults).
func newEnvStore(t testing.TB, dbURL string, runtime []byte, deps func(*usecases.Deps), opts ...bunstore.Option) *env {
	t.Helper()
	ctx := sysCtx
	store, err := bunstore.Open(ctx, dbURL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	q := &recordingQueue{}
	d := usecases.Deps{
		Store: store, Queue: q, Catalog: loadCatalog(t), Now: time.Now,
		NewID:       func() string { return uuid.Must(uuid.NewV7()).String() },
		VendorLists: fixtureGVL(t), TCF: testTCF, TCStrings: tcstring.Decoder{},
	}
	if deps != nil {
		deps(&d)
	}
	m, err := usecases.New(d)
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	h := httpapi.New(httpapi.Config{UseCases: httpapi.FromCore(m), Logger: slog.New(slog.NewJSONHandler(logs, nil)), CountryHeader: "X-Country", PublicRateLimit: 0,
		RuntimeScript: runtime, TCFStub: func(lang string) []byte { return []byte("/* __tcfapi stub, " + lang + " */") }})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	e := &env{t: t, srv: srv, m: m, queue: q, logs: logs, store: store}
	for _, k := range []*string{&e.keyA, &e.keyB} {
		org, err := m.Orgs.CreateOrganization(ctx, "org")
		if err != nil {
			t.Fatal(err)
		}
		_, *k, err = m.Orgs.CreateAPIKey(ctx, org.ID, "test", "")
		if err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// testTCF is the TCF identity of the tests' deployment: a CMP ID for tests only (docs/tcf.md:
// a real deployment uses the one IAB Europe assigned its operator).
var testTCF = tcf.TCFDeployment{CMPID: 4095, CMPVersion: 7}

var (
	gvlOnce    sync.Once
	gvlFixture *iabgvl.File
	gvlErr     error
)

// fixtureGVL is the IAB's GVL v3 fixture (testdata/tcf, vendorListVersion 17), read once.
func fixtureGVL(tb testing.TB) *iabgvl.File {
	tb.Helper()
	gvlOnce.Do(func() { gvlFixture, gvlErr = iabgvl.OpenFile("../../testdata/tcf/vendor-list-v17.json") })
	if gvlErr != nil {
		tb.Fatal(gvlErr)
	}
	return gvlFixture
}

type resp struct {
	status int
	body   []byte
	header http.Header
}

// json decodes the body into a generic value.
func (r resp) json(t testing.TB) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("body is not JSON (%d): %s", r.status, r.body)
	}
	return v
}

func (r resp) obj(t testing.TB) map[string]any {
	t.Helper()
	m, ok := r.json(t).(map[string]any)
	if !ok {
		t.Fatalf("body is not an object: %s", r.body)
	}
	return m
}

func (r resp) arr(t testing.TB) []any {
	t.Helper()
	a, ok := r.json(t).([]any)
	if !ok {
		t.Fatalf("body is not an array: %s", r.body)
	}
	return a
}

// raw sends a request with a literal body (nil for none).
func (e *env) raw(method, path, key, body string, headers ...string) resp {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp{status: res.StatusCode, body: b, header: res.Header}
}

// do sends body (marshalled to JSON unless nil) as organization A unless key says otherwise.
func (e *env) do(method, path string, body any, key ...string) resp {
	e.t.Helper()
	k := e.keyA
	if len(key) > 0 {
		k = key[0]
	}
	s := ""
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		s = string(b)
	}
	return e.raw(method, path, k, s)
}

// want checks the status and, for errors, the error body and code.
func (e *env) want(r resp, status int, code ...string) resp {
	e.t.Helper()
	if r.status != status {
		e.t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if status >= 400 {
		var eb struct {
			Error *struct {
				Code    *string `json:"code"`
				Message *string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(r.body, &eb); err != nil || eb.Error == nil || eb.Error.Code == nil || eb.Error.Message == nil || *eb.Error.Message == "" {
			e.t.Fatalf("error body not {error:{code,message}}: %s", r.body)
		}
		if len(code) > 0 && *eb.Error.Code != code[0] {
			e.t.Fatalf("error code %q, want %q: %s", *eb.Error.Code, code[0], r.body)
		}
	}
	return r
}

// site creates a site for organization A and returns its id and projectKey.
func (e *env) site() (id, projectKey string) {
	e.t.Helper()
	s := e.want(e.do("POST", "/api/v1/sites", map[string]any{"name": "Shop", "url": "https://shop.example"}), 201).obj(e.t)
	return s["id"].(string), s["projectKey"].(string)
}

func (e *env) categoryID(siteID, slug string) string {
	e.t.Helper()
	for _, c := range e.want(e.do("GET", "/api/v1/sites/"+siteID+"/categories", nil), 200).arr(e.t) {
		if m := c.(map[string]any); m["slug"] == slug {
			return m["id"].(string)
		}
	}
	e.t.Fatalf("no category %q", slug)
	return ""
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func requireKeys(t *testing.T, m map[string]any, ks ...string) {
	t.Helper()
	for _, k := range ks {
		if _, ok := m[k]; !ok {
			t.Errorf("missing field %q in %v", k, keys(m))
		}
	}
}

func mustJSON(v any) string {
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(v) //nolint:errcheck // test values always encode
	return b.String()
}
