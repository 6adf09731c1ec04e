package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
	scanpkg "github.com/consentd/consentd/core/scan"
)

type scan struct {
	bun.BaseModel       `bun:"table:scans"`
	ID                  string                    `bun:"id,pk"`
	SiteID              string                    `bun:"site_id"`
	URL                 string                    `bun:"url"`
	URLs                []string                  `bun:"urls,type:jsonb"`
	Status              string                    `bun:"status"`
	Mode                string                    `bun:"mode"`
	ModeUsed            *string                   `bun:"mode_used"`
	DetectedServices    []core.DetectedService    `bun:"detected_services,type:jsonb"`
	UnrecognizedScripts []core.UnrecognizedScript `bun:"unrecognized_scripts,type:jsonb"`
	PageErrors          []core.PageError          `bun:"page_errors,type:jsonb"`
	UnrecognizedCookies []core.UnrecognizedCookie `bun:"unrecognized_cookies,type:jsonb"`
	PreConsent          []core.PreConsentFinding  `bun:"pre_consent,type:jsonb"`
	Mentions            []core.Mention            `bun:"mentions,type:jsonb"`
	Verification        *core.Verification        `bun:"verification,type:jsonb"`
	Changes             *scanpkg.ScanChanges      `bun:"changes,type:jsonb"`
	AutoConfigured      []string                  `bun:"auto_configured,type:jsonb"`
	PagesScanned        int                       `bun:"pages_scanned"`
	ErrorMessage        *string                   `bun:"error_message"`
	CreatedAt           time.Time                 `bun:"created_at"`
	StartedAt           *time.Time                `bun:"started_at"`
	FinishedAt          *time.Time                `bun:"finished_at"`
}

func fromScan(s *scanpkg.Scan) *scan {
	return &scan{
		ID: s.ID, SiteID: s.SiteID, URL: s.URL, URLs: orSlice(s.URLs), Status: s.Status, Mode: s.Mode, ModeUsed: s.ModeUsed,
		DetectedServices: s.DetectedServices, UnrecognizedScripts: s.UnrecognizedScripts, PageErrors: s.PageErrors,
		UnrecognizedCookies: s.UnrecognizedCookies, PreConsent: s.PreConsent, Mentions: s.Mentions, Verification: s.Verification, Changes: s.Changes, AutoConfigured: orSlice(s.AutoConfigured),
		PagesScanned: s.PagesScanned, ErrorMessage: s.ErrorMessage, CreatedAt: s.CreatedAt,
		StartedAt: s.StartedAt, FinishedAt: s.FinishedAt,
	}
}

func (s *scan) core() *scanpkg.Scan {
	return &scanpkg.Scan{
		ID: s.ID, SiteID: s.SiteID, URL: s.URL, URLs: orSlice(s.URLs), Status: s.Status, Mode: s.Mode, ModeUsed: s.ModeUsed,
		DetectedServices: s.DetectedServices, UnrecognizedScripts: s.UnrecognizedScripts, PageErrors: s.PageErrors,
		UnrecognizedCookies: s.UnrecognizedCookies, PreConsent: s.PreConsent, Mentions: s.Mentions, Verification: s.Verification, Changes: s.Changes, AutoConfigured: orSlice(s.AutoConfigured),
		PagesScanned: s.PagesScanned, ErrorMessage: s.ErrorMessage, CreatedAt: s.CreatedAt.UTC(),
		StartedAt: utc(s.StartedAt), FinishedAt: utc(s.FinishedAt),
	}
}

// CreateScan implements core.ScanStore.
func (s *Store) CreateScan(ctx context.Context, x *scanpkg.Scan) error {
	if err := newID("scan", x.ID); err != nil {
		return err
	}
	if err := findIDs("site", x.SiteID); err != nil {
		return core.Wrap(core.CodeNotFound, err, "scan refers to a row that does not exist")
	}
	if err := storable("scan", x); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(fromScan(x)).Exec(ctx)
	return translate(err, "scan")
}

// Scan implements core.ScanStore.
func (s *Store) Scan(ctx context.Context, siteID, id string) (*scanpkg.Scan, error) {
	if err := findIDs("scan", siteID, id); err != nil {
		return nil, err
	}
	var m scan
	if err := s.db.NewSelect().Model(&m).Where("site_id = ? AND id = ?", siteID, id).Scan(ctx); err != nil {
		return nil, translate(err, "scan")
	}
	return m.core(), nil
}

// ScanByID implements core.ScanStore.
func (s *Store) ScanByID(ctx context.Context, id string) (*scanpkg.Scan, error) {
	if err := findIDs("scan", id); err != nil {
		return nil, err
	}
	var m scan
	// Locked inside a transaction on Postgres: scan transitions read and write in one.
	if err := s.locked(s.db.NewSelect().Model(&m).Where("id = ?", id)).Scan(ctx); err != nil {
		return nil, translate(err, "scan")
	}
	return m.core(), nil
}

// Scans implements core.ScanStore.
func (s *Store) Scans(ctx context.Context, siteID string) ([]*scanpkg.Scan, error) {
	if !isID(siteID) {
		return []*scanpkg.Scan{}, nil
	}
	var ms []scan
	if err := s.db.NewSelect().Model(&ms).Where("site_id = ?", siteID).OrderExpr("created_at DESC, id DESC").Scan(ctx); err != nil {
		return nil, translate(err, "scan")
	}
	out := make([]*scanpkg.Scan, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, nil
}

// LatestScan implements core.ScanStore.
func (s *Store) LatestScan(ctx context.Context, siteID string, statuses ...string) (*scanpkg.Scan, error) {
	return s.latestScan(ctx, siteID, "", statuses)
}

// LatestScanOfMode implements core.ScanStore.
func (s *Store) LatestScanOfMode(ctx context.Context, siteID, mode string, statuses ...string) (*scanpkg.Scan, error) {
	return s.latestScan(ctx, siteID, mode, statuses)
}

// latestScan is the site's most recent scan with one of statuses, and of mode unless mode is "".
func (s *Store) latestScan(ctx context.Context, siteID, mode string, statuses []string) (*scanpkg.Scan, error) {
	if err := findIDs("scan", siteID); err != nil {
		return nil, err
	}
	var m scan
	q := s.db.NewSelect().Model(&m).Where("site_id = ? AND status IN (?)", siteID, bun.List(statuses))
	if mode != "" {
		q = q.Where("mode = ?", mode)
	}
	err := q.OrderExpr("created_at DESC, id DESC").Limit(1).Scan(ctx)
	if err != nil {
		return nil, translate(err, "scan")
	}
	return m.core(), nil
}

// UpdateScan implements core.ScanStore.
func (s *Store) UpdateScan(ctx context.Context, x *scanpkg.Scan) error {
	if err := findIDs("scan", x.ID); err != nil {
		return err
	}
	if err := storable("scan", x); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model(fromScan(x)).
		Column("status", "mode_used", "detected_services", "unrecognized_scripts", "page_errors", "unrecognized_cookies", "pre_consent", "mentions", "verification", "changes", "auto_configured", "pages_scanned", "error_message", "started_at", "finished_at").
		WherePK().Exec(ctx)
	return mustAffect(res, err, "scan")
}
