package scan

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/library"
)

// Scan statuses, as the API reports them (docs/scan-jobs.md).
const (
	ScanPending   = "pending"
	ScanRunning   = "running"
	ScanCompleted = "completed"
	ScanFailed    = "failed"
)

// Scan is one crawl of a site looking for trackers.
type Scan struct {
	ID     string   `json:"id"`
	SiteID string   `json:"siteId"`
	URL    string   `json:"url"`
	URLs   []string `json:"urls"`
	Status string   `json:"status"`
	// Mode is the mode asked for: static, deep, auto or verify.
	Mode string `json:"mode" enum:"static,deep,auto,verify"`
	// ModeUsed is the engine that ran: static or deep (auto picks deep when the worker has a
	// browser); null until the scan completed.
	ModeUsed            *string                   `json:"modeUsed" doc:"The mode that ran, static or deep; null until the scan completed (no enum: null must validate)."`
	DetectedServices    []core.DetectedService    `json:"detectedServices"`
	UnrecognizedScripts []core.UnrecognizedScript `json:"unrecognizedScripts"`
	PagesScanned        int                       `json:"pagesScanned"`
	// PageErrors are the pages that could not be read; the scan went on without them.
	PageErrors []core.PageError `json:"pageErrors"`
	// UnrecognizedCookies are the cookies and storage keys the browser held at the end of a
	// deep scan that no service claims, for review; empty for a static scan.
	UnrecognizedCookies []core.UnrecognizedCookie `json:"unrecognizedCookies"`
	// PreConsent lists each service that loaded or stored something before the visitor
	// consented (a deep scan gives no consent), with what it did; empty for a static scan.
	PreConsent []core.PreConsentFinding `json:"preConsent"`
	// Mentions are, for a deep scan, services (and tracking IDs of detected services) that the
	// pages only name — in script text, comments, data or a resource hint — with nothing the
	// browser loaded or stored for them and no tag held until consent that would load them: not
	// detections, listed apart for review. Empty for a static scan, which has no witness.
	Mentions []core.Mention `json:"mentions"`
	// Verification is what a verification scan (mode verify) saw per consent state; null for
	// the other modes and until the scan completed.
	Verification *core.Verification `json:"verification"`
	// Changes is what this scan found different from the previous completed scan of the same
	// site and mode; null until the scan completed, and for the site's first such scan.
	Changes *ScanChanges `json:"changes"`
	// AutoConfigured are the services the site's auto-configure added after this scan
	// (slugs); empty when it is off or added nothing.
	AutoConfigured []string   `json:"autoConfigured"`
	ErrorMessage   *string    `json:"errorMessage"`
	CreatedAt      time.Time  `json:"createdAt"`
	StartedAt      *time.Time `json:"startedAt"`
	FinishedAt     *time.Time `json:"finishedAt"`
}

// ScanStore persists scans.
type ScanStore interface {
	// CreateScan stores a new scan.
	CreateScan(ctx context.Context, s *Scan) error
	// Scan finds a scan of the site; not_found when there is none.
	Scan(ctx context.Context, siteID, id string) (*Scan, error)
	// ScanByID finds a scan of any site; not_found when there is none.
	ScanByID(ctx context.Context, id string) (*Scan, error)
	// Scans lists a site's scans, most recent first.
	Scans(ctx context.Context, siteID string) ([]*Scan, error)
	// LatestScan returns the site's most recent scan whose status is one of statuses;
	// not_found when there is none.
	LatestScan(ctx context.Context, siteID string, statuses ...string) (*Scan, error)
	// LatestScanOfMode is LatestScan among the site's scans of mode (the mode asked for, as
	// Scan.Mode); not_found when there is none.
	LatestScanOfMode(ctx context.Context, siteID, mode string, statuses ...string) (*Scan, error)
	// UpdateScan stores status, results, error and timestamps; not_found when it does not exist.
	UpdateScan(ctx context.Context, s *Scan) error
}

// ScanJob is the work of one scan, as handed to a queue.
type ScanJob struct {
	ScanID string   `json:"scanId"`
	SiteID string   `json:"siteId"`
	URLs   []string `json:"urls"`
	// Mode is static, deep or auto; jobs queued before modes existed have none and run static.
	Mode               string `json:"mode,omitempty"`
	StorefrontPassword string `json:"storefrontPassword,omitempty"`
	// ProjectKey is, for a verification scan, the site's project key when the scan was
	// triggered; jobs queued before verification scans have none.
	ProjectKey string `json:"projectKey,omitempty"`
}

// ScanQueue schedules scan jobs for a worker, which calls Scans.RunScan.
type ScanQueue interface {
	// EnqueueScan schedules job as part of tx, a transaction opened by Store.InTx, so that
	// the job exists if and only if the transaction that created its scan commits. A queue
	// that cannot join tx returns an error rather than insert the job on its own.
	EnqueueScan(ctx context.Context, tx Store, job ScanJob) error
}

// CrawlRequest is what the crawler is asked to visit.
type CrawlRequest struct {
	URLs               []string
	StorefrontPassword string
	// Mode is ScanStatic, ScanDeep, ScanAuto or ScanVerify.
	Mode string
	// ProjectKey is, for a verification scan, the site's project key: the runtime the pages
	// are expected to load.
	ProjectKey string
	// Places are, for a verification scan, the site's regional rules with a place each covers
	// (banner.VerificationPlaces): one run per rule. Credential is the verifier's credential
	// issued for this verification (core/verifier), which makes the server believe the place.
	Places     []core.RulePlace
	Credential string
}

// SiteCrawler crawls a site and fingerprints what it loads.
type SiteCrawler interface {
	// Crawl visits req.URLs and same-site links. It returns an error when the scan as a whole
	// failed, with a message fit for the scan's errorMessage; errors worth retrying are marked
	// with Temporary.
	Crawl(ctx context.Context, req CrawlRequest) (*core.CrawlResult, error)
}

// Limits of scan triggers, stated by the API's OpenAPI document (pinned by its schemalimits
// test).
const (
	MaxScanURLs     = 10
	MaxPasswordSize = 100
)

// Limits of scans, applied by every crawler adapter.
const (
	// ScanByteBudget bounds the bytes one deep scan's browser may download.
	ScanByteBudget = 256 << 20
	// DeepPageTimeout bounds one page in the browser: load, network quiet, scrolling.
	DeepPageTimeout = 20 * time.Second
	// DeepQuietFor is how long the network must be idle for a page to count as loaded; waits
	// for quiet are bounded by DeepQuietMax.
	DeepQuietFor = 400 * time.Millisecond
	DeepQuietMax = 5 * time.Second
	// DeepPagesAtOnce is how many pages a deep scan's browser loads at once, each in a
	// browser context of its own.
	DeepPagesAtOnce = 3
	// VerifyStatesAtOnce is how many consent states a verification scan visits at once, each
	// in a browser context of its own loading DeepPagesAtOnce pages at a time.
	VerifyStatesAtOnce = 3
	// VerifyStatePagesAtOnce is how many pages each of those states loads at once, as tabs of
	// its browser context: a page's load is mostly waiting for its network to go quiet.
	VerifyStatePagesAtOnce = 5
	// DefaultBrowsers is the size of a worker's browser pool unless configured.
	DefaultBrowsers = 1
)

// ScanInput triggers a scan. With neither URL nor URLs, the site's URL is scanned.
type ScanInput struct {
	URL                *string
	URLs               []string
	StorefrontPassword *string
	// Mode is static, deep, auto or verify; the deployment's default when nil.
	Mode *string
}

func (in ScanInput) validate() error {
	if len(in.URLs) > MaxScanURLs {
		return core.FieldErrorf("urls", "at most %d items", MaxScanURLs)
	}
	if in.URL != nil {
		if err := core.ValidateHTTPURL("url", *in.URL); err != nil {
			return err
		}
	}
	for _, u := range in.URLs {
		if err := core.ValidateHTTPURL("urls", u); err != nil {
			return err
		}
	}
	if p := in.StorefrontPassword; p != nil {
		if len([]rune(*p)) < 1 || len([]rune(*p)) > MaxPasswordSize {
			return core.FieldErrorf("storefrontPassword", "must be 1 to %d characters", MaxPasswordSize)
		}
		if err := core.CheckText("storefrontPassword", *p); err != nil {
			return err
		}
	}
	if in.Mode != nil && !core.ValidScanMode(*in.Mode) {
		return core.FieldErrorf("mode", "must be one of %s", strings.Join(core.ScanModes(), ", "))
	}
	return nil
}

// Trackers is what the latest scan found running on a site.
type Trackers struct {
	Scan            *TrackersScan `json:"scan"`
	LastCompletedAt *time.Time    `json:"lastCompletedAt"`
	Trackers        []Tracker     `json:"trackers"`
	SiteWide        bool          `json:"siteWideBlocking"`
}

// TrackersScan summarises the latest finished scan.
type TrackersScan struct {
	ID     string    `json:"id"`
	Status string    `json:"status"`
	Error  *string   `json:"error"`
	At     time.Time `json:"at"`
}

// Tracker is a non-essential service found by the latest completed scan.
type Tracker struct {
	Slug        string   `json:"slug"`
	Label       string   `json:"label"`
	Category    string   `json:"category"`
	TrackingIDs []string `json:"trackingIds"`
}

// TriggerScan creates a pending scan and enqueues its job in the same transaction.
func (scans *Scans) TriggerScan(ctx context.Context, orgID, siteID string, in ScanInput) (*Scan, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	site, err := scans.Store.Site(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	var urls []string
	if in.URL != nil {
		urls = append(urls, *in.URL)
	}
	for _, u := range in.URLs {
		if !slices.Contains(urls, u) {
			urls = append(urls, u)
		}
	}
	if len(urls) == 0 {
		urls = []string{site.URL}
	}
	if len(urls) > MaxScanURLs {
		return nil, core.FieldErrorf("urls", "at most %d URLs with url included", MaxScanURLs)
	}
	mode := scans.ScanMode
	if in.Mode != nil {
		mode = *in.Mode
	}
	s := &Scan{ID: scans.NewID(), SiteID: siteID, URL: urls[0], URLs: urls, Status: ScanPending, Mode: mode, CreatedAt: scans.Clock.Now()}
	job := ScanJob{ScanID: s.ID, SiteID: siteID, URLs: urls, Mode: mode}
	if mode == core.ScanVerify {
		job.ProjectKey = site.ProjectKey
	}
	if in.StorefrontPassword != nil {
		job.StorefrontPassword = *in.StorefrontPassword
	}
	err = scans.Store.InTx(ctx, func(tx Store) error {
		if err := tx.CreateScan(ctx, s); err != nil {
			return err
		}
		if scans.Queue == nil {
			return errors.New("core: scans need a queue")
		}
		if err := scans.Queue.EnqueueScan(ctx, tx, job); err != nil {
			return err
		}
		return scans.Audit.Record(ctx, tx, orgID, siteID, core.AuditScanTrigger, s.ID, nil, map[string]any{"urls": urls, "mode": mode})
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Scans lists a site's scans, most recent first.
func (scans *Scans) Scans(ctx context.Context, orgID, siteID string) ([]*Scan, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	if _, err := scans.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	return scans.Store.Scans(ctx, siteID)
}

// Scan returns a scan of a site.
func (scans *Scans) Scan(ctx context.Context, orgID, siteID, scanID string) (*Scan, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	if _, err := scans.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	return scans.Store.Scan(ctx, siteID, scanID)
}

// ConfigureScan creates services, their cookies and blocking rules from the services a
// completed scan detected. It is idempotent: services already on the site are skipped.
func (scans *Scans) ConfigureScan(ctx context.Context, orgID, siteID, scanID string) (*banner.ImportResult, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	s, err := scans.Scan(ctx, orgID, siteID, scanID)
	if err != nil {
		return nil, err
	}
	if s.Status != ScanCompleted {
		return nil, core.Errorf(core.CodeInvalid, "scan %s is %s: only a completed scan can be configured", s.ID, s.Status)
	}
	defer scans.Views.Forget(siteID)
	existing, err := scans.Store.Services(ctx, siteID)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, e := range existing {
		have[e.Slug] = true
	}
	res := &banner.ImportResult{Services: []*banner.Service{}}
	for _, d := range s.DetectedServices {
		if have[d.Slug] {
			continue
		}
		have[d.Slug] = true
		cat, err := scans.Store.CategoryBySlug(ctx, siteID, d.Category)
		if core.IsNotFound(err) {
			cat, err = scans.Store.CategoryBySlug(ctx, siteID, banner.FallbackCategory)
		}
		if err != nil {
			return nil, err
		}
		svc, rules := scans.Importer.ServiceFromLibrary(d.Slug, d.Name, siteID, cat)
		scans.Importer.AddObservedCookies(svc, d.Cookies)
		if err := scans.Store.CreateService(ctx, svc); err != nil {
			if core.IsConflict(err) { // configured concurrently by another request
				continue
			}
			return nil, err
		}
		res.Services = append(res.Services, svc)
		res.BlockingRulesAdded += rules
	}
	slugs := []string{}
	for _, svc := range res.Services {
		slugs = append(slugs, svc.Slug)
	}
	err = scans.Store.InTx(ctx, func(tx Store) error {
		if err := scans.Audit.Record(ctx, tx, orgID, siteID, core.AuditScanConfigure, s.ID, nil, map[string]any{"services": slugs}); err != nil {
			return err
		}
		if len(res.Services) == 0 {
			return nil
		}
		return scans.Events.ChangedIn(ctx, tx, siteID, "services", nil)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Trackers reports the site's latest finished scan and the non-essential trackers its latest
// completed scan found.
func (scans *Scans) Trackers(ctx context.Context, orgID, siteID string) (*Trackers, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	if _, err := scans.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	b, err := scans.Store.Banner(ctx, siteID)
	if err != nil {
		return nil, err
	}
	out := &Trackers{Trackers: []Tracker{}, SiteWide: b.SiteWideBlocking}
	last, err := scans.Store.LatestScan(ctx, siteID, ScanCompleted, ScanFailed)
	if core.IsNotFound(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	at := last.CreatedAt
	if last.FinishedAt != nil {
		at = *last.FinishedAt
	}
	out.Scan = &TrackersScan{ID: last.ID, Status: last.Status, Error: last.ErrorMessage, At: at}
	done := last
	if last.Status != ScanCompleted {
		if done, err = scans.Store.LatestScan(ctx, siteID, ScanCompleted); core.IsNotFound(err) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
	}
	out.LastCompletedAt = done.FinishedAt
	for _, d := range done.DetectedServices {
		if d.Category == library.CategoryEssential {
			continue
		}
		out.Trackers = append(out.Trackers, Tracker{Slug: d.Slug, Label: d.Name, Category: d.Category, TrackingIDs: core.OrEmptySlice(d.TrackingIDs)})
	}
	return out, nil
}

// Scans are the use cases of scans the API and the console call: triggering one, reading the
// results, configuring what a scan found.
type Scans struct {
	Store Store
	Queue ScanQueue
	Clock core.Clock
	NewID func() string
	// ScanMode is the mode of scans triggered without one.
	ScanMode string
	Audit    core.Auditor
	Events   *event.Publisher
	Views    *banner.PublicViews
	Importer banner.Importer
}
