// Package analyticsview builds the console's analytics page (core/analytics) as data for
// server-rendered SVG charts, which the console's strict CSP allows (no script): the consent
// rate over time, the funnel from shown to decided, the accept, refuse and choose shares, and
// the per-category opt-in by country and by device; and its CSV export. The console
// (adapters/console) routes to it and renders templates/analytics.html; its own package keeps
// the console under its size limit.
package analyticsview

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/core/analytics"
)

// UseCases are the analytics' use cases the page reads.
type UseCases interface {
	AnalyticsReport(ctx context.Context, orgID string, q analytics.Query) (*analytics.Report, error)
	AnalyticsRows(ctx context.Context, orgID string, q analytics.Query) ([]analytics.Row, error)
}

// Page is the analytics page's data.
type Page struct {
	From, To, Device, Variant string // the filters as entered
	Query                     string // the filters, for the export's link
	Report                    *analytics.Report
	Rate                      LineChart
	RateWide                  LineChart
	Funnel, Shares            BarChart
	// ConsentRate is the period's decisions per banner shown, in words; Days the series' days
	// with anything counted, for the table beside the chart.
	ConsentRate string
	Days        []DayRow
	// ByCountry and ByDevice are the opt-in rate per category, per value of the dimension.
	ByCountry, ByDevice OptInTable
}

// DayRow is a day's figures in the table beside the consent rate's chart.
type DayRow struct {
	Day, Rate                                    string
	Shown, Decided, AcceptAll, RejectAll, Custom int64
}

// BarChart is a horizontal bar chart: labels left of BarX, bars from it.
type BarChart struct {
	Width, Height, BarX int
	Bars                []Bar
}

// Bar is one bar of a BarChart, laid out.
type Bar struct {
	Label, Value, Title, Class string
	Y, W, TextY, ValueX        int
}

// LineChart is the consent rate per bucket, as a polyline over a 0 to 100 % axis drawn from
// (Left, Bottom) to (Right, Top).
type LineChart struct {
	Width, Height            int
	Left, Right, Top, Bottom int
	Points                   string // the polyline's points
	Dots                     []Dot
	Ticks                    []Tick
	Empty                    bool
	// Class is "narrow" or "wide" (which the stylesheet shows), DescID its description's id.
	Class, DescID string
}

// Dot is a bucket's point, with its title.
type Dot struct {
	X, Y  int
	Title string
}

// Tick is an axis label.
type Tick struct {
	X, Y          int
	Label, Anchor string
}

// OptInTable is the opt-in rate per category (columns) of each value of a dimension (rows).
type OptInTable struct {
	Categories []string
	Rows       []OptInRow
}

// OptInRow is one value's row: its decisions and each category's rate.
type OptInRow struct {
	Value     string
	Decisions int64
	Cells     []OptInCell
}

// OptInCell is one category's opt-in: the category, the rate in words and a bar's width (of 100).
type OptInCell struct {
	Category, Rate string
	W              int
}

// Load reads the filters of r (from, to as days; device; variant), the report and, when
// format=csv, writes the export to w instead and returns nil, nil.
func Load(w http.ResponseWriter, r *http.Request, m UseCases, orgID, siteID string) (*Page, error) {
	qs := r.URL.Query()
	p := &Page{From: qs.Get("from"), To: qs.Get("to"), Device: qs.Get("device"), Variant: qs.Get("variant")}
	p.Query = url.Values{"from": {p.From}, "to": {p.To}, "device": {p.Device}, "variant": {p.Variant}}.Encode()
	q := analytics.Query{SiteID: siteID, Interval: "day"}
	var err error
	if q.From, err = day("from", p.From, 0); err != nil {
		return p, err
	}
	if q.To, err = day("to", p.To, 24*time.Hour); err != nil {
		return p, err
	}
	if p.Device != "" {
		q.Device = &p.Device
	}
	if p.Variant != "" {
		q.Variant = &p.Variant
	}
	if qs.Get("format") == "csv" {
		rows, err := m.AnalyticsRows(r.Context(), orgID, q)
		if err != nil {
			return p, err
		}
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="analytics-`+siteID+`.csv"`)
		return nil, WriteCSV(w, rows)
	}
	if p.Report, err = m.AnalyticsReport(r.Context(), orgID, q); err != nil {
		return p, err
	}
	p.build()
	return p, nil
}

// day reads a day filter (textfmt.ParseDay), plus add ("to" names a day included in full).
func day(field, v string, add time.Duration) (*time.Time, error) {
	t, err := textfmt.ParseDay(field, v)
	if t != nil {
		*t = t.Add(add)
	}
	return t, err
}

// WriteCSV writes the counters as CSV (analytics.CSVHeader).
func WriteCSV(w io.Writer, rows []analytics.Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(analytics.CSVHeader()); err != nil {
		return err
	}
	for i := range rows {
		if err := cw.Write(rows[i].CSVRecord()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// pct is a rate in percent, its sign kept on the number's line (a no-break space).
func pct(f float64) string { return fmt.Sprintf("%.0f\u00a0%%", 100*f) }

// Bars lays out a bar chart of values (label, value, its words, its title) scaled to the largest.
func Bars(items []Bar, values []int64) BarChart {
	var top int64 = 1
	for _, v := range values {
		top = max(top, v)
	}
	// Narrow, so that its text reads at the size of the page's on a phone as in a card (the
	// stylesheet makes the charts' text larger on a phone: the label column fits 20 characters).
	c := BarChart{Width: 440, Height: 34*len(items) + 4, BarX: 190}
	for i := range items {
		b := &items[i]
		b.Y, b.TextY = 34*i+4, 34*i+20
		b.W = max(2, int(float64(values[i])/float64(top)*150))
		b.ValueX = c.BarX + b.W + 8
		if b.Class == "" {
			b.Class = fmt.Sprintf("fill-%d", i%4)
		}
	}
	c.Bars = items
	return c
}

func (p *Page) build() {
	t := p.Report.Totals
	p.Funnel = Bars([]Bar{
		{Label: "Shown", Value: fmt.Sprint(t.Shown), Title: fmt.Sprintf("Banner shown %d times", t.Shown)},
		{Label: "Decided", Value: fmt.Sprintf("%d (%s)", t.Decided, pct(t.ConsentRate)), Title: fmt.Sprintf("%d decisions: %s of the banners shown", t.Decided, pct(t.ConsentRate))},
		{Label: "Opened preferences", Value: fmt.Sprint(t.PreferencesOpened), Title: fmt.Sprintf("Preferences opened %d times", t.PreferencesOpened)},
		{Label: "Left undecided", Value: fmt.Sprint(t.LeftUndecided), Title: fmt.Sprintf("%d visitors left without deciding", t.LeftUndecided)},
	}, []int64{t.Shown, t.Decided, t.PreferencesOpened, t.LeftUndecided})
	p.Shares = Bars([]Bar{
		{Label: "Accept all", Value: pct(t.AcceptShare), Title: fmt.Sprintf("%d decisions accepted all (%s)", t.AcceptAll, pct(t.AcceptShare))},
		{Label: "Reject all", Value: pct(t.RejectShare), Title: fmt.Sprintf("%d decisions refused all (%s)", t.RejectAll, pct(t.RejectShare))},
		{Label: "Own choice", Value: pct(t.CustomShare), Title: fmt.Sprintf("%d decisions chose per category (%s)", t.Custom, pct(t.CustomShare))},
	}, []int64{t.AcceptAll, t.RejectAll, t.Custom})
	p.Rate, p.RateWide = rateChart(p.Report.Series, RateNarrow), rateChart(p.Report.Series, RateWide)
	p.ConsentRate = pct(t.ConsentRate)
	for _, d := range p.Report.Series {
		if d.Shown > 0 || d.Decided > 0 {
			p.Days = append(p.Days, DayRow{Day: d.Start.Format("2 Jan 2006"), Rate: pct(d.ConsentRate), Shown: d.Shown, Decided: d.Decided,
				AcceptAll: d.AcceptAll, RejectAll: d.RejectAll, Custom: d.Custom})
		}
	}
	p.ByCountry = optIn(p.Report.By[analytics.DimCountry], "Unknown")
	p.ByDevice = optIn(p.Report.By[analytics.DimDevice], "Unknown")
}

// The consent rate's drawing is made twice: narrow, as the bar charts, so that its labels read
// on a phone; wide, for a desktop card's full width, where a day's point has room of its own.
// The stylesheet shows one of them (console.css, .chart.line).
const (
	RateNarrow = 480
	RateWide   = 960
)

// rateChart draws the consent rate of each bucket that showed the banner, width units wide.
func rateChart(series []analytics.SeriesBucket, width int) LineChart {
	const left, top, bottom = 56, 12, 212
	right := width - 8
	c := LineChart{Width: width, Height: 240, Left: left, Right: right, Top: top, Bottom: bottom, Class: "narrow", DescID: "rate-d"}
	if width > RateNarrow {
		c.Class, c.DescID = "wide", "rate-dw"
	}
	for _, y := range []int{0, 50, 100} {
		c.Ticks = append(c.Ticks, Tick{X: 0, Y: bottom - (bottom-top)*y/100 + 4, Label: fmt.Sprintf("%d\u00a0%%", y), Anchor: "start"})
	}
	n := len(series)
	var pts []string
	for i, s := range series {
		x := left
		if n > 1 {
			x = left + (right-left)*i/(n-1)
		}
		if i == 0 || i == n-1 || (n > 8 && i == n/2) {
			anchor := map[bool]string{true: "start", false: "end"}[i == 0]
			if i == n/2 && i != 0 && i != n-1 {
				anchor = "middle"
			}
			c.Ticks = append(c.Ticks, Tick{X: x, Y: bottom + 22, Label: s.Start.Format("2 Jan"), Anchor: anchor})
		}
		if s.Shown == 0 {
			continue
		}
		y := bottom - int(float64(bottom-top)*min(1, s.ConsentRate))
		pts = append(pts, fmt.Sprintf("%d,%d", x, y))
		c.Dots = append(c.Dots, Dot{X: x, Y: y, Title: fmt.Sprintf("%s: %s (%d of %d)", s.Start.Format("2 Jan 2006"), pct(s.ConsentRate), s.Decided, s.Shown)})
	}
	c.Points, c.Empty = strings.Join(pts, " "), len(pts) == 0
	return c
}

// optIn is the opt-in table of a dimension's values, the values with the most decisions first.
func optIn(slices_ []analytics.Breakdown, unknown string) OptInTable {
	var t OptInTable
	seen := map[string]bool{}
	for _, s := range slices_ {
		for c := range s.Categories {
			if !seen[c] {
				seen[c] = true
				t.Categories = append(t.Categories, c)
			}
		}
	}
	slices.Sort(t.Categories)
	rows := slices.Clone(slices_)
	slices.SortStableFunc(rows, func(a, b analytics.Breakdown) int { return int(b.Decided - a.Decided) })
	for _, s := range rows {
		if s.Decided == 0 {
			continue
		}
		r := OptInRow{Value: s.Value, Decisions: s.Decided}
		if r.Value == "" {
			r.Value = unknown
		}
		for _, c := range t.Categories {
			o := s.Categories[c]
			r.Cells = append(r.Cells, OptInCell{Category: c, Rate: pct(o.OptInRate), W: int(100 * o.OptInRate)})
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}
