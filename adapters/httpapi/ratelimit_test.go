package httpapi_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
)

// TestPublicRateLimit: a client past its burst gets 429 with the error body; management
// endpoints are not limited.
func TestPublicRateLimit(t *testing.T) {
	m, err := core.New(core.Deps{Store: memstore.New(), Catalog: loadCatalog(t), Now: time.Now, NewID: func() string { return uuid.NewString() }})
	if err != nil {
		t.Fatal(err)
	}
	org, err := m.Orgs.CreateOrganization(context.Background(), "o")
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := m.Orgs.CreateAPIKey(context.Background(), org.ID, "k", "")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Config{UseCases: httpapi.FromCore(m), Logger: slog.New(slog.DiscardHandler), PublicRateLimit: 1}))
	defer srv.Close()
	e := &env{t: t, srv: srv, m: m, keyA: key}
	codes := map[int]int{}
	for range 10 {
		codes[e.raw("GET", "/api/v1/public/pk_nope/config", "", "").status]++
	}
	// rate 1/s with a burst of 2: the first two reach the handler (404), the rest are refused
	if codes[404] < 2 || codes[404] > 3 || codes[429] < 7 {
		t.Fatalf("statuses %v", codes)
	}
	r := e.raw("GET", "/api/v1/public/pk_nope/config", "", "")
	e.want(r, 429, "rate_limited")
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	for range 10 {
		e.want(e.do("GET", "/api/v1/sites", nil), 200)
	}
}
