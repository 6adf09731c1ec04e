package scan

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/consentd/consentd/core"
)

// Scan schedules of a site.
const (
	// ScheduleDefault follows the deployment's rescan interval (--rescan-interval; none when
	// it is not set).
	ScheduleDefault = "default"
	ScheduleOff     = "off"
	ScheduleDaily   = "daily"
	ScheduleWeekly  = "weekly"
	ScheduleMonthly = "monthly"
)

// ScanSchedules returns the schedules a site's scans may follow.
func ScanSchedules() []string {
	return []string{ScheduleDefault, ScheduleOff, ScheduleDaily, ScheduleWeekly, ScheduleMonthly}
}

// VerifySchedules returns the schedules a site's verification scans may follow.
func VerifySchedules() []string {
	return []string{ScheduleOff, ScheduleDaily, ScheduleWeekly, ScheduleMonthly}
}

// SchedulePeriod is how often a schedule runs: a day, a week, 30 days; 0 for off (and for
// default, which the deployment decides).
func SchedulePeriod(schedule string) time.Duration {
	switch schedule {
	case ScheduleDaily:
		return 24 * time.Hour
	case ScheduleWeekly:
		return 7 * 24 * time.Hour
	case ScheduleMonthly:
		return 30 * 24 * time.Hour
	}
	return 0
}

// ScheduleTick is how often queues look for scheduled scans that are due (at most: a shorter
// deployment rescan interval ticks as often as it).
const ScheduleTick = 5 * time.Minute

// slotStart is the start of the current run of a schedule of period p for key: runs are p
// apart, at an offset within p derived from key, so that thousands of sites on the same
// schedule spread over the period instead of starting together.
func slotStart(now time.Time, p time.Duration, key string) time.Time {
	h := fnv.New64a()
	h.Write([]byte(key))
	offset := time.Duration(h.Sum64() % uint64(p))
	since := now.Sub(time.Unix(0, 0).Add(offset))
	return time.Unix(0, 0).Add(offset).Add(since - since%p).UTC()
}

// NextScheduledRun is when a site's schedule of period p next starts a scan of mode after now.
func NextScheduledRun(now time.Time, p time.Duration, siteID, mode string) time.Time {
	return slotStart(now, p, siteID+"/"+mode).Add(p)
}

// RunSchedules triggers the scans that are due: each site's scan (in the deployment's scan
// mode) on its scanSchedule (the default being the deployment's rescan interval), and its
// verification scan on its verifySchedule. A scan is due when the site has no scan of that
// mode created since the start of the schedule's current run (see slotStart) and none pending
// or running. It returns how many scans it triggered; it stops at the first error other than
// a site deleted meanwhile.
func (worker *ScanWorker) RunSchedules(ctx context.Context) (int, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return 0, err
	}
	if worker.AllSites == nil {
		return 0, errors.New("schedules: no site lister configured")
	}
	now := worker.Clock.Now()
	n, after := 0, ""
	for {
		page, err := worker.AllSites.AllSites(ctx, after, RescanPage)
		if err != nil {
			return n, fmt.Errorf("schedules: list sites: %w", err)
		}
		for _, s := range page {
			after = s.ID
			p := SchedulePeriod(s.ScanSchedule)
			if s.ScanSchedule == ScheduleDefault || s.ScanSchedule == "" {
				p = worker.DefaultScanPeriod
			}
			for _, run := range []struct {
				mode string
				p    time.Duration
			}{{worker.ScanMode, p}, {core.ScanVerify, SchedulePeriod(s.VerifySchedule)}} {
				if run.p <= 0 {
					continue
				}
				due, err := worker.scheduleDue(ctx, s, run.mode, run.p, now)
				if err != nil {
					return n, err
				}
				if !due {
					continue
				}
				mode := run.mode
				if _, err := worker.Scans.TriggerScan(ctx, s.OrganizationID, s.ID, ScanInput{Mode: &mode}); err != nil {
					if core.IsNotFound(err) {
						continue
					}
					return n, fmt.Errorf("scheduled scan of site %s: %w", s.ID, err)
				}
				n++
			}
		}
		if len(page) < RescanPage {
			return n, nil
		}
	}
}

func (worker *ScanWorker) scheduleDue(ctx context.Context, s *core.Site, mode string, p time.Duration, now time.Time) (bool, error) {
	if _, err := worker.Store.LatestScanOfMode(ctx, s.ID, mode, ScanPending, ScanRunning); err == nil {
		return false, nil
	} else if !core.IsNotFound(err) {
		return false, fmt.Errorf("schedules: site %s: %w", s.ID, err)
	}
	last, err := worker.Store.LatestScanOfMode(ctx, s.ID, mode, ScanCompleted, ScanFailed)
	if core.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("schedules: site %s: %w", s.ID, err)
	}
	return last.CreatedAt.Before(slotStart(now, p, s.ID+"/"+mode)), nil
}
