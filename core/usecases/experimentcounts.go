package usecases

import (
	"context"
	"slices"
	"time"

	"github.com/consentd/consentd/core/analytics"
	"github.com/consentd/consentd/core/experiment"
)

// experimentCounter reads an experiment's daily counts per variant from the analytics'
// hourly counters (bots left out, as the analytics report leaves them out), with this
// process's counts not yet flushed merged in, as the analytics report merges them: the
// results and the report read the same figures.
type experimentCounter struct{ agg *analytics.Aggregator }

// ExperimentDays implements experiment.Counter.
func (c experimentCounter) ExperimentDays(ctx context.Context, siteID string, from, to time.Time, variantIDs []string) ([]experiment.Day, error) {
	rows, err := c.agg.Rows(ctx, siteID, from, to)
	if err != nil {
		return nil, err
	}
	byDay := map[time.Time]map[string]experiment.Counts{}
	for _, r := range rows {
		if r.Device == analytics.DeviceBot || !slices.Contains(variantIDs, r.Variant) {
			continue
		}
		day := r.Hour.UTC().Truncate(24 * time.Hour)
		if byDay[day] == nil {
			byDay[day] = map[string]experiment.Counts{}
		}
		v := byDay[day][r.Variant]
		v.Add(experiment.Counts{Shown: r.Shown, Decided: r.Decided, AcceptAll: r.AcceptAll, RejectAll: r.RejectAll, Custom: r.Custom})
		byDay[day][r.Variant] = v
	}
	out := make([]experiment.Day, 0, len(byDay))
	for d, vs := range byDay {
		out = append(out, experiment.Day{Day: d, Variants: vs})
	}
	slices.SortFunc(out, func(a, b experiment.Day) int { return a.Day.Compare(b.Day) })
	return out, nil
}
