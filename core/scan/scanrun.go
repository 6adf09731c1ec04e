package scan

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
)

// transition moves a scan from pending or running to another state, reading and writing
// it in one transaction (the read locks the row on Postgres; SQLite transactions are
// serialized). Only pending and running scans may move: a scan that already completed or
// failed is refused with conflict, so a late worker, the sweeper and a rescued job cannot
// overwrite each other's result; the first transition wins.
func (worker *ScanWorker) transition(ctx context.Context, scanID string, apply func(tx Store, s *Scan) error) (*Scan, error) {
	var s *Scan
	err := worker.Store.InTx(ctx, func(tx Store) error {
		var err error
		if s, err = tx.ScanByID(ctx, scanID); err != nil {
			return err
		}
		if s.Status != ScanPending && s.Status != ScanRunning {
			return core.Errorf(core.CodeConflict, "scan %s already %s", scanID, s.Status)
		}
		if err := apply(tx, s); err != nil {
			return err
		}
		return tx.UpdateScan(ctx, s)
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// StartScan moves a pending scan to running; a running one (its worker died and the job was
// rescued) stays running. A finished scan is refused with conflict, so that a redelivered job
// does nothing.
func (worker *ScanWorker) StartScan(ctx context.Context, scanID string) (*Scan, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return nil, err
	}
	return worker.transition(ctx, scanID, func(_ Store, s *Scan) error {
		if s.Status == ScanPending {
			now := worker.Clock.Now()
			s.Status, s.StartedAt = ScanRunning, &now
		}
		return nil
	})
}

// CompleteScan stores a crawl's result on a pending or running scan, with what changed since
// the previous completed scan of the same site and mode; conflict when the scan already
// finished.
func (worker *ScanWorker) CompleteScan(ctx context.Context, scanID string, res *core.CrawlResult) error {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return err
	}
	_, err := worker.transition(ctx, scanID, func(tx Store, s *Scan) error {
		now := worker.Clock.Now()
		if s.StartedAt == nil {
			s.StartedAt = &now
		}
		s.Status, s.FinishedAt, s.ErrorMessage = ScanCompleted, &now, nil
		s.PagesScanned = res.PagesScanned
		s.DetectedServices = core.OrEmptySlice(res.DetectedServices)
		s.UnrecognizedScripts = core.OrEmptySlice(res.UnrecognizedScripts)
		s.PageErrors = core.OrEmptySlice(res.PageErrors)
		s.UnrecognizedCookies = core.OrEmptySlice(res.UnrecognizedCookies)
		s.PreConsent = core.OrEmptySlice(res.PreConsent)
		s.Mentions = core.OrEmptySlice(res.Mentions)
		s.Verification = res.Verification
		used := res.ModeUsed
		if used == "" {
			used = core.ScanStatic
		}
		s.ModeUsed = &used
		if err := worker.compareWithPrevious(ctx, tx, s); err != nil {
			return err
		}
		return publishScan(ctx, worker.Events, tx, s)
	})
	return err
}

// compareWithPrevious sets s.Changes from the site's previous completed scan of s's mode, read
// in tx (the transaction completing s); it stays nil for the site's first such scan. A
// verification scan's changes include the compliance verdict: the site's configuration, as it
// is now, judged with the previous scan's observations and with s's.
func (worker *ScanWorker) compareWithPrevious(ctx context.Context, tx Store, s *Scan) error {
	prev, err := tx.LatestScanOfMode(ctx, s.SiteID, s.Mode, ScanCompleted)
	if core.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if prev.ID == s.ID {
		return nil
	}
	var before, after *ComplianceReport
	if s.Mode == core.ScanVerify && prev.Verification != nil && s.Verification != nil {
		in := &ComplianceInput{}
		if in.Banner, err = tx.Banner(ctx, s.SiteID); err != nil {
			return err
		}
		if in.Categories, err = tx.Categories(ctx, s.SiteID); err != nil {
			return err
		}
		if in.Services, err = tx.Services(ctx, s.SiteID); err != nil {
			return err
		}
		now := worker.Clock.Now()
		before = EvaluateCompliance(in, prev.Verification, prev.ID, worker.Catalog, now)
		after = EvaluateCompliance(in, s.Verification, s.ID, worker.Catalog, now)
	}
	s.Changes = CompareScans(prev, s, before, after)
	return nil
}

// FailScan ends a pending or running scan as failed; conflict when it already finished.
// reason is shown to the site owner as the scan's errorMessage: a sentence, never a driver
// error, a panic value or queue internals.
func (worker *ScanWorker) FailScan(ctx context.Context, scanID, reason string) error {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return err
	}
	_, err := worker.transition(ctx, scanID, func(tx Store, s *Scan) error {
		now := worker.Clock.Now()
		s.Status, s.FinishedAt, s.ErrorMessage = ScanFailed, &now, &reason
		return publishScan(ctx, worker.Events, tx, s)
	})
	return err
}

// CrawlError is a crawl failure the site owner can act on; Message is the sentence shown as
// the scan's errorMessage ("the site answered 503 on every page"). Crawler adapters return
// it, marked Temporary when worth retrying; any other error fails the scan with
// ScanInternalFailure and goes to the log.
type CrawlError struct {
	Message string
	Err     error
}

// Error implements error.
func (e *CrawlError) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *CrawlError) Unwrap() error { return e.Err }

// Messages of scans that ended for reasons of our own, shown as errorMessage.
const (
	ScanInternalFailure = "the scan stopped because of an internal error; the operator's log has the details under this scan's ID"
	ScanAbandoned       = "the scan was abandoned: the worker running it stopped before it could finish, on every attempt"
	ScanCancelled       = "the scan was cancelled before it could finish"
)

// scanFailureMessage returns the sentence a site owner sees for a crawl error.
func scanFailureMessage(err error) (string, bool) {
	var ce *CrawlError
	if errors.As(err, &ce) && ce.Message != "" {
		return ce.Message, true
	}
	return ScanInternalFailure, false
}

// RunScan works a scan job: it marks the scan running, crawls, and stores the result. A
// temporary crawl failure is returned as it is, leaving the scan running, so that the queue
// retries the job; on the last attempt, or for a permanent failure, the scan ends failed with
// a sentence for the site owner (the cause goes to the log with the scan ID). A job whose
// scan already finished or was deleted does nothing. It returns the scan's status after the
// attempt ("" when the scan is gone).
func (worker *ScanWorker) RunScan(ctx context.Context, job ScanJob, lastAttempt bool) (string, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return "", err
	}
	_, err := worker.StartScan(ctx, job.ScanID)
	switch {
	case core.IsNotFound(err), core.IsConflict(err): // deleted meanwhile, or finished: a redelivered job
		return "", nil
	case err != nil:
		return "", err
	}
	if worker.Crawler == nil {
		return ScanRunning, errors.New("core: scans need a crawler")
	}
	mode := job.Mode
	if mode == "" {
		mode = core.ScanStatic
	}
	req := CrawlRequest{URLs: job.URLs, StorefrontPassword: job.StorefrontPassword, Mode: mode, ProjectKey: job.ProjectKey}
	if mode == core.ScanVerify {
		if err := worker.verifyPlaces(ctx, job.SiteID, &req); err != nil {
			return ScanRunning, err
		}
	}
	res, err := worker.Crawler.Crawl(ctx, req)
	if err != nil {
		if core.IsTemporary(err) && !lastAttempt {
			return ScanRunning, err
		}
		msg, known := scanFailureMessage(err)
		if !known {
			worker.Log.Error("scan failed", slog.String("scan", job.ScanID), slog.Any("error", err))
		}
		return worker.finish(ctx, job.ScanID, worker.FailScan(context.WithoutCancel(ctx), job.ScanID, msg), ScanFailed)
	}
	status, err := worker.finish(ctx, job.ScanID, worker.CompleteScan(ctx, job.ScanID, res), ScanCompleted)
	if err == nil && status == ScanCompleted {
		worker.autoConfigure(context.WithoutCancel(ctx), job.SiteID, job.ScanID)
	}
	return status, err
}

// verifyPlaces sets a verification's places, one per regional rule of the site as configured
// now, and the credential that makes the server believe them (without Verifiers, the
// verification visits from the scanner's own place only).
func (worker *ScanWorker) verifyPlaces(ctx context.Context, siteID string, req *CrawlRequest) error {
	if worker.Verifiers == nil {
		return nil
	}
	orgID, err := worker.Store.SiteOrganization(ctx, siteID)
	if err != nil {
		return err
	}
	site, err := worker.Store.Site(ctx, orgID, siteID)
	if err != nil {
		return err
	}
	b, err := worker.Store.Banner(ctx, siteID)
	if err != nil {
		return err
	}
	req.Places = b.VerificationPlaces()
	// The credential outlives the verification by its own margin (verifier.DefaultTTL).
	req.Credential, _, err = worker.Verifiers.Issue(ctx, site, 0)
	return err
}

// autoConfigure adds the services a completed scan detected that the site lacks, when the
// site asks for it (Site.AutoConfigure), and notes them on the scan for the timeline. A
// failure is logged: the scan's result stands, and configure can be run by hand.
func (worker *ScanWorker) autoConfigure(ctx context.Context, siteID, scanID string) {
	orgID, err := worker.Store.SiteOrganization(ctx, siteID)
	if err != nil {
		return // deleted meanwhile
	}
	site, err := worker.Store.Site(ctx, orgID, siteID)
	if err != nil || !site.AutoConfigure {
		return
	}
	res, err := worker.Scans.ConfigureScan(ctx, orgID, siteID, scanID)
	if err == nil && len(res.Services) > 0 {
		var sc *Scan
		if sc, err = worker.Store.ScanByID(ctx, scanID); err == nil {
			for _, s := range res.Services {
				sc.AutoConfigured = append(sc.AutoConfigured, s.Slug)
			}
			err = worker.Store.UpdateScan(ctx, sc)
		}
	}
	if err != nil {
		worker.Log.Error("auto-configure after a scan failed", slog.String("scan", scanID), slog.Any("error", err))
	}
}

// finish turns the outcome of a final transition into RunScan's answer: refused means another
// party (the sweeper, a rescued copy of the job) finished the scan first, which is no error.
func (worker *ScanWorker) finish(ctx context.Context, scanID string, err error, status string) (string, error) {
	if err == nil {
		return status, nil
	}
	if core.IsConflict(err) || core.IsNotFound(err) {
		worker.Log.Info("scan finished elsewhere first", slog.String("scan", scanID), slog.Any("error", err))
		return "", nil
	}
	return ScanRunning, err
}

// FailUnfinished ends a scan failed with reason when it is still pending or running, for
// queues that give up on a job (its last attempt errored, panicked or was abandoned). A
// finished or deleted scan is left as it is, without error.
func (worker *ScanWorker) FailUnfinished(ctx context.Context, scanID, reason string) error {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return err
	}
	err := worker.FailScan(ctx, scanID, reason)
	if core.IsConflict(err) || core.IsNotFound(err) {
		return nil
	}
	return err
}

// ScanWorker are the use cases of the scan worker: running a queued scan through the
// crawler, and the periodic rescans and schedules.
type ScanWorker struct {
	Store   Store
	Crawler SiteCrawler
	Catalog core.Catalog
	// AllSites is only for deployment-wide work: request-scoped use cases never see across
	// organizations.
	AllSites core.SiteLister
	Clock    core.Clock
	Log      *slog.Logger
	ScanMode string
	// DefaultScanPeriod is how often sites on the default schedule are scanned; 0 for never.
	DefaultScanPeriod time.Duration
	Events            *event.Publisher
	// Scans trigger the rescans and configure what a scan found, as the API does.
	Scans *Scans
	// Verifiers issue the credential a verification scan's browser shows consentd's public
	// endpoints to be a visitor from each regional rule's place (core/verifier); without them a
	// verification visits from the scanner's own place only.
	Verifiers VerifierIssuer
}

// VerifierIssuer issues a verifier's credential for one verification of a site.
type VerifierIssuer interface {
	Issue(ctx context.Context, site *core.Site, ttl time.Duration) (string, time.Time, error)
}

// ScanEvent is the data of the scan.* and compliance.changed events.
type ScanEvent struct {
	SiteID       string       `json:"siteId"`
	ScanID       string       `json:"scanId"`
	Status       string       `json:"status"`
	Mode         string       `json:"mode"`
	URL          string       `json:"url"`
	FinishedAt   *time.Time   `json:"finishedAt"`
	ErrorMessage *string      `json:"errorMessage"`
	Services     []string     `json:"detectedServices"`
	Changes      *ScanChanges `json:"changes"`
}

func scanEvent(s *Scan) ScanEvent {
	ev := ScanEvent{SiteID: s.SiteID, ScanID: s.ID, Status: s.Status, Mode: s.Mode, URL: s.URL, FinishedAt: s.FinishedAt,
		ErrorMessage: s.ErrorMessage, Services: []string{}, Changes: s.Changes}
	for _, d := range s.DetectedServices {
		ev.Services = append(ev.Services, d.Slug)
	}
	return ev
}

// publishScan publishes what a finished scan tells, in the transaction that finished it.
func publishScan(ctx context.Context, events *event.Publisher, tx Store, s *Scan) error {
	if s.Status == ScanFailed {
		return events.Publish(ctx, tx, s.SiteID, event.EventScanFailed, scanEvent(s))
	}
	if err := events.Publish(ctx, tx, s.SiteID, event.EventScanCompleted, scanEvent(s)); err != nil {
		return err
	}
	if s.Changes != nil && s.Changes.Count > 0 {
		if err := events.Publish(ctx, tx, s.SiteID, event.EventScanChanged, scanEvent(s)); err != nil {
			return err
		}
	}
	if s.Changes != nil && s.Changes.Compliance.Changed() {
		if err := events.Publish(ctx, tx, s.SiteID, event.EventComplianceChanged, scanEvent(s)); err != nil {
			return err
		}
	}
	return nil
}
