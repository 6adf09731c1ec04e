package console

import (
	"net/http"
	"slices"
	"strings"

	"github.com/consentd/consentd/core"
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
	p.Title, p.Section, p.Data = "Sites", "sites", sites
	h.render(w, r, rq, status, "sites", p)
}

func (h *handler) createSite(w http.ResponseWriter, r *http.Request, rq *request) {
	name, u := strings.TrimSpace(r.PostFormValue("name")), strings.TrimSpace(r.PostFormValue("url"))
	s, err := h.m.CreateSite(r.Context(), rq.org, core.SiteInput{Name: &name, URL: &u})
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
	Trackers     *core.Trackers
	Blocking     bool
	Categories   int
	Services     int
	Latest       *core.Scan
	// Compliance is the compliance summary; nil without the use case.
	Compliance *complianceSummary
}

// complianceSummary is what the overview shows of the compliance report: the verdict, the
// findings by severity, and each broken error rule once with its fix.
type complianceSummary struct {
	Report                    *core.ComplianceReport
	Errors, Warnings, Notices int
	Broken                    []brokenRule
}

// brokenRule is an error rule with the number of its findings.
type brokenRule struct {
	Title, Fix string
	Count      int
}

func summarize(r *core.ComplianceReport) *complianceSummary {
	c := &complianceSummary{Report: r}
	seen := map[string]int{}
	for _, f := range r.Findings {
		switch f.Severity {
		case core.SeverityError:
			c.Errors++
			if i, ok := seen[f.RuleID]; ok {
				c.Broken[i].Count++
				continue
			}
			seen[f.RuleID] = len(c.Broken)
			c.Broken = append(c.Broken, brokenRule{Title: f.Title, Fix: f.Fix, Count: 1})
		case core.SeverityWarning:
			c.Warnings++
		default:
			c.Notices++
		}
	}
	return c
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
	o := overview{Frameworks: []string{"script", "react", "next"}, Framework: r.URL.Query().Get("framework")}
	if !slices.Contains(o.Frameworks, o.Framework) {
		o.Framework = "script"
	}
	o.Code, o.Instructions = h.snippet(r, o.Framework, s.ProjectKey)
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
	if h.m.ComplianceUseCases != nil {
		rep, err := h.m.Report(ctx, rq.org, s.ID)
		if err != nil {
			h.fail(w, r, rq, err)
			return
		}
		o.Compliance = summarize(rep)
	}
	p.Title, p.Section, p.Tab, p.Site, p.Data = s.Name, "sites", "overview", s, o
	h.render(w, r, rq, status, "site", p)
}

// snippet is the setup snippet the API serves for the site, byte for byte.
func (h *handler) snippet(r *http.Request, framework, key string) (string, string) {
	if h.cfg.Snippet == nil {
		return "", "GET /api/v1/sites/{id}/setup-snippet gives the setup snippet."
	}
	return h.cfg.Snippet(r, framework, key)
}

func (h *handler) renameSite(w http.ResponseWriter, r *http.Request, rq *request) {
	name, u := strings.TrimSpace(r.PostFormValue("name")), strings.TrimSpace(r.PostFormValue("url"))
	s, err := h.m.UpdateSite(r.Context(), rq.org, r.PathValue("id"), core.SiteInput{Name: &name, URL: &u})
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
		msg = "Site-wide blocking is on: scripts matching your services' rules are held back until consent. Visitors will be asked again."
	}
	h.redirect(w, r, rq, "/sites/"+id, msg)
}
