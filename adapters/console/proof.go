package console

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/adapters/console/proofchart"
	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

// proofData is what proof of consent adds to the records page: the chain's verification
// (when asked), and the statistics of the filtered period as charts.
type proofData struct {
	Report   *consent.ChainReport
	Verified bool
	Stats    *consent.ConsentStats
	Total    int64
	OptIn    barChart
	Actions  proofchart.Stack
	Regimes  barChart
	// Places are the decisions by the visitor's place (region, else country), the most
	// frequent first.
	Places barChart
}

// maxPlaces is how many places the chart by place shows; the rest are summed as "Elsewhere".
const maxPlaces = 12

// barChart is a horizontal bar chart drawn as SVG by the template.
type barChart struct {
	Width, Height int
	Bars          []bar
}

type bar struct {
	// Name is the bar's label in words, for its table.
	Name       string
	Label      string
	Value      string
	Y, W       int
	TextY      int
	ValueX     int
	Class      string
	Title      string
	Proportion float64
}

// actionNames are the consent actions in words.
var actionNames = map[string]string{"accept_all": "Accept all", "reject_all": "Reject all", "custom": "Custom choice", "gpc": "GPC signal"}

const (
	barChartW = 440
	labelW    = 110
	barH      = 22
	barGap    = 12
)

// proofView verifies the chain when asked (?verify=1) and computes the period's statistics.
func (h *handler) proofView(r *http.Request, rq *request, site string, q consent.ConsentQuery, cats []string) (*proofData, error) {
	ctx := r.Context()
	d := &proofData{}
	if r.URL.Query().Get("verify") == "1" {
		rep, err := h.m.VerifyConsentChain(ctx, rq.org, site)
		if err != nil {
			return d, err
		}
		d.Report, d.Verified = rep, true
	}
	sq := consent.ConsentStatsQuery{SiteID: site, Interval: consent.StatsDay}
	to := h.cfg.Now().UTC()
	if q.To != nil {
		to = *q.To
	}
	from := to.AddDate(0, 0, -30)
	if q.From != nil {
		from = q.From.Add(time.Microsecond)
	}
	if to.Sub(from) > 92*24*time.Hour {
		sq.Interval = consent.StatsWeek
	}
	if to.Sub(from) > consent.MaxConsentStatsSpan {
		from = to.Add(-consent.MaxConsentStatsSpan)
	}
	sq.From, sq.To = &from, &to
	st, err := h.m.ConsentStats(ctx, rq.org, sq)
	if err != nil {
		return d, err
	}
	d.Stats = st
	granted, decided := map[string]int64{}, map[string]int64{}
	regimes := map[string]int64{}
	for _, b := range st.Buckets {
		d.Total += b.Total
		for slug, c := range b.Categories {
			granted[slug] += c.Granted
			decided[slug] += c.Decisions
		}
		for j, n := range b.Jurisdictions {
			regimes[j] += n
		}
	}
	// Opt-in rate per category, in the site's order (required ones are always 100 %).
	var rates []bar
	for _, slug := range cats {
		if decided[slug] == 0 {
			continue
		}
		p := float64(granted[slug]) / float64(decided[slug])
		rates = append(rates, bar{Label: textfmt.Human(slug), Proportion: p, Value: fmt.Sprintf("%.0f %%", p*100),
			Title: fmt.Sprintf("%s: %d of %d decisions allowed it", textfmt.Human(slug), granted[slug], decided[slug])})
	}
	d.OptIn = horizontal(rates)
	var regs []bar
	var regMax int64
	for _, j := range []string{core.JurisdictionGDPR, core.JurisdictionCCPA, core.JurisdictionNone} {
		regMax = max(regMax, regimes[j])
	}
	for _, j := range []string{core.JurisdictionGDPR, core.JurisdictionCCPA, core.JurisdictionNone} {
		if regimes[j] == 0 {
			continue
		}
		name, long := regimeNames[j][0], regimeNames[j][1]
		regs = append(regs, bar{Label: name, Proportion: float64(regimes[j]) / float64(regMax), Value: fmt.Sprint(regimes[j]),
			Title: fmt.Sprintf("%s: %s", long, textfmt.Plural(int(regimes[j]), "decision", "decisions"))})
	}
	d.Regimes = horizontal(regs)
	d.Actions = proofchart.Stacked(st, actionNames)
	counts, err := h.m.ConsentRegions(ctx, rq.org, site, st.From, st.To)
	if err != nil {
		return d, err
	}
	d.Places = placeChart(counts)
	return d, nil
}

// regimeNames are a jurisdiction's short label and its plain-words explanation.
var regimeNames = map[string][2]string{
	core.JurisdictionGDPR: {"EU and UK", "Visitors from the EU, EEA, UK or Switzerland (GDPR: opt-in)"},
	core.JurisdictionCCPA: {"US", "Visitors from the US (CCPA: opt-out)"},
	core.JurisdictionNone: {"Elsewhere", "Visitors from elsewhere, where neither law applies"},
}

// horizontal lays out bars whose Proportion is in [0, 1], in colours of their own (bar-0…2),
// never the action colours of the stacked chart.
func horizontal(bars []bar) barChart {
	c := barChart{Width: barChartW, Height: len(bars)*(barH+barGap) + barGap}
	span := barChartW - labelW - 60
	for i, b := range bars {
		b.Y = barGap + i*(barH+barGap)
		b.TextY = b.Y + barH/2 + 4
		b.W = max(int(math.Round(b.Proportion*float64(span))), 2)
		b.ValueX = labelW + b.W + 8
		b.Class = fmt.Sprintf("bar-%d", i%3)
		c.Bars = append(c.Bars, b)
	}
	return c
}

func (h *handler) confirmErase(w http.ResponseWriter, r *http.Request, rq *request) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	visitor := strings.TrimSpace(r.URL.Query().Get("visitor"))
	if visitor == "" {
		h.redirect(w, r, rq, "/sites/"+s.ID+"/consents", "Enter the visitor ID to erase (the visitor finds it in the banner's preferences, or you find it in the records).")
		return
	}
	h.render(w, r, rq, http.StatusOK, "confirm", page{Title: "Erase a visitor", Section: "sites", Tab: "consents", Site: s, Data: confirmation{
		Question: "Erase the visitor “" + visitor + "”?",
		Detail: "Their ID is removed from every record of this site. The decisions stay as proof, linked to no one (the chain still verifies). " +
			"This answers an erasure request and cannot be undone.",
		Action: "/sites/" + s.ID + "/consents/erase?visitor=" + urlQueryEscape(visitor), Button: "Erase the visitor", Cancel: "/sites/" + s.ID + "/consents?visitor=" + urlQueryEscape(visitor),
	}})
}

func (h *handler) erase(w http.ResponseWriter, r *http.Request, rq *request) {
	site := r.PathValue("id")
	visitor := strings.TrimSpace(r.URL.Query().Get("visitor"))
	n, err := h.m.EraseVisitor(r.Context(), rq.org, site, visitor)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	h.redirect(w, r, rq, "/sites/"+site+"/consents", "Visitor “"+visitor+"” erased: "+textfmt.Plural(n, "record", "records")+" no longer name them.")
}

// placeChart draws the decisions by place: the maxPlaces most frequent, then the rest.
func placeChart(counts []consent.RegionCount) barChart {
	if len(counts) == 0 {
		return barChart{}
	}
	var bars []bar
	top := counts[0].Decisions
	var rest int64
	for i, c := range counts {
		if i >= maxPlaces {
			rest += c.Decisions
			continue
		}
		name := placeName(c.Region)
		bars = append(bars, bar{Label: c.Region, Name: name, Proportion: float64(c.Decisions) / float64(top), Value: fmt.Sprint(c.Decisions),
			Title: name + ": " + textfmt.Plural(int(c.Decisions), "decision", "decisions")})
		if c.Region == "" {
			bars[len(bars)-1].Label = "unknown"
		}
	}
	if rest > 0 {
		bars = append(bars, bar{Label: "others", Name: fmt.Sprintf("%d other places", len(counts)-maxPlaces), Proportion: float64(rest) / float64(top), Value: fmt.Sprint(rest),
			Title: fmt.Sprintf("%d other places: %s", len(counts)-maxPlaces, textfmt.Plural(int(rest), "decision", "decisions"))})
	}
	return horizontal(bars)
}

// placeName is a place's name in words: "California (US-CA)", "France (FR)".
func placeName(code string) string {
	if code == "" {
		return "Unknown location"
	}
	if n := core.SubdivisionName(code); n != "" {
		return n + " (" + code + ")"
	}
	if i := slices.IndexFunc(places(), func(p place) bool { return p.Code == code }); i >= 0 {
		return places()[i].Name + " (" + code + ")"
	}
	return code
}
