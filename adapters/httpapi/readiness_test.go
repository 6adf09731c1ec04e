package httpapi_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/adapters/bunstore"
)

// TestReadyzReadOnlyThenWritable: the SQLite file turns read-only (the store's fault layer:
// writes fail with SQLITE_READONLY, and a connection opened meanwhile stays read-only for good,
// as SQLite's does) while reads still work. /readyz, which writes, goes 503 with code
// unavailable and Retry-After, and so do consent posts; once the file is writable again,
// /readyz goes 200 and writes succeed without a restart (the read-only connections were
// dropped, new ones opened).
func TestReadyzReadOnlyThenWritable(t *testing.T) {
	faults := &bunstore.Faults{}
	e := newEnvStore(t, "sqlite://"+filepath.Join(t.TempDir(), "api.db"), []byte("/* runtime */"), nil, bunstore.WithFaults(faults))
	testWriteFault(t, e, func() { faults.ReadOnly(sqliteCode(sqliteReadOnly)) }, func() { faults.ReadOnly(nil) })
}

// TestReadyzFullDisk is TestReadyzReadOnlyThenWritable with a full disk (SQLITE_FULL on every
// write, while reads work).
func TestReadyzFullDisk(t *testing.T) {
	faults := &bunstore.Faults{}
	e := newEnvStore(t, "sqlite://"+filepath.Join(t.TempDir(), "api.db"), []byte("/* runtime */"), nil, bunstore.WithFaults(faults))
	testWriteFault(t, e, func() { faults.FailWrites(sqliteCode(sqliteFull)) }, func() { faults.FailWrites(nil) })
}

func testWriteFault(t *testing.T, e *env, fail, clear func()) {
	siteID, pk := e.site()
	post := "/api/v1/public/" + pk + "/consent"
	decision := func(i int) string {
		return `{"visitorId":"v` + strconv.Itoa(i) + `","consentVersion":1,"categories":{}}`
	}
	e.want(e.raw("GET", "/readyz", "", ""), http.StatusOK)
	e.want(e.raw("POST", post, "", decision(0)), http.StatusCreated)

	fail()
	// Several posts at once, so that the pool opens connections while the fault lasts.
	done := make(chan resp, 8)
	for i := range 8 {
		go func() { done <- e.raw("POST", post, "", decision(100+i)) }()
	}
	for range 8 {
		r := e.want(<-done, http.StatusServiceUnavailable, "unavailable")
		if r.header.Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
	}
	r := e.want(e.raw("GET", "/readyz", "", ""), http.StatusServiceUnavailable, "unavailable")
	if r.header.Get("Retry-After") == "" {
		t.Error("/readyz: 503 without Retry-After")
	}
	// Reads still work, on connections the pool opens meanwhile (six held at once).
	var conns []bun.Conn
	for range 6 {
		c, err := e.store.DB().Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := c.QueryRowContext(context.Background(), "SELECT count(*) FROM consent_records WHERE site_id = ?", siteID).Scan(&n); err != nil || n != 1 {
			t.Fatalf("a read while writes fail: %d records, %v", n, err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Close()
	}

	clear()
	deadline := time.Now().Add(5 * time.Second)
	for e.raw("GET", "/readyz", "", "").status != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("/readyz is not 200 within 5 s of the fault's end")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Writes succeed again, every one, without a restart.
	for i := range 20 {
		e.want(e.raw("POST", post, "", decision(200+i)), http.StatusCreated)
	}
	e.want(e.raw("GET", "/readyz", "", ""), http.StatusOK)
}
