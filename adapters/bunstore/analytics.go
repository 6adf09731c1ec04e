package bunstore

import (
	"context"
	"slices"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"

	"github.com/consentd/consentd/core/analytics"
)

var _ analytics.Store = (*Store)(nil)

// analyticsKey is the key columns of both analytics tables.
type analyticsKey struct {
	SiteID        string    `bun:"site_id,pk"`
	Hour          time.Time `bun:"hour,pk"`
	Country       string    `bun:"country,pk"`
	RegionRule    string    `bun:"region_rule,pk"`
	Device        string    `bun:"device,pk"`
	Language      string    `bun:"language,pk"`
	BannerVersion int       `bun:"banner_version,pk"`
	Variant       string    `bun:"variant,pk"`
}

const analyticsKeyColumns = "site_id, hour, country, region_rule, device, language, banner_version, variant"

func toKey(k analytics.Key) analyticsKey {
	return analyticsKey{SiteID: k.SiteID, Hour: k.Hour.UTC(), Country: k.Country, RegionRule: k.RegionRule, Device: k.Device,
		Language: k.Language, BannerVersion: k.BannerVersion, Variant: k.Variant}
}

func (k analyticsKey) core() analytics.Key {
	return analytics.Key{SiteID: k.SiteID, Hour: k.Hour.UTC(), Country: k.Country, RegionRule: k.RegionRule, Device: k.Device,
		Language: k.Language, BannerVersion: k.BannerVersion, Variant: k.Variant}
}

// analyticsCount is a row of analytics_counts; its counters are analytics.Counts.Columns.
type analyticsCount struct {
	bun.BaseModel `bun:"table:analytics_counts,alias:analytics_counts"`
	analyticsKey
	Shown             int64 `bun:"shown"`
	PreferencesOpened int64 `bun:"preferences_opened"`
	Left              int64 `bun:"left_undecided"`
	FirstAcceptAll    int64 `bun:"first_accept_all"`
	FirstRejectAll    int64 `bun:"first_reject_all"`
	FirstCustom       int64 `bun:"first_custom"`
	FirstDoNotSell    int64 `bun:"first_do_not_sell"`
	FirstGPC          int64 `bun:"first_gpc"`
	DecisionMS        int64 `bun:"decision_ms"`
	Timed             int64 `bun:"timed"`
	Decided           int64 `bun:"decided"`
	AcceptAll         int64 `bun:"accept_all"`
	RejectAll         int64 `bun:"reject_all"`
	Custom            int64 `bun:"custom"`
	GPC               int64 `bun:"gpc"`
	GDPR              int64 `bun:"gdpr"`
	CCPA              int64 `bun:"ccpa"`
	JurNone           int64 `bun:"jur_none"`
	GPCSignal         int64 `bun:"gpc_signal"`
	DoNotSell         int64 `bun:"do_not_sell"`
}

// columns are the row's counters in analytics.Counts.Columns order.
func (c *analyticsCount) columns() []*int64 {
	return []*int64{&c.Shown, &c.PreferencesOpened, &c.Left, &c.FirstAcceptAll, &c.FirstRejectAll, &c.FirstCustom,
		&c.FirstDoNotSell, &c.FirstGPC, &c.DecisionMS, &c.Timed, &c.Decided, &c.AcceptAll, &c.RejectAll, &c.Custom,
		&c.GPC, &c.GDPR, &c.CCPA, &c.JurNone, &c.GPCSignal, &c.DoNotSell}
}

type analyticsCategoryCount struct {
	bun.BaseModel `bun:"table:analytics_category_counts,alias:analytics_category_counts"`
	analyticsKey
	Category  string `bun:"category,pk"`
	Decisions int64  `bun:"decisions"`
	Granted   int64  `bun:"granted"`
}

// AddAnalytics implements analytics.Store: one transaction, one round trip for both upserts
// after the check of which sites still exist (a site deleted between count and flush loses
// its counts rather than failing everyone's).
func (s *Store) AddAnalytics(ctx context.Context, rows []analytics.Row) error {
	rows = analytics.Merge(rows)
	if len(rows) == 0 {
		return nil
	}
	var ids []string
	for _, r := range rows { // sorted by site
		if len(ids) == 0 || ids[len(ids)-1] != r.SiteID {
			ids = append(ids, r.SiteID)
		}
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var live []string
		q := tx.NewSelect().Table("sites").Column("id").Where("id IN (?)", bun.In(ids))
		if s.Dialect() == "postgres" {
			q = q.For("KEY SHARE") // a site deleted meanwhile waits for this flush
		}
		if err := q.Scan(ctx, &live); err != nil {
			return err
		}
		counts, cats := analyticsModels(rows, live)
		if len(counts) == 0 {
			return nil
		}
		qs := []schema.QueryAppender{upsertAnalytics(tx.NewInsert().Model(&counts))}
		if len(cats) > 0 {
			qs = append(qs, tx.NewInsert().Model(&cats).On("CONFLICT ("+analyticsKeyColumns+", category) DO UPDATE").
				Set("decisions = analytics_category_counts.decisions + EXCLUDED.decisions").
				Set("granted = analytics_category_counts.granted + EXCLUDED.granted"))
		}
		return execTogether(ctx, tx, qs...)
	})
	return translate(err, "analytics")
}

// analyticsModels are the rows of live sites as table rows, in key order (category rows by
// key and category), so that concurrent flushes lock rows in one order.
func analyticsModels(rows []analytics.Row, live []string) ([]analyticsCount, []analyticsCategoryCount) {
	var counts []analyticsCount
	var cats []analyticsCategoryCount
	for i := range rows {
		r := &rows[i]
		if !slices.Contains(live, r.SiteID) {
			continue
		}
		m := analyticsCount{analyticsKey: toKey(r.Key)}
		src := r.Counts.Columns()
		for j, p := range m.columns() {
			*p = *src[j]
		}
		counts = append(counts, m)
		slugs := make([]string, 0, len(r.Categories))
		for slug := range r.Categories {
			slugs = append(slugs, slug)
		}
		slices.Sort(slugs)
		for _, slug := range slugs {
			t := r.Categories[slug]
			cats = append(cats, analyticsCategoryCount{analyticsKey: m.analyticsKey, Category: slug, Decisions: t.Decisions, Granted: t.Granted})
		}
	}
	return counts, cats
}

func upsertAnalytics(q *bun.InsertQuery) *bun.InsertQuery {
	q = q.On("CONFLICT (" + analyticsKeyColumns + ") DO UPDATE")
	for _, c := range analytics.ColumnNames() {
		q = q.Set(c + " = analytics_counts." + c + " + EXCLUDED." + c)
	}
	return q
}

// AnalyticsRows implements analytics.Store.
func (s *Store) AnalyticsRows(ctx context.Context, siteID string, from, to time.Time) ([]analytics.Row, error) {
	var counts []analyticsCount
	if err := s.db.NewSelect().Model(&counts).Where("site_id = ? AND hour >= ? AND hour < ?", siteID, from.UTC(), to.UTC()).
		Scan(ctx); err != nil {
		return nil, translate(err, "analytics")
	}
	var cats []analyticsCategoryCount
	if err := s.db.NewSelect().Model(&cats).Where("site_id = ? AND hour >= ? AND hour < ?", siteID, from.UTC(), to.UTC()).
		Scan(ctx); err != nil {
		return nil, translate(err, "analytics")
	}
	byKey := make(map[analyticsKey]int, len(counts))
	out := make([]analytics.Row, len(counts))
	for i := range counts {
		c := &counts[i]
		c.Hour = c.Hour.UTC()
		out[i].Key = c.analyticsKey.core()
		dst := out[i].Counts.Columns()
		for j, p := range c.columns() {
			*dst[j] = *p
		}
		byKey[c.analyticsKey] = i
	}
	for _, c := range cats {
		c.Hour = c.Hour.UTC()
		i, ok := byKey[c.analyticsKey]
		if !ok {
			continue
		}
		if out[i].Categories == nil {
			out[i].Categories = map[string]analytics.Tally{}
		}
		out[i].Categories[c.Category] = analytics.Tally{Decisions: c.Decisions, Granted: c.Granted}
	}
	return out, nil
}
