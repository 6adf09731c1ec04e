package coretest

import (
	"sync"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// emptyCatalog is a library without services.
type emptyCatalog struct{}

func (emptyCatalog) Services() []*library.Service            { return nil }
func (emptyCatalog) Service(string) (*library.Service, bool) { return nil, false }
func (emptyCatalog) Search(string) []*library.Service        { return nil }

// workerCtx is how the scan worker's use cases are called: as the system's scan worker.
var workerCtx = core.WithActor(ctx, core.System("scan worker"))

// scanWorker is core's scan worker on the store under test. It needs no queue: the
// transition tests create their scans by hand.
func scanWorker(t *testing.T, s usecases.Store) *scan.ScanWorker {
	t.Helper()
	uc, err := usecases.New(usecases.Deps{Store: s, Catalog: emptyCatalog{}, Now: now, NewID: id})
	must(t, err)
	return uc.ScanWorker
}

func newPendingScan(t *testing.T, s usecases.Store, f fixture) *scan.Scan {
	t.Helper()
	sc := &scan.Scan{ID: id(), SiteID: f.site.ID, URL: f.site.URL, URLs: []string{f.site.URL}, Status: scan.ScanPending, CreatedAt: now()}
	must(t, s.CreateScan(ctx, sc))
	return sc
}

// testScanTransitions: a scan moves from pending or running exactly once. Complete after fail,
// fail after complete, start after either, and racing completes are refused with conflict; the
// first transition's result stays.
func testScanTransitions(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	worker := scanWorker(t, s)
	result := func(pages int) *core.CrawlResult { return &core.CrawlResult{PagesScanned: pages} }

	t.Run("CompleteAfterFail", func(t *testing.T) {
		sc := newPendingScan(t, s, f)
		got, err := worker.StartScan(workerCtx, sc.ID)
		must(t, err)
		if got.Status != scan.ScanRunning || got.StartedAt == nil {
			t.Fatalf("started scan: %s", got.Status)
		}
		must(t, worker.FailScan(workerCtx, sc.ID, "the site answered 503 on every page"))
		wantCode(t, worker.CompleteScan(workerCtx, sc.ID, result(3)), core.CodeConflict)
		_, err = worker.StartScan(workerCtx, sc.ID)
		wantCode(t, err, core.CodeConflict)
		got, err = s.ScanByID(ctx, sc.ID)
		must(t, err)
		if got.Status != scan.ScanFailed || got.PagesScanned != 0 || got.ErrorMessage == nil {
			t.Fatalf("failed scan overwritten: %+v", got)
		}
	})

	t.Run("FailAfterComplete", func(t *testing.T) {
		sc := newPendingScan(t, s, f)
		must(t, worker.CompleteScan(workerCtx, sc.ID, result(3)))
		wantCode(t, worker.FailScan(workerCtx, sc.ID, "late sweeper"), core.CodeConflict)
		must(t, worker.FailUnfinished(workerCtx, sc.ID, "late sweeper")) // the sweeper's form: no error, no change
		got, err := s.ScanByID(ctx, sc.ID)
		must(t, err)
		if got.Status != scan.ScanCompleted || got.PagesScanned != 3 || got.ErrorMessage != nil {
			t.Fatalf("completed scan overwritten: %+v", got)
		}
	})

	t.Run("RacingCompletes", func(t *testing.T) {
		sc := newPendingScan(t, s, f)
		_, err := worker.StartScan(workerCtx, sc.ID)
		must(t, err)
		const n = 6
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					errs[i] = worker.CompleteScan(workerCtx, sc.ID, result(i+1))
				} else {
					errs[i] = worker.FailScan(workerCtx, sc.ID, "rescued copy failed")
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
		if winner%2 == 0 && (got.Status != scan.ScanCompleted || got.PagesScanned != winner+1) ||
			winner%2 == 1 && got.Status != scan.ScanFailed {
			t.Fatalf("winner %d, stored %s with %d pages", winner, got.Status, got.PagesScanned)
		}
	})

	t.Run("Missing", func(t *testing.T) {
		wantCode(t, worker.CompleteScan(workerCtx, id(), result(1)), core.CodeNotFound)
		must(t, worker.FailUnfinished(workerCtx, id(), "gone"))
	})
}

// testLatestScanOfMode: the compliance report reads the latest completed verification scan,
// whatever scans of other modes or statuses came after it, with its verification stored by
// UpdateScan.
func testLatestScanOfMode(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	base := now()
	mk := func(i int, mode, status string) *scan.Scan {
		sc := &scan.Scan{ID: id(), SiteID: f.site.ID, URL: "https://shop.example", URLs: []string{"https://shop.example"},
			Status: scan.ScanPending, Mode: mode, CreatedAt: base.Add(time.Duration(i) * time.Second)}
		must(t, s.CreateScan(ctx, sc))
		if status != scan.ScanPending {
			fin := base.Add(time.Duration(i)*time.Second + time.Minute)
			sc.Status, sc.FinishedAt = status, &fin
			if mode == core.ScanVerify && status == scan.ScanCompleted {
				sc.Verification = &core.Verification{Banner: core.BannerConsentd, ConsentModeDefault: true, States: []core.VerifiedState{{
					State: core.StateNoDecision, Pages: []string{"https://shop.example/"},
					Requests: []core.VerifiedRequest{{URL: "https://static.hotjar.com/c/hotjar-1.js", Page: "https://shop.example/",
						Service: "hotjar", Category: "statistics", Type: "Script", ThirdParty: true}},
					Cookies:      []core.VerifiedStorage{{Kind: core.StorageCookie, Name: "_hjid", Domain: "shop.example", Page: "https://shop.example/", Service: "hotjar", Category: "statistics"}},
					Storage:      []core.VerifiedStorage{},
					HeldUnmarked: []core.HeldTag{{URL: "https://t.example/x.js", Page: "https://shop.example/", Requested: true}},
				}}}
			}
			must(t, s.UpdateScan(ctx, sc))
		}
		return sc
	}
	_, err := s.LatestScanOfMode(ctx, f.site.ID, core.ScanVerify, scan.ScanCompleted)
	wantCode(t, err, core.CodeNotFound)
	want := mk(0, core.ScanVerify, scan.ScanCompleted)
	mk(1, core.ScanDeep, scan.ScanCompleted)
	mk(2, core.ScanVerify, scan.ScanFailed)
	mk(3, core.ScanVerify, scan.ScanPending)
	got, err := s.LatestScanOfMode(ctx, f.site.ID, core.ScanVerify, scan.ScanCompleted)
	must(t, err)
	if got.ID != want.ID || got.FinishedAt == nil || !got.FinishedAt.Equal(*want.FinishedAt) {
		t.Fatalf("latest completed verify scan: got %s, want %s", got.ID, want.ID)
	}
	v := got.Verification
	if v == nil || v.Banner != core.BannerConsentd || !v.ConsentModeDefault || len(v.States) != 1 ||
		len(v.States[0].Requests) != 1 || v.States[0].Requests[0].Service != "hotjar" || len(v.States[0].Cookies) != 1 ||
		len(v.States[0].HeldUnmarked) != 1 || !v.States[0].HeldUnmarked[0].Requested {
		t.Fatalf("verification round trip through UpdateScan: %+v", v)
	}
	if latest, err := s.LatestScan(ctx, f.site.ID, scan.ScanCompleted); err != nil || latest.Mode != core.ScanDeep {
		t.Fatalf("LatestScan ignores the mode: %v %v", latest, err)
	}
	if _, err := s.LatestScanOfMode(ctx, seed(t, s).site.ID, core.ScanVerify, scan.ScanCompleted); core.ErrorCode(err) != core.CodeNotFound {
		t.Fatalf("another site's verification scan: %v", err)
	}
}
