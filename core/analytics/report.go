package analytics

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

const hour = time.Hour

// Dimensions a report breaks its figures down by (Dimensions).
const (
	DimCountry       = "country"
	DimRegionRule    = "regionRule"
	DimDevice        = "device"
	DimLanguage      = "language"
	DimBannerVersion = "bannerVersion"
	DimVariant       = "variant"
)

// Dimensions returns the dimensions of a report's breakdowns.
func Dimensions() []string {
	return []string{DimCountry, DimRegionRule, DimDevice, DimLanguage, DimBannerVersion, DimVariant}
}

// Query asks for a site's analytics between From and To (default: the last 30 days) by
// Interval (hour, day or week as the consent statistics: consent.StatsIntervals). The filters
// keep only the counts of one value of a dimension each; bots are left out unless Device is
// DeviceBot.
type Query struct {
	SiteID   string
	From, To *time.Time
	Interval string
	Country  *string
	Device   *string
	Variant  *string
	Language *string
}

// Figures are the counters of a report's slice, with the rates derived from them.
type Figures struct {
	Shown             int64 `json:"shown" doc:"Banners shown (events)."`
	Decided           int64 `json:"decided" doc:"Decisions stored (consent records)."`
	AcceptAll         int64 `json:"acceptAll" doc:"Decisions that accepted all (action accept_all)."`
	RejectAll         int64 `json:"rejectAll" doc:"Decisions that refused all (action reject_all)."`
	Custom            int64 `json:"custom" doc:"Decisions that chose per category (action custom)."`
	GPC               int64 `json:"gpc" doc:"Decisions made by a Global Privacy Control signal alone (action gpc)."`
	DoNotSell         int64 `json:"doNotSell" doc:"Decisions stored with doNotSell."`
	GPCSignal         int64 `json:"gpcSignal" doc:"Decisions whose request carried a GPC signal."`
	PreferencesOpened int64 `json:"preferencesOpened" doc:"Preferences layers opened (events)."`
	LeftUndecided     int64 `json:"leftUndecided" doc:"Page views left with the banner shown and no decision (events)."`
	// FirstDecisions are the runtime's first decisions per page view, by decision.
	FirstDecisions map[string]int64 `json:"firstDecisions" doc:"First decisions reported by the runtime (events), by decision: accept_all, reject_all, custom, do_not_sell, gpc."`
	ConsentRate    float64          `json:"consentRate" doc:"decided / shown (0 without shown)."`
	AcceptShare    float64          `json:"acceptShare" doc:"acceptAll / decided (0 without decisions)."`
	RejectShare    float64          `json:"rejectShare" doc:"rejectAll / decided."`
	CustomShare    float64          `json:"customShare" doc:"custom / decided."`
	MeanDecisionMS float64          `json:"meanDecisionMs" doc:"Mean time from banner shown to first decision, in milliseconds, over the decision events that carried one (0 without)."`
	// Categories are per category slug: records naming it, grants, the opt-in rate.
	Categories map[string]CategoryOptIn `json:"categories" doc:"Per category slug: decisions naming it, grants, and the opt-in rate."`
}

// CategoryOptIn is one category's opt-in rate.
type CategoryOptIn struct {
	Tally
	OptInRate float64 `json:"optInRate"`
}

// SeriesBucket is one bucket of a report's time series.
type SeriesBucket struct {
	Start time.Time `json:"start"`
	Figures
}

// Breakdown is the figures of one value of a dimension.
type Breakdown struct {
	Value string `json:"value" doc:"The dimension's value (\"\" for unknown, or no variant)."`
	Figures
}

// Report is a site's analytics over a period.
type Report struct {
	SiteID   string    `json:"siteId"`
	Interval string    `json:"interval"`
	TimeZone string    `json:"timeZone" doc:"Always UTC."`
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	Totals   Figures   `json:"totals"`
	// Series lists every bucket from From to To, empty ones included.
	Series []SeriesBucket `json:"series"`
	// By holds, per dimension (Dimensions), the figures of each value seen, by value.
	By map[string][]Breakdown `json:"by" doc:"Per dimension (country, regionRule, device, language, bannerVersion, variant): the figures of each value seen, sorted by value."`
}

// AnalyticsReport returns the site's analytics for q. The counts not yet flushed by this process are
// merged in, so a report read by the process that counted is exact at once; another
// process's counts show within FlushEvery. Errors: not_found for another organization's site,
// validation_error for bad bounds or interval.
func (a *Analytics) AnalyticsReport(ctx context.Context, orgID string, q Query) (*Report, error) {
	rows, from, to, err := a.rows(ctx, orgID, &q)
	if err != nil {
		return nil, err
	}
	rep := &Report{SiteID: q.SiteID, Interval: q.Interval, TimeZone: "UTC", From: from, To: to, By: map[string][]Breakdown{}}
	var total Counts
	series := map[time.Time]*Counts{}
	by := map[string]map[string]*Counts{}
	for _, d := range Dimensions() {
		by[d] = map[string]*Counts{}
	}
	for i := range rows {
		r := &rows[i]
		total.Add(&r.Counts)
		b := consent.StatsBucketStart(r.Hour, q.Interval)
		addTo(series, b, &r.Counts)
		addTo(by[DimCountry], r.Country, &r.Counts)
		addTo(by[DimRegionRule], r.RegionRule, &r.Counts)
		addTo(by[DimDevice], r.Device, &r.Counts)
		addTo(by[DimLanguage], r.Language, &r.Counts)
		addTo(by[DimBannerVersion], strconv.Itoa(r.BannerVersion), &r.Counts)
		addTo(by[DimVariant], r.Variant, &r.Counts)
	}
	rep.Totals = figures(&total)
	for b := from; b.Before(to); b = next(b, q.Interval) {
		c := series[b]
		if c == nil {
			c = &Counts{}
		}
		rep.Series = append(rep.Series, SeriesBucket{Start: b, Figures: figures(c)})
	}
	for d, m := range by {
		s := make([]Breakdown, 0, len(m))
		for v, c := range m {
			s = append(s, Breakdown{Value: v, Figures: figures(c)})
		}
		slices.SortFunc(s, func(x, y Breakdown) int {
			if d == DimBannerVersion {
				a, _ := strconv.Atoi(x.Value)
				b, _ := strconv.Atoi(y.Value)
				return a - b
			}
			if x.Value < y.Value {
				return -1
			}
			if x.Value > y.Value {
				return 1
			}
			return 0
		})
		rep.By[d] = s
	}
	return rep, nil
}

// AnalyticsRows returns the rows q selects (whole hours), for the CSV export, ordered by key.
func (a *Analytics) AnalyticsRows(ctx context.Context, orgID string, q Query) ([]Row, error) {
	rows, _, _, err := a.rows(ctx, orgID, &q)
	return rows, err
}

func (a *Analytics) rows(ctx context.Context, orgID string, q *Query) ([]Row, time.Time, time.Time, error) {
	var zero time.Time
	if err := core.Authorize(ctx, core.PermRead, orgID, q.SiteID); err != nil {
		return nil, zero, zero, err
	}
	if q.Interval == "" {
		q.Interval = consent.StatsDay
	}
	if !slices.Contains(consent.StatsIntervals(), q.Interval) {
		return nil, zero, zero, core.FieldErrorf("interval", "must be one of hour, day, week")
	}
	for _, f := range []struct {
		name string
		t    *time.Time
	}{{"from", q.From}, {"to", q.To}} {
		if f.t != nil {
			if err := core.CheckTime(f.name, *f.t); err != nil {
				return nil, zero, zero, err
			}
		}
	}
	if q.Device != nil && !slices.Contains(Devices(), *q.Device) {
		return nil, zero, zero, core.FieldErrorf("device", "must be one of %s", strings.Join(Devices(), ", "))
	}
	if q.Variant != nil && !ValidVariant(*q.Variant) {
		return nil, zero, zero, core.FieldErrorf("variant", "must be at most %d letters, digits, '-' or '_'", MaxVariant)
	}
	to := a.Clock.Now()
	if q.To != nil {
		to = *q.To
	}
	from := to.Add(-consent.DefaultConsentStatsSpan)
	if q.From != nil {
		from = *q.From
	}
	if !from.Before(to) {
		return nil, zero, zero, core.FieldErrorf("from", "must be before to")
	}
	span := consent.MaxConsentStatsSpan
	if q.Interval == consent.StatsHour {
		span = consent.MaxConsentStatsHourSpan
	}
	if to.Sub(from) > span {
		return nil, zero, zero, core.FieldErrorf("to", "at most %d days after from with interval %s", int(span.Hours()/24), q.Interval)
	}
	start, end := consent.StatsBucketStart(from, q.Interval), consent.StatsBucketStart(to, q.Interval)
	if end.Before(to) {
		end = next(end, q.Interval)
	}
	if end.After(core.MaxTime) || start.Before(core.MinTime) {
		return nil, zero, zero, core.Errorf(core.CodeInvalid, "from, to: must be between years %d and %d", core.MinTime.Year(), core.MaxTime.Year())
	}
	from, to = start, end
	if _, err := a.Sites.Site(ctx, orgID, q.SiteID); err != nil {
		return nil, zero, zero, err
	}
	all, err := a.Agg.Rows(ctx, q.SiteID, from, to)
	if err != nil {
		return nil, zero, zero, err
	}
	out := all[:0]
	for _, r := range all {
		if keep(q, &r.Key) {
			out = append(out, r)
		}
	}
	return out, from, to, nil
}

func keep(q *Query, k *Key) bool {
	switch {
	case q.Device == nil && k.Device == DeviceBot, q.Device != nil && *q.Device != k.Device:
		return false
	case q.Country != nil && *q.Country != k.Country, q.Variant != nil && *q.Variant != k.Variant:
		return false
	case q.Language != nil && *q.Language != k.Language:
		return false
	}
	return true
}

func next(t time.Time, interval string) time.Time { return consent.StatsNext(t, interval) }

func addTo[K comparable](m map[K]*Counts, k K, c *Counts) {
	p := m[k]
	if p == nil {
		p = &Counts{}
		m[k] = p
	}
	p.Add(c)
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func figures(c *Counts) Figures {
	f := Figures{Shown: c.Shown, Decided: c.Decided, AcceptAll: c.AcceptAll, RejectAll: c.RejectAll, Custom: c.Custom, GPC: c.GPC,
		DoNotSell: c.DoNotSell, GPCSignal: c.GPCSignal, PreferencesOpened: c.PreferencesOpened, LeftUndecided: c.Left,
		FirstDecisions: map[string]int64{DecisionAcceptAll: c.FirstAcceptAll, DecisionRejectAll: c.FirstRejectAll,
			DecisionCustom: c.FirstCustom, DecisionDoNotSell: c.FirstDoNotSell, DecisionGPC: c.FirstGPC},
		ConsentRate: ratio(c.Decided, c.Shown), AcceptShare: ratio(c.AcceptAll, c.Decided), RejectShare: ratio(c.RejectAll, c.Decided),
		CustomShare: ratio(c.Custom, c.Decided), MeanDecisionMS: ratio(c.DecisionMS, c.Timed), Categories: map[string]CategoryOptIn{}}
	for slug, t := range c.Categories {
		f.Categories[slug] = CategoryOptIn{Tally: t, OptInRate: ratio(t.Granted, t.Decisions)}
	}
	return f
}

// CSVHeader is the header of the analytics' CSV export: the key, then the counters
// (ColumnNames), then the categories as one JSON-like cell "slug:decisions/granted ...".
func CSVHeader() []string {
	return append([]string{"hour", "country", "regionRule", "device", "language", "bannerVersion", "variant"},
		append(ColumnNames(), "categories")...)
}

// CSVRecord is r as a row of CSVHeader.
func (r *Row) CSVRecord() []string {
	out := []string{r.Hour.UTC().Format(time.RFC3339), r.Country, r.RegionRule, r.Device, r.Language, strconv.Itoa(r.BannerVersion), r.Variant}
	for _, p := range r.Counts.Columns() {
		out = append(out, strconv.FormatInt(*p, 10))
	}
	slugs := make([]string, 0, len(r.Categories))
	for s := range r.Categories {
		slugs = append(slugs, s)
	}
	slices.Sort(slugs)
	cell := ""
	for i, s := range slugs {
		if i > 0 {
			cell += " "
		}
		t := r.Categories[s]
		cell += s + ":" + strconv.FormatInt(t.Decisions, 10) + "/" + strconv.FormatInt(t.Granted, 10)
	}
	return append(out, cell)
}

// ConsentStatBuckets implements consent.StatsSource: the decisions counted from the consent
// path (every device class, crawlers included, so that they match the records), stored and
// not yet flushed, summed per bucket of interval; buckets without decisions are left out.
func (a *Analytics) ConsentStatBuckets(ctx context.Context, siteID string, from, to time.Time, interval string) ([]consent.ConsentBucketStat, error) {
	if err := core.Authorize(ctx, core.PermRead, "", siteID); err != nil {
		return nil, err
	}
	rows, err := a.Agg.Rows(ctx, siteID, from, to)
	if err != nil {
		return nil, err
	}
	byStart := map[time.Time]*Counts{}
	for _, r := range rows {
		if r.Decided == 0 {
			continue
		}
		addTo(byStart, consent.StatsBucketStart(r.Hour, interval), &r.Counts)
	}
	out := make([]consent.ConsentBucketStat, 0, len(byStart))
	for start, c := range byStart {
		b := consent.ConsentBucketStat{Start: start, Total: c.Decided, GPCSignal: c.GPCSignal, Actions: map[string]int64{},
			Jurisdictions: map[string]int64{}, Categories: map[string]consent.CategoryTally{}}
		for k, v := range map[string]int64{"accept_all": c.AcceptAll, "reject_all": c.RejectAll, "custom": c.Custom, "gpc": c.GPC} {
			if v > 0 {
				b.Actions[k] = v
			}
		}
		for k, v := range map[string]int64{core.JurisdictionGDPR: c.GDPR, core.JurisdictionCCPA: c.CCPA, core.JurisdictionNone: c.JurisdictionNone} {
			if v > 0 {
				b.Jurisdictions[k] = v
			}
		}
		for slug, t := range c.Categories {
			b.Categories[slug] = consent.CategoryTally{Decisions: t.Decisions, Granted: t.Granted}
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(x, y consent.ConsentBucketStat) int { return x.Start.Compare(y.Start) })
	return out, nil
}
