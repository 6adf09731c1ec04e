package core

import (
	"context"
	"errors"
	"fmt"
)

// rescanPage is how many sites RescanAll reads at a time.
const rescanPage = 200

// RescanAll triggers a scan of every site's homepage, as commercial scanners do monthly. A
// site whose latest scan is still pending or running is skipped, so that a slow queue does not
// pile up scans and a retried rescan does not scan twice. It returns how many scans it
// triggered; it stops at the first error other than a site deleted meanwhile.
func (worker *ScanWorker) RescanAll(ctx context.Context) (int, error) {
	if err := authorizeSystem(ctx); err != nil {
		return 0, err
	}
	if worker.allSites == nil {
		return 0, errors.New("rescan: no site lister configured")
	}
	n, after := 0, ""
	for {
		page, err := worker.allSites.AllSites(ctx, after, rescanPage)
		if err != nil {
			return n, fmt.Errorf("rescan: list sites: %w", err)
		}
		for _, s := range page {
			after = s.ID
			if _, err := worker.store.LatestScan(ctx, s.ID, ScanPending, ScanRunning); err == nil {
				continue
			} else if !IsNotFound(err) {
				return n, fmt.Errorf("rescan site %s: %w", s.ID, err)
			}
			if _, err := worker.scans.TriggerScan(ctx, s.OrganizationID, s.ID, ScanInput{}); err != nil {
				if IsNotFound(err) {
					continue
				}
				return n, fmt.Errorf("rescan site %s: %w", s.ID, err)
			}
			n++
		}
		if len(page) < rescanPage {
			return n, nil
		}
	}
}
