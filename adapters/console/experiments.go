package console

import (
	"net/http"

	"github.com/consentd/consentd/adapters/console/experimentview"
)

// experimentsPage lists the site's experiments (experimentview).
func (h *handler) experimentsPage(w http.ResponseWriter, r *http.Request, rq *request) {
	if s := h.siteOf(w, r, rq); s != nil {
		v, err := experimentview.LoadList(r.Context(), h.m.Experiments, rq.org, s.ID)
		if err != nil {
			h.fail(w, r, rq, err)
			return
		}
		h.render(w, r, rq, http.StatusOK, "experiments", page{Title: "Experiments · " + s.Name, Section: "sites", Tab: "experiments", Site: s, Data: v})
	}
}

// experimentPage is an experiment's results and actions.
func (h *handler) experimentPage(w http.ResponseWriter, r *http.Request, rq *request) {
	if s := h.siteOf(w, r, rq); s != nil {
		v, err := experimentview.LoadDetail(r.Context(), h.m.Experiments, rq.org, s.ID, r.PathValue("eid"))
		if err != nil {
			h.fail(w, r, rq, err)
			return
		}
		h.render(w, r, rq, http.StatusOK, "experiment", page{Title: v.Experiment.Name + " · " + s.Name, Section: "sites", Tab: "experiments", Site: s, Data: v})
	}
}

// experimentAction starts, stops or promotes an experiment (the form's CSRF token checked as
// every console form's), then shows its page with the outcome.
func (h *handler) experimentAction(w http.ResponseWriter, r *http.Request, rq *request) {
	site, id := r.PathValue("id"), r.PathValue("eid")
	to := "/sites/" + site + "/experiments/" + id
	msg, err := experimentview.Action(r.Context(), h.m.Experiments, rq.org, site, id, r.PathValue("action"), r.PostFormValue("key"))
	if err != nil {
		_, m := h.message(r, err)
		h.redirect(w, r, rq, to, "Not done: "+m)
		return
	}
	h.redirect(w, r, rq, to, msg)
}
