package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/consentd/consentd/adapters/console"
	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// downStore is memstore whose session reads fail as a store that cannot answer does (the bun
// store's unavailable error) while down is set.
type downStore struct {
	*memstore.Store
	down atomic.Bool
}

func (s *downStore) Session(ctx context.Context, id string) (*identity.Session, error) {
	if s.down.Load() {
		return nil, core.Errorf(core.CodeUnavailable, "the database is unavailable; retry later")
	}
	return s.Store.Session(ctx, id)
}

var _ usecases.Store = (*downStore)(nil)

// TestConsoleStoreUnavailable: a signed-in person's page while the store cannot answer is a
// 503 with Retry-After that says so in words, not a redirect to sign in again; once the store
// answers, the same session works.
func TestConsoleStoreUnavailable(t *testing.T) {
	t.Parallel()
	cat, err := library.Load("")
	if err != nil {
		t.Fatal(err)
	}
	store := &downStore{Store: memstore.New()}
	now := func() time.Time { return time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC) }
	uc, err := usecases.New(usecases.Deps{Store: store, Catalog: cat, Now: now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := uc.Orgs.Bootstrap(systemCtx, unitKey); err != nil {
		t.Fatal(err)
	}
	h, err := console.New(console.Config{UseCases: console.FromCore(uc), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	w := &unitWorld{srv: srv, uc: uc}
	c := w.client(t)
	w.signIn(t, c, unitKey)
	if res, _ := get(t, c, srv.URL+"/sites"); res.StatusCode != http.StatusOK {
		t.Fatalf("signed in: %d", res.StatusCode)
	}

	store.down.Store(true)
	res, body := get(t, c, srv.URL+"/sites")
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("store down: %d, Retry-After %q, Location %q", res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("Location"))
	}
	if !strings.Contains(body, "database cannot be reached") {
		t.Errorf("the page does not say the database cannot be reached: %.400s", body)
	}

	store.down.Store(false)
	if res, _ := get(t, c, srv.URL+"/sites"); res.StatusCode != http.StatusOK {
		t.Fatalf("store back: %d", res.StatusCode)
	}
}
