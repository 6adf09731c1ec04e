package memstore

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
)

func cloneScan(x scan.Scan) *scan.Scan {
	x.URLs = slices.Clone(x.URLs)
	x.DetectedServices = slices.Clone(x.DetectedServices)
	x.UnrecognizedScripts = slices.Clone(x.UnrecognizedScripts)
	x.PageErrors = slices.Clone(x.PageErrors)
	x.UnrecognizedCookies = slices.Clone(x.UnrecognizedCookies)
	x.PreConsent = slices.Clone(x.PreConsent)
	x.Mentions = slices.Clone(x.Mentions)
	x.AutoConfigured = slices.Clone(x.AutoConfigured)
	if x.Verification != nil {
		// A deep copy through JSON: the verification is nested lists only.
		var v core.Verification
		b, _ := json.Marshal(x.Verification)
		_ = json.Unmarshal(b, &v)
		x.Verification = &v
	}
	if x.Changes != nil {
		var c scan.ScanChanges
		b, _ := json.Marshal(x.Changes)
		_ = json.Unmarshal(b, &c)
		x.Changes = &c
	}
	if x.ModeUsed != nil {
		m := *x.ModeUsed
		x.ModeUsed = &m
	}
	return &x
}

// CreateScan implements core.ScanStore.
func (s *Store) CreateScan(_ context.Context, x *scan.Scan) error {
	defer s.lock()()
	if _, ok := s.d.sites[x.SiteID]; !ok {
		return notFound("site")
	}
	if _, ok := s.d.scans[x.ID]; ok {
		return conflict("scan")
	}
	s.d.scans[x.ID] = *cloneScan(*x)
	return nil
}

// Scan implements core.ScanStore.
func (s *Store) Scan(_ context.Context, siteID, id string) (*scan.Scan, error) {
	defer s.lock()()
	x, ok := s.d.scans[id]
	if !ok || x.SiteID != siteID {
		return nil, notFound("scan")
	}
	return cloneScan(x), nil
}

// ScanByID implements core.ScanStore.
func (s *Store) ScanByID(_ context.Context, id string) (*scan.Scan, error) {
	defer s.lock()()
	x, ok := s.d.scans[id]
	if !ok {
		return nil, notFound("scan")
	}
	return cloneScan(x), nil
}

func newestFirst(a, b *scan.Scan) int {
	return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
}

// Scans implements core.ScanStore.
func (s *Store) Scans(_ context.Context, siteID string) ([]*scan.Scan, error) {
	defer s.lock()()
	out := []*scan.Scan{}
	for _, x := range s.d.scans {
		if x.SiteID == siteID {
			out = append(out, cloneScan(x))
		}
	}
	slices.SortFunc(out, newestFirst)
	return out, nil
}

// LatestScan implements core.ScanStore.
func (s *Store) LatestScan(_ context.Context, siteID string, statuses ...string) (*scan.Scan, error) {
	return s.latestScan(siteID, "", statuses)
}

// LatestScanOfMode implements core.ScanStore.
func (s *Store) LatestScanOfMode(_ context.Context, siteID, mode string, statuses ...string) (*scan.Scan, error) {
	return s.latestScan(siteID, mode, statuses)
}

// latestScan is the site's most recent scan with one of statuses, and of mode unless mode is "".
func (s *Store) latestScan(siteID, mode string, statuses []string) (*scan.Scan, error) {
	defer s.lock()()
	var best *scan.Scan
	for _, x := range s.d.scans {
		if x.SiteID == siteID && slices.Contains(statuses, x.Status) && (mode == "" || x.Mode == mode) && (best == nil || newestFirst(&x, best) < 0) {
			best = cloneScan(x)
		}
	}
	if best == nil {
		return nil, notFound("scan")
	}
	return best, nil
}

// UpdateScan implements core.ScanStore.
func (s *Store) UpdateScan(_ context.Context, x *scan.Scan) error {
	defer s.lock()()
	old, ok := s.d.scans[x.ID]
	if !ok {
		return notFound("scan")
	}
	n := cloneScan(*x)
	n.SiteID, n.URL, n.URLs, n.CreatedAt = old.SiteID, old.URL, old.URLs, old.CreatedAt
	s.d.scans[x.ID] = *n
	return nil
}
