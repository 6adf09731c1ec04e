package scan

import (
	"context"
	"errors"
	"fmt"

	"github.com/consentd/consentd/core"
)

// RescanPage is how many sites RescanAll reads at a time.
const RescanPage = 200

// RescanAll triggers a scan of every site's homepage, as commercial scanners do monthly. A
// site whose latest scan is still pending or running is skipped, so that a slow queue does not
// pile up scans and a retried rescan does not scan twice. It returns how many scans it
// triggered; it stops at the first error other than a site deleted meanwhile.
func (worker *ScanWorker) RescanAll(ctx context.Context) (int, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return 0, err
	}
	if worker.AllSites == nil {
		return 0, errors.New("rescan: no site lister configured")
	}
	n, after := 0, ""
	for {
		page, err := worker.AllSites.AllSites(ctx, after, RescanPage)
		if err != nil {
			return n, fmt.Errorf("rescan: list sites: %w", err)
		}
		for _, s := range page {
			after = s.ID
			if _, err := worker.Store.LatestScan(ctx, s.ID, ScanPending, ScanRunning); err == nil {
				continue
			} else if !core.IsNotFound(err) {
				return n, fmt.Errorf("rescan site %s: %w", s.ID, err)
			}
			if _, err := worker.Scans.TriggerScan(ctx, s.OrganizationID, s.ID, ScanInput{}); err != nil {
				if core.IsNotFound(err) {
					continue
				}
				return n, fmt.Errorf("rescan site %s: %w", s.ID, err)
			}
			n++
		}
		if len(page) < RescanPage {
			return n, nil
		}
	}
}
