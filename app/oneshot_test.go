package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"path/filepath"
	"testing"

	"github.com/consentd/consentd/core"
)

// TestOneShot: an App built for a one-shot command works in its database (here: the bootstrap
// organization it made is listed) but has no HTTP handler, no crawler and no browsers, and
// refuses to serve or to work scans.
func TestOneShot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, err := New(ctx, Config{DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "o.db"), BootstrapAPIKey: testKey,
		OneShot: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	orgs, err := a.UseCases().Orgs.Organizations(core.WithActor(ctx, core.System("test")))
	if err != nil || len(orgs) != 1 {
		t.Fatalf("organizations: %v, %v; want the bootstrap one", orgs, err)
	}
	if a.Handler() != nil || a.browsers != nil {
		t.Errorf("a one-shot App built its handler (%v) or a browser pool (%v)", a.Handler() != nil, a.browsers != nil)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RunServer(ctx, ln); !errors.Is(err, ErrOneShot) {
		t.Errorf("RunServer: %v, want ErrOneShot", err)
	}
	if err := a.RunWorker(ctx); !errors.Is(err, ErrOneShot) {
		t.Errorf("RunWorker: %v, want ErrOneShot", err)
	}
}
