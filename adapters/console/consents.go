package console

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/consentd/consentd/adapters/console/analyticsview"
	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/adapters/internal/response"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

// recordsView is the consent records page's data. Pages are keyset pages (the API's cursor):
// "Older" costs the same at any depth, and records arriving meanwhile do not shift them.
type recordsView struct {
	Records    []*consent.ConsentRecord
	Total      int
	Limit      int
	From, To   string
	Visitor    string
	Query      string // the filters, for links
	Deep       bool   // a page after the first (a cursor was given)
	Next       string // the cursor of the next, older page; "" on the last
	Categories []string
	Extra      any // what the proof-of-consent features add
	// Shown describes each record's snapshot (what the visitor was shown), by hash; empty
	// without the proof-of-consent use cases.
	Shown map[string]shownView
}

// shownView is what a snapshot says of a record's banner: its language and runtime version.
type shownView struct{ Language, Runtime string }

// shown reads the snapshots the records name, once per hash.
func (h *handler) shown(r *http.Request, rq *request, siteID string, recs []*consent.ConsentRecord) map[string]shownView {
	out := map[string]shownView{}
	for _, rec := range recs {
		if _, ok := out[rec.SnapshotHash]; ok || rec.SnapshotHash == "" {
			continue
		}
		sv := shownView{}
		if snap, err := h.m.ConsentSnapshot(r.Context(), rq.org, siteID, rec.SnapshotHash); err == nil {
			var c struct {
				Language       string `json:"language"`
				RuntimeVersion string `json:"runtimeVersion"`
			}
			if json.Unmarshal(snap.Content, &c) == nil {
				sv = shownView{Language: c.Language, Runtime: c.RuntimeVersion}
			}
		}
		out[rec.SnapshotHash] = sv
	}
	return out
}

const recordsPerPage = 25

// consentQuery reads the filters of the records page and its exports. "to" names a day
// included in full.
func consentQuery(r *http.Request, site string) (consent.ConsentQuery, error) {
	q := consent.ConsentQuery{SiteID: site, VisitorID: strings.TrimSpace(r.URL.Query().Get("visitor"))}
	var err error
	if q.From, err = textfmt.ParseDay("from", r.URL.Query().Get("from")); err != nil {
		return q, err
	}
	if q.To, err = textfmt.ParseDay("to", r.URL.Query().Get("to")); err != nil {
		return q, err
	}
	if q.To != nil && len(strings.TrimSpace(r.URL.Query().Get("to"))) == 10 {
		t := q.To.AddDate(0, 0, 1)
		q.To = &t
	}
	if q.From != nil && len(strings.TrimSpace(r.URL.Query().Get("from"))) == 10 {
		t := q.From.Add(-time.Nanosecond * 1000) // "from" is exclusive: the day's first microsecond counts
		q.From = &t
	}
	return q, nil
}

func (h *handler) consentsPage(w http.ResponseWriter, r *http.Request, rq *request) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	p := page{Title: "Consent records · " + s.Name, Section: "sites", Tab: "consents", Site: s}
	qs := r.URL.Query()
	v := recordsView{From: qs.Get("from"), To: qs.Get("to"), Visitor: strings.TrimSpace(qs.Get("visitor")), Limit: recordsPerPage}
	v.Query = url.Values{"from": {v.From}, "to": {v.To}, "visitor": {v.Visitor}}.Encode()
	q, err := consentQuery(r, s.ID)
	if cursor := qs.Get("cursor"); err == nil && cursor != "" {
		v.Deep = true
		q.After, err = consent.DecodeConsentCursor(cursor)
	}
	status := http.StatusOK
	if err == nil {
		// One more than shown tells whether an older page exists.
		q.Page, q.Limit = 1, v.Limit+1
		v.Records, v.Total, err = h.m.ConsentRecords(r.Context(), rq.org, q)
		if len(v.Records) > v.Limit {
			v.Records = v.Records[:v.Limit]
			v.Next = consent.EncodeConsentCursor(v.Records[v.Limit-1])
		}
	}
	if err != nil {
		status, p.Error = h.message(r, err)
		p.Form = "filters"
	}
	if cats, err := h.m.Categories(r.Context(), rq.org, s.ID); err == nil {
		for _, c := range cats {
			v.Categories = append(v.Categories, c.Slug)
		}
	}
	if err == nil {
		v.Shown = h.shown(r, rq, s.ID, v.Records)
		x, err := h.proofView(r, rq, s.ID, q, v.Categories)
		if err != nil {
			status, p.Error = h.message(r, err)
			p.Form = "filters"
		}
		v.Extra = x
	}
	p.Data = v
	h.render(w, r, rq, status, "consents", p)
}

// exportConsents streams the filtered records as CSV or NDJSON, in the API's format.
func (h *handler) exportConsents(w http.ResponseWriter, r *http.Request, rq *request) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	q, err := consentQuery(r, s.ID)
	if err == nil {
		// Refuse before the first byte: the export streams.
		err = core.Authorize(r.Context(), core.PermExport, rq.org, s.ID)
	}
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	format := r.URL.Query().Get("format")
	if format != "ndjson" {
		format = "csv"
	}
	w.Header().Set("Content-Disposition", `attachment; filename="consent-records-`+s.ID+`.`+format+`"`)
	w.Header().Set("Cache-Control", "no-store")
	bw := bufio.NewWriterSize(w, 32<<10)
	var write func(*consent.ConsentRecord) error
	if format == "ndjson" {
		w.Header().Set("Content-Type", "application/x-ndjson")
		enc := json.NewEncoder(bw)
		write = func(c *consent.ConsentRecord) error { return enc.Encode(c) }
	} else {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		cw := csv.NewWriter(bw)
		_ = cw.Write(response.ConsentColumns())
		write = func(c *consent.ConsentRecord) error {
			if err := cw.Write(response.ConsentRow(c)); err != nil {
				return err
			}
			cw.Flush()
			return cw.Error()
		}
	}
	if err := h.m.ExportConsentRecords(r.Context(), rq.org, q, write); err != nil {
		if r.Context().Err() == nil {
			h.log.ErrorContext(r.Context(), "console export failed", "err", err)
		}
		panic(http.ErrAbortHandler) // a cut connection, never a short file that looks whole
	}
	if err := bw.Flush(); err != nil {
		panic(http.ErrAbortHandler)
	}
}

// analyticsPage is the site's analytics, or with format=csv their export (analyticsview).
func (h *handler) analyticsPage(w http.ResponseWriter, r *http.Request, rq *request) {
	if s := h.siteOf(w, r, rq); s != nil {
		p, status := page{Title: "Analytics · " + s.Name, Section: "sites", Tab: "analytics", Site: s, Form: "filters"}, http.StatusOK
		if v, err := analyticsview.Load(w, r, h.m.Analytics, rq.org, s.ID); v != nil { // nil: the export, written
			if p.Data = v; err != nil {
				status, p.Error = h.message(r, err)
			}
			h.render(w, r, rq, status, "analytics", p)
		}
	}
}
