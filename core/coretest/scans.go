package coretest

import (
	"context"
	"sync"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// nopQueue accepts every job: the transition tests create their scans by hand.
type nopQueue struct{}

func (nopQueue) EnqueueScan(context.Context, core.Store, core.ScanJob) error { return nil }

// emptyCatalog is a library without services.
type emptyCatalog struct{}

func (emptyCatalog) Services() []*library.Service            { return nil }
func (emptyCatalog) Service(string) (*library.Service, bool) { return nil, false }
func (emptyCatalog) Search(string) []*library.Service        { return nil }

// scanUseCases are core's scan use cases on the store under test.
func scanUseCases(t *testing.T, s core.Store) *core.Scans {
	t.Helper()
	uc, err := core.New(core.Deps{Store: s, Queue: nopQueue{}, Catalog: emptyCatalog{}, Now: now, NewID: id})
	must(t, err)
	return uc.Scans
}

func newPendingScan(t *testing.T, s core.Store, f fixture) *core.Scan {
	t.Helper()
	sc := &core.Scan{ID: id(), SiteID: f.site.ID, URL: f.site.URL, URLs: []string{f.site.URL}, Status: core.ScanPending, CreatedAt: now()}
	must(t, s.CreateScan(ctx, sc))
	return sc
}

// testScanTransitions: a scan moves from pending or running exactly once. Complete after fail,
// fail after complete, start after either, and racing completes are refused with conflict; the
// first transition's result stays.
func testScanTransitions(t *testing.T, s core.Store) {
	f := seed(t, s)
	scans := scanUseCases(t, s)
	result := func(pages int) *core.CrawlResult { return &core.CrawlResult{PagesScanned: pages} }

	t.Run("CompleteAfterFail", func(t *testing.T) {
		sc := newPendingScan(t, s, f)
		got, err := scans.StartScan(ctx, sc.ID)
		must(t, err)
		if got.Status != core.ScanRunning || got.StartedAt == nil {
			t.Fatalf("started scan: %s", got.Status)
		}
		must(t, scans.FailScan(ctx, sc.ID, "the site answered 503 on every page"))
		wantCode(t, scans.CompleteScan(ctx, sc.ID, result(3)), core.CodeConflict)
		_, err = scans.StartScan(ctx, sc.ID)
		wantCode(t, err, core.CodeConflict)
		got, err = s.ScanByID(ctx, sc.ID)
		must(t, err)
		if got.Status != core.ScanFailed || got.PagesScanned != 0 || got.ErrorMessage == nil {
			t.Fatalf("failed scan overwritten: %+v", got)
		}
	})

	t.Run("FailAfterComplete", func(t *testing.T) {
		sc := newPendingScan(t, s, f)
		must(t, scans.CompleteScan(ctx, sc.ID, result(3)))
		wantCode(t, scans.FailScan(ctx, sc.ID, "late sweeper"), core.CodeConflict)
		must(t, scans.FailUnfinished(ctx, sc.ID, "late sweeper")) // the sweeper's form: no error, no change
		got, err := s.ScanByID(ctx, sc.ID)
		must(t, err)
		if got.Status != core.ScanCompleted || got.PagesScanned != 3 || got.ErrorMessage != nil {
			t.Fatalf("completed scan overwritten: %+v", got)
		}
	})

	t.Run("RacingCompletes", func(t *testing.T) {
		sc := newPendingScan(t, s, f)
		_, err := scans.StartScan(ctx, sc.ID)
		must(t, err)
		const n = 6
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					errs[i] = scans.CompleteScan(ctx, sc.ID, result(i+1))
				} else {
					errs[i] = scans.FailScan(ctx, sc.ID, "rescued copy failed")
				}
			}()
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("transitions %d and %d both succeeded", winner, i)
			case err == nil:
				winner = i
			default:
				wantCode(t, err, core.CodeConflict)
			}
		}
		if winner < 0 {
			t.Fatal("no transition succeeded")
		}
		got, err := s.ScanByID(ctx, sc.ID)
		must(t, err)
		if winner%2 == 0 && (got.Status != core.ScanCompleted || got.PagesScanned != winner+1) ||
			winner%2 == 1 && got.Status != core.ScanFailed {
			t.Fatalf("winner %d, stored %s with %d pages", winner, got.Status, got.PagesScanned)
		}
	})

	t.Run("Missing", func(t *testing.T) {
		wantCode(t, scans.CompleteScan(ctx, id(), result(1)), core.CodeNotFound)
		must(t, scans.FailUnfinished(ctx, id(), "gone"))
	})
}
