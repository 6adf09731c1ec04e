package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// ErrWorkerNeedsPostgres is returned by RunWorker on the embedded store: SQLite is a single
// node's database, so its scans are worked inside 'consentd serve'.
var ErrWorkerNeedsPostgres = errors.New("a standalone worker needs the Postgres store; with SQLite, scans are worked in-process by 'consentd serve' (CONSENTD_WORKERS)")

// ErrOneShot is returned by RunServer and RunWorker on an App built for a one-shot command
// (Config.OneShot), which has neither an HTTP handler nor a crawler.
var ErrOneShot = errors.New("this consentd was built for a one-shot command: it serves no HTTP and works no scan (Config.OneShot)")

// RunWorker works scan jobs (cfg.Workers at once) until ctx ends, with no HTTP server, then
// shuts down gracefully: it stops taking jobs and lets running scans finish within
// ShutdownTimeout, after which they are cancelled and left for another worker to retry.
func (a *App) RunWorker(ctx context.Context) error {
	if a.cfg.OneShot {
		return ErrOneShot
	}
	if a.store.Dialect() != "postgres" {
		return ErrWorkerNeedsPostgres
	}
	if a.cfg.Workers < 1 {
		return fmt.Errorf("workers: %d: a worker process needs at least 1", a.cfg.Workers)
	}
	if err := a.workers.Start(ctx); err != nil {
		return err
	}
	a.log.Info("consentd worker started", slog.Int("workers", a.cfg.Workers),
		slog.String("rescan_interval", a.cfg.RescanInterval.String()))
	<-ctx.Done()
	a.log.Info("worker shutting down", slog.Duration("deadline", a.cfg.ShutdownTimeout))
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.ShutdownTimeout)
	defer cancel()
	return a.workers.Stop(sctx)
}
