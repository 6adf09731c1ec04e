package consent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// Statistics intervals; buckets are always in UTC.
const (
	StatsHour = "hour"
	StatsDay  = "day"
	StatsWeek = "week"
)

// StatsIntervals returns the statistics' intervals, finest first.
func StatsIntervals() []string { return []string{StatsHour, StatsDay, StatsWeek} }

// Limits of the statistics: how far a request may reach, so that its cost is bounded by the
// number of hour aggregates it sums.
const (
	MaxConsentStatsSpan     = 366 * 24 * time.Hour
	MaxConsentStatsHourSpan = 31 * 24 * time.Hour
	DefaultConsentStatsSpan = 30 * 24 * time.Hour
)

// ConsentBucketStat is the statistics' aggregate of a site's decisions in one bucket (Stats
// keeps them per UTC hour and sums hours into days and weeks).
type ConsentBucketStat struct {
	Start         time.Time
	Total         int64
	Actions       map[string]int64
	Jurisdictions map[string]int64
	GPCSignal     int64
	// Categories holds, per category slug, how many decisions named it and how many granted it.
	Categories map[string]CategoryTally
}

// CategoryTally counts the decisions on one category.
type CategoryTally struct {
	Decisions int64 `json:"decisions"`
	Granted   int64 `json:"granted"`
}

// Add counts r in the hour's aggregates (the stores and their fakes share it).
func (h *ConsentBucketStat) Add(r *ConsentRecord) {
	if h.Actions == nil {
		h.Actions, h.Jurisdictions, h.Categories = map[string]int64{}, map[string]int64{}, map[string]CategoryTally{}
	}
	h.Total++
	h.Actions[r.Action]++
	h.Jurisdictions[r.Jurisdiction]++
	if r.GPCSignal {
		h.GPCSignal++
	}
	for slug, v := range r.CategoriesConsented {
		t := h.Categories[slug]
		t.Decisions++
		if v {
			t.Granted++
		}
		h.Categories[slug] = t
	}
}

// Merge adds the counts of o to h (hours into a day or a week; shards into an hour).
func (h *ConsentBucketStat) Merge(o *ConsentBucketStat) {
	if h.Actions == nil {
		h.Actions, h.Jurisdictions, h.Categories = map[string]int64{}, map[string]int64{}, map[string]CategoryTally{}
	}
	h.Total += o.Total
	h.GPCSignal += o.GPCSignal
	for k, v := range o.Actions {
		h.Actions[k] += v
	}
	for k, v := range o.Jurisdictions {
		h.Jurisdictions[k] += v
	}
	for k, v := range o.Categories {
		t := h.Categories[k]
		t.Decisions, t.Granted = t.Decisions+v.Decisions, t.Granted+v.Granted
		h.Categories[k] = t
	}
}

// ConsentStatsQuery asks for a site's statistics between From and To by Interval.
type ConsentStatsQuery struct {
	SiteID   string
	From, To *time.Time
	Interval string
}

// ConsentStats are a site's decisions per bucket. Buckets are UTC hours, UTC days or weeks
// starting on Monday 00:00 UTC; From is rounded down and To up to whole buckets, and every
// bucket in between is listed, empty ones included.
type ConsentStats struct {
	SiteID   string              `json:"siteId"`
	Interval string              `json:"interval"`
	TimeZone string              `json:"timeZone" doc:"Always UTC: buckets are UTC hours, days and weeks (from Monday)."`
	From     time.Time           `json:"from"`
	To       time.Time           `json:"to"`
	Buckets  []*ConsentStatsItem `json:"buckets"`
}

// ConsentStatsItem is one bucket of ConsentStats.
type ConsentStatsItem struct {
	Start         time.Time                `json:"start"`
	Total         int64                    `json:"total"`
	Actions       map[string]int64         `json:"actions" doc:"Decisions by action: accept_all, reject_all, custom, gpc."`
	Jurisdictions map[string]int64         `json:"jurisdictions" doc:"Decisions by jurisdiction: gdpr, ccpa, none."`
	GPCSignal     int64                    `json:"gpcSignal" doc:"Decisions that carried a Global Privacy Control signal."`
	GPCShare      float64                  `json:"gpcShare" doc:"gpcSignal / total (0 when total is 0)."`
	Categories    map[string]*CategoryRate `json:"categories" doc:"Per category slug: decisions naming it, grants, and the opt-in rate."`
}

// CategoryRate is one category's opt-in rate in a bucket.
type CategoryRate struct {
	CategoryTally
	OptInRate float64 `json:"optInRate"`
}

// StatsBucketStart is the start of the UTC bucket of interval holding t.
func StatsBucketStart(t time.Time, interval string) time.Time {
	t = t.UTC()
	switch interval {
	case StatsHour:
		return t.Truncate(time.Hour)
	case StatsDay:
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	default:
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	}
}

// StatsNext is the start of the bucket of interval after the one starting at t.
func StatsNext(t time.Time, interval string) time.Time { return statsNext(t, interval) }

func statsNext(t time.Time, interval string) time.Time {
	switch interval {
	case StatsHour:
		return t.Add(time.Hour)
	case StatsDay:
		return t.AddDate(0, 0, 1)
	default:
		return t.AddDate(0, 0, 7)
	}
}

// ConsentStats returns a site's statistics, summed from the hour aggregates of the analytics
// (Stats): the cost depends on the hours in the range, not on the records.
func (consentLog *ConsentLog) ConsentStats(ctx context.Context, orgID string, q ConsentStatsQuery) (*ConsentStats, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, q.SiteID); err != nil {
		return nil, err
	}
	if q.Interval == "" {
		q.Interval = StatsDay
	}
	if !slices.Contains([]string{StatsHour, StatsDay, StatsWeek}, q.Interval) {
		return nil, core.FieldErrorf("interval", "must be hour, day or week")
	}
	to := consentLog.Clock.Now()
	if q.To != nil {
		to = *q.To
	}
	from := to.Add(-DefaultConsentStatsSpan)
	if q.From != nil {
		from = *q.From
	}
	if err := core.CheckTime("from", from); err != nil {
		return nil, err
	}
	if err := core.CheckTime("to", to); err != nil {
		return nil, err
	}
	if !from.Before(to) {
		return nil, core.FieldErrorf("from", "must be before to")
	}
	span := MaxConsentStatsSpan
	if q.Interval == StatsHour {
		span = MaxConsentStatsHourSpan
	}
	if to.Sub(from) > span {
		return nil, core.FieldErrorf("to", "at most %d days after from with interval %s", int(span.Hours()/24), q.Interval)
	}
	if _, err := consentLog.Store.Site(ctx, orgID, q.SiteID); err != nil {
		return nil, err
	}
	start := StatsBucketStart(from, q.Interval)
	end := StatsBucketStart(to, q.Interval)
	if end.Before(to) {
		end = statsNext(end, q.Interval)
	}
	if end.After(core.MaxTime) || start.Before(core.MinTime) {
		return nil, core.Errorf(core.CodeInvalid, "from, to: must be between years %d and %d", core.MinTime.Year(), core.MaxTime.Year())
	}
	if consentLog.Stats == nil {
		return nil, core.Errorf(core.CodeInternal, "consent statistics: no source")
	}
	hours, err := consentLog.Stats.ConsentStatBuckets(ctx, q.SiteID, start, end, q.Interval)
	if err != nil {
		return nil, err
	}
	var sums []ConsentBucketStat
	for b := start; b.Before(end); b = statsNext(b, q.Interval) {
		sums = append(sums, ConsentBucketStat{Start: b})
	}
	i := 0
	for k := range hours {
		for i+1 < len(sums) && !hours[k].Start.Before(sums[i+1].Start) {
			i++
		}
		sums[i].Merge(&hours[k])
	}
	out := &ConsentStats{SiteID: q.SiteID, Interval: q.Interval, TimeZone: "UTC", From: start, To: end, Buckets: make([]*ConsentStatsItem, len(sums))}
	for i := range sums {
		s := &sums[i]
		b := &ConsentStatsItem{Start: s.Start, Total: s.Total, Actions: s.Actions, Jurisdictions: s.Jurisdictions,
			GPCSignal: s.GPCSignal, Categories: map[string]*CategoryRate{}}
		if b.Actions == nil {
			b.Actions, b.Jurisdictions = map[string]int64{}, map[string]int64{}
		}
		if b.Total > 0 {
			b.GPCShare = float64(b.GPCSignal) / float64(b.Total)
		}
		for k, t := range s.Categories {
			c := &CategoryRate{CategoryTally: t}
			if t.Decisions > 0 {
				c.OptInRate = float64(t.Granted) / float64(t.Decisions)
			}
			b.Categories[k] = c
		}
		out.Buckets[i] = b
	}
	return out, nil
}

// retentionBatches is how many batches one store call removes, so that a long backlog is
// removed in bounded transactions.
const retentionBatches = 500

// ApplyConsentRetention removes, for every site with a consentRetentionDays, the whole chain
// batches whose records are all older than that, and returns how many records it removed.
// It needs Deps.AllSites. One site's failure does not stop the others; the errors are
// returned together.
func (consentLog *ConsentLog) ApplyConsentRetention(ctx context.Context) (int, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return 0, err
	}
	if consentLog.AllSites == nil {
		return 0, core.Errorf(core.CodeInternal, "consent retention needs a site lister")
	}
	now := consentLog.Clock.Now()
	removed, after := 0, ""
	var errs []error
	for {
		sites, err := consentLog.AllSites.AllSites(ctx, after, 500)
		if err != nil {
			return removed, err
		}
		for _, s := range sites {
			if s.ConsentRetentionDays == nil {
				continue
			}
			before := now.AddDate(0, 0, -*s.ConsentRetentionDays)
			for {
				n, err := consentLog.Store.RemoveConsentBatches(ctx, s.ID, before, retentionBatches)
				if err != nil {
					errs = append(errs, fmt.Errorf("site %s: %w", s.ID, err))
					break
				}
				removed += n
				if n == 0 {
					break
				}
			}
		}
		if len(sites) < 500 {
			break
		}
		after = sites[len(sites)-1].ID
	}
	return removed, errors.Join(errs...)
}

// RegionCount is how many decisions came from one place.
type RegionCount struct {
	// Region is the record's region ("US-CA"), else its ipCountry ("FR"), "" for an unknown
	// location.
	Region    string
	Decisions int64
}

// ConsentRegions returns a site's decisions between from and to split by the visitor's place
// (ConsentStore.ConsentRegionCounts), most decisions first, then by code. The span is that of
// the statistics (MaxConsentStatsSpan).
func (consentLog *ConsentLog) ConsentRegions(ctx context.Context, orgID, siteID string, from, to time.Time) ([]RegionCount, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	if err := core.CheckTime("from", from); err != nil {
		return nil, err
	}
	if err := core.CheckTime("to", to); err != nil {
		return nil, err
	}
	if !from.Before(to) {
		return nil, core.FieldErrorf("from", "must be before to")
	}
	if to.Sub(from) > MaxConsentStatsSpan {
		return nil, core.FieldErrorf("to", "at most %d days after from", int(MaxConsentStatsSpan.Hours()/24))
	}
	if _, err := consentLog.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	counts, err := consentLog.Store.ConsentRegionCounts(ctx, siteID, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]RegionCount, 0, len(counts))
	for r, n := range counts {
		if n > 0 {
			out = append(out, RegionCount{Region: r, Decisions: n})
		}
	}
	slices.SortFunc(out, func(a, b RegionCount) int {
		if a.Decisions != b.Decisions {
			return int(b.Decisions - a.Decisions)
		}
		return strings.Compare(a.Region, b.Region)
	})
	return out, nil
}
