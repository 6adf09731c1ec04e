package console

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/adapters/internal/response"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/site"
)

func (h *handler) sitesPage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showSites(w, r, rq, http.StatusOK, page{})
}

func (h *handler) showSites(w http.ResponseWriter, r *http.Request, rq *request, status int, p page) {
	sites, err := h.m.Sites(r.Context(), rq.org)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	rows := make([]siteRow, 0, len(sites))
	for _, site := range sites {
		row, err := h.siteStatus(r.Context(), rq.org, site)
		if err != nil {
			h.fail(w, r, rq, err)
			return
		}
		rows = append(rows, row)
	}
	p.Title, p.Section, p.Data = "Sites", "sites", rows
	h.render(w, r, rq, status, "sites", p)
}

// siteRow is a site on the sites list with its status at a glance.
type siteRow struct {
	*core.Site
	// LastDecision is when a visitor last answered the banner (nil: never, so the banner has
	// not been seen working yet); Week counts the decisions of the last seven days.
	LastDecision *time.Time
	Week         int
	// LastScan is the latest scan (nil: none); Verdict the compliance verdict ("" without the
	// compliance use case).
	LastScan *scan.Scan
	Verdict  string
}

func (h *handler) siteStatus(ctx context.Context, org string, site *core.Site) (siteRow, error) {
	row := siteRow{Site: site}
	recs, _, err := h.m.ConsentRecords(ctx, org, consent.ConsentQuery{SiteID: site.ID, Page: 1, Limit: 1})
	if err != nil {
		return row, err
	}
	if len(recs) > 0 {
		row.LastDecision = &recs[0].CreatedAt
		from := h.cfg.Now().Add(-7 * 24 * time.Hour)
		if _, row.Week, err = h.m.ConsentRecords(ctx, org, consent.ConsentQuery{SiteID: site.ID, Page: 1, Limit: 1, From: &from}); err != nil {
			return row, err
		}
	}
	scans, err := h.m.Scans(ctx, org, site.ID)
	if err != nil {
		return row, err
	}
	if len(scans) > 0 {
		row.LastScan = scans[0]
	}
	rep, err := h.m.Report(ctx, org, site.ID)
	if err != nil {
		return row, err
	}
	row.Verdict = rep.Verdict
	return row, nil
}

func (h *handler) createSite(w http.ResponseWriter, r *http.Request, rq *request) {
	name, u := strings.TrimSpace(r.PostFormValue("name")), strings.TrimSpace(r.PostFormValue("url"))
	s, err := h.m.CreateSite(r.Context(), rq.org, site.SiteInput{Name: &name, URL: &u})
	if err != nil {
		status, msg := h.message(r, err)
		h.showSites(w, r, rq, status, page{Form: "create", Error: msg, Values: r.PostForm})
		return
	}
	h.redirect(w, r, rq, "/sites/"+s.ID, "Site “"+s.Name+"” created. Paste the snippet below into your pages, then scan the site.")
}

// siteOf loads the site named in the path, showing a not-found page when it is not the
// organization's.
func (h *handler) siteOf(w http.ResponseWriter, r *http.Request, rq *request) *core.Site {
	s, err := h.m.Site(r.Context(), rq.org, r.PathValue("id"))
	if err != nil {
		if core.ErrorCode(err) == core.CodeNotFound {
			h.errorPage(w, r, rq, http.StatusNotFound, "Site not found",
				"This site does not exist, or it belongs to another organization. Pick one from your sites.")
			return nil
		}
		h.fail(w, r, rq, err)
		return nil
	}
	return s
}

// overview is the site overview's data.
type overview struct {
	Frameworks   []string
	Framework    string
	Code         string
	Instructions string
	Trackers     *scan.Trackers
	Blocking     bool
	Categories   int
	Services     int
	Latest       *scan.Scan
	// Compliance is the compliance summary; nil without the use case.
	Compliance *complianceSummary
	// Mail says whether the server emails the digest (it has mail settings).
	Mail bool
}

// complianceSummary is what the overview shows of the compliance report: the verdict, the
// findings by severity with their evidence, and the services the latest scan found that
// nothing holds back (the one-step prompt).
type complianceSummary struct {
	Report                    *scan.ComplianceReport
	Errors, Warnings, Notices int
	// Findings are the errors, Others the warnings and notices.
	Findings, Others []scan.Finding
	// Unheld names the services of enforcement.unheld-service findings; UnheldScan is their scan.
	Unheld     []string
	UnheldScan string
}

// unheldRule is the finding the overview's one-step prompt answers.
const unheldRule = "enforcement.unheld-service"

func summarize(r *scan.ComplianceReport) *complianceSummary {
	c := &complianceSummary{Report: r}
	for _, f := range r.Findings {
		switch f.Severity {
		case scan.SeverityError:
			c.Errors++
			c.Findings = append(c.Findings, f)
		case scan.SeverityWarning:
			c.Warnings++
			c.Others = append(c.Others, f)
		default:
			c.Notices++
			c.Others = append(c.Others, f)
		}
		if f.RuleID == unheldRule && f.Evidence.Service != nil && f.Evidence.ScanID != nil {
			c.Unheld = append(c.Unheld, *f.Evidence.Service)
			c.UnheldScan = *f.Evidence.ScanID
		}
	}
	return c
}

// findingView is a finding as the console lists it: its texts and its evidence as labelled
// items (a scan is linked).
type findingView struct {
	scan.Finding
	Items []evidenceItem
}

// evidenceItem is one line of a finding's evidence: a label and its values, or a link.
type evidenceItem struct {
	Label  string
	Values []string
	Href   string
}

func findingOf(f scan.Finding, siteID string) findingView {
	v := findingView{Finding: f}
	ev := f.Evidence
	add := func(label string, values ...string) {
		var vs []string
		for _, x := range values {
			if x != "" {
				vs = append(vs, x)
			}
		}
		if len(vs) > 0 {
			v.Items = append(v.Items, evidenceItem{Label: label, Values: vs})
		}
	}
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if ev.Field != nil {
		val := "(not set)"
		if ev.Value != nil {
			val = *ev.Value
		}
		add("Setting", s(ev.Field)+" = "+val)
	}
	if ev.State != nil {
		add("Consent state", textfmt.Human(s(ev.State)))
	}
	if ev.Service != nil {
		svc := s(ev.Service)
		if ev.Category != nil {
			svc += " (" + textfmt.Human(s(ev.Category)) + ")"
		}
		add("Service", svc)
	}
	add("Page", s(ev.Page))
	requests := ev.Requests
	if len(requests) == 0 && ev.Request != nil {
		requests = []string{*ev.Request}
	}
	add("Requests", requests...)
	cookies := ev.Cookies
	if len(cookies) == 0 && ev.Cookie != nil {
		cookies = []string{*ev.Cookie}
	}
	add("Cookies and storage", cookies...)
	if ev.Omitted > 0 {
		add("Also", textfmt.Plural(ev.Omitted, "more request or cookie", "more requests and cookies"))
	}
	if ev.ScanID != nil {
		v.Items = append(v.Items, evidenceItem{Label: "Scan", Values: []string{"see the scan"}, Href: "/sites/" + siteID + "/scans/" + *ev.ScanID})
	}
	return v
}

func (h *handler) sitePage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showSite(w, r, rq, http.StatusOK, page{})
}

func (h *handler) showSite(w http.ResponseWriter, r *http.Request, rq *request, status int, p page) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	ctx := r.Context()
	o := overview{Frameworks: response.SnippetFrameworks(), Framework: r.URL.Query().Get("framework"), Mail: h.m.DigestUseCases != nil && h.m.Sends()}
	if !slices.Contains(o.Frameworks, o.Framework) {
		o.Framework = o.Frameworks[0]
	}
	sn := h.snippets.For(h.proxies.BaseURL(r), o.Framework, s.ProjectKey)
	o.Code, o.Instructions = sn.Code, sn.Instructions
	var err error
	if o.Trackers, err = h.m.Trackers(ctx, rq.org, s.ID); err != nil {
		h.fail(w, r, rq, err)
		return
	}
	o.Blocking = o.Trackers.SiteWide
	cats, err := h.m.Categories(ctx, rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	svcs, err := h.m.Services(ctx, rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	o.Categories, o.Services = len(cats), len(svcs)
	scans, err := h.m.Scans(ctx, rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	if len(scans) > 0 {
		o.Latest = scans[0]
	}
	rep, err := h.m.Report(ctx, rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	o.Compliance = summarize(rep)
	for i, slug := range o.Compliance.Unheld {
		if ls, err := h.m.LibraryService(slug); err == nil {
			o.Compliance.Unheld[i] = ls.Label
		}
	}
	p.Title, p.Section, p.Tab, p.Site, p.Data = s.Name, "sites", "overview", s, o
	h.render(w, r, rq, status, "site", p)
}

func (h *handler) renameSite(w http.ResponseWriter, r *http.Request, rq *request) {
	name, u := strings.TrimSpace(r.PostFormValue("name")), strings.TrimSpace(r.PostFormValue("url"))
	s, err := h.m.UpdateSite(r.Context(), rq.org, r.PathValue("id"), site.SiteInput{Name: &name, URL: &u})
	if err != nil {
		status, msg := h.message(r, err)
		h.showSite(w, r, rq, status, page{Form: "rename", Error: msg, Values: r.PostForm})
		return
	}
	h.redirect(w, r, rq, "/sites/"+s.ID, "Site saved.")
}

// confirmation is a page asking to confirm a deletion.
type confirmation struct {
	Question string
	Detail   string
	Action   string
	Button   string
	Cancel   string
}

func (h *handler) confirmDeleteSite(w http.ResponseWriter, r *http.Request, rq *request) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	h.render(w, r, rq, http.StatusOK, "confirm", page{Title: "Delete " + s.Name, Section: "sites", Site: s, Data: confirmation{
		Question: "Delete the site “" + s.Name + "”?",
		Detail:   "Its banner, categories, services, scans and consent records are deleted too. Pages that still load its snippet will show no banner. This cannot be undone.",
		Action:   "/sites/" + s.ID + "/delete", Button: "Delete the site", Cancel: "/sites/" + s.ID,
	}})
}

func (h *handler) deleteSite(w http.ResponseWriter, r *http.Request, rq *request) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	if err := h.m.DeleteSite(r.Context(), rq.org, s.ID); err != nil {
		h.fail(w, r, rq, err)
		return
	}
	h.redirect(w, r, rq, "/sites", "Site “"+s.Name+"” deleted.")
}

// enforce is the overview's one step after a scan: configure the services the latest scan
// found (which adds their blocking rules) and turn site-wide blocking on. What it cannot hold
// (a service with no known script pattern) stays on the report, whose fix says to mark its tags.
func (h *handler) enforce(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx, id := r.Context(), r.PathValue("id")
	rep, err := h.m.Report(ctx, rq.org, id)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	c := summarize(rep)
	if c.UnheldScan == "" {
		h.redirect(w, r, rq, "/sites/"+id, "Nothing to hold back: the latest scan found no tracker running before consent.")
		return
	}
	res, err := h.m.ConfigureScan(ctx, rq.org, id, c.UnheldScan)
	if err == nil {
		err = h.m.SetScriptBlocking(ctx, rq.org, id, true)
	}
	if err != nil {
		status, msg := h.message(r, err)
		h.showSite(w, r, rq, status, page{Form: "enforce", Error: msg})
		return
	}
	h.redirect(w, r, rq, "/sites/"+id, textfmt.Plural(len(res.Services), "service", "services")+" configured from the scan, "+
		textfmt.Plural(res.BlockingRulesAdded, "blocking rule", "blocking rules")+" added, site-wide blocking on. What is still listed below needs its tags marked.")
}

func (h *handler) setBlocking(w http.ResponseWriter, r *http.Request, rq *request) {
	on := r.PostFormValue("enabled") == "true"
	id := r.PathValue("id")
	if err := h.m.SetScriptBlocking(r.Context(), rq.org, id, on); err != nil {
		status, msg := h.message(r, err)
		h.showSite(w, r, rq, status, page{Form: "blocking", Error: msg})
		return
	}
	msg := "Site-wide blocking is off: only tags you marked are held back."
	if on {
		msg = "Site-wide blocking is on: scripts matching a built-in rule or your services' rules are held back until consent. Visitors will be asked again."
	}
	h.redirect(w, r, rq, "/sites/"+id, msg)
}
