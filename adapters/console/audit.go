package console

import (
	"net/http"
	"net/url"

	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/adapters/internal/auditview"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// auditView is the audit log page's data.
type auditView struct {
	Entries []auditRow
	Action  string
	Site    string
	Actions []string
	Sites   []*core.Site
	Next    string
	Deep    bool
	Query   string
	Report  *identity.AuditReport
}

// auditRow is an entry as the page shows it: the site by name, each change's values as text.
type auditRow struct {
	*core.AuditEntry
	SiteName string
	Changes  []auditChange
}

// auditChange is a change as a row of field, old value and new value.
type auditChange = auditview.Row

// auditPage lists the organization's audit log, newest first, with filters and the chain's
// verification (?verify=1).
func (h *handler) auditPage(w http.ResponseWriter, r *http.Request, rq *request) {
	q := r.URL.Query()
	v := auditView{Action: q.Get("action"), Site: q.Get("site"), Actions: core.AuditActions(), Deep: q.Get("cursor") != ""}
	p, err := h.m.AuditEntries(r.Context(), rq.org, identity.AuditQuery{Action: v.Action, SiteID: v.Site, Limit: 25}, q.Get("cursor"))
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	names := map[string]string{}
	if sites, err := h.m.Sites(r.Context(), rq.org); err == nil {
		v.Sites = sites
		for _, s := range sites {
			names[s.ID] = s.Name
		}
	}
	for _, e := range p.Entries {
		row := auditRow{AuditEntry: e, SiteName: names[e.SiteID]}
		if row.SiteName == "" && e.SiteID != "" {
			row.SiteName = "deleted site"
		}
		for _, c := range e.Changes {
			row.Changes = append(row.Changes, auditview.Rows(c.Field, c.Old, c.New, textfmt.Human)...)
		}
		v.Entries = append(v.Entries, row)
	}
	v.Next = p.NextCursor
	qs := url.Values{}
	if v.Action != "" {
		qs.Set("action", v.Action)
	}
	if v.Site != "" {
		qs.Set("site", v.Site)
	}
	v.Query = qs.Encode()
	if q.Get("verify") == "1" {
		if v.Report, err = h.m.VerifyAuditLog(r.Context(), rq.org); err != nil {
			h.fail(w, r, rq, err)
			return
		}
	}
	h.render(w, r, rq, http.StatusOK, "audit", page{Title: "Audit log", Section: "audit", Data: v})
}
