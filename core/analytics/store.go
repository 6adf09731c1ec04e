package analytics

import (
	"context"
	"time"
)

// Store keeps the counters. Every adapter passes coretest.AnalyticsContract.
type Store interface {
	// AddAnalytics adds each row's counts to the stored counts of its key, creating the key
	// when new, all in one transaction (additive: several processes adding the same key add
	// up). Rows of sites that no longer exist are dropped. Errors: unavailable when the
	// database cannot answer, internal otherwise.
	AddAnalytics(ctx context.Context, rows []Row) error
	// AnalyticsRows returns the site's rows with from <= Hour < to, in any order.
	AnalyticsRows(ctx context.Context, siteID string, from, to time.Time) ([]Row, error)
}
