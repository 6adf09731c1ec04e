package console

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/watch"
)

// webhooksView is the webhooks page's data.
type webhooksView struct {
	Endpoints []webhookRow
	// Created is an endpoint just made, with its secret, shown this once.
	Created *event.WebhookEndpoint
	Secret  string
	// Events are the event types to choose from in the form.
	Events []eventChoice
}

// eventChoice is an event type's checkbox.
type eventChoice struct {
	Name    string
	Checked bool
}

// lastAttempt says how a delivery's last attempt ended: the HTTP status or the error.
func lastAttempt(d *event.WebhookDelivery) string {
	if len(d.Attempts) == 0 {
		return ""
	}
	a := d.Attempts[len(d.Attempts)-1]
	switch {
	case a.StatusCode != nil:
		return "HTTP " + strconv.Itoa(*a.StatusCode)
	case a.Error != nil:
		return *a.Error
	}
	return ""
}

// webhookRow is an endpoint with its latest deliveries.
type webhookRow struct {
	*event.WebhookEndpoint
	Deliveries []*event.WebhookDelivery
}

// recentDeliveries is how many deliveries the page shows per endpoint.
const recentDeliveries = 5

func (h *handler) webhooksPage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showWebhooks(w, r, rq, http.StatusOK, page{}, webhooksView{})
}

func (h *handler) showWebhooks(w http.ResponseWriter, r *http.Request, rq *request, status int, p page, v webhooksView) {
	es, err := h.m.Endpoints(r.Context(), rq.org)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	for _, e := range es {
		ds, _, err := h.m.Deliveries(r.Context(), rq.org, e.ID, 1, recentDeliveries)
		if err != nil {
			h.fail(w, r, rq, err)
			return
		}
		v.Endpoints = append(v.Endpoints, webhookRow{WebhookEndpoint: e, Deliveries: ds})
	}
	chosen := p.Values["events"]
	if p.Values == nil {
		chosen = []string{event.EventScanChanged}
	}
	for _, ev := range event.EventTypes() {
		v.Events = append(v.Events, eventChoice{Name: ev, Checked: slices.Contains(chosen, ev)})
	}
	p.Title, p.Section, p.Data = "Webhooks", "webhooks", v
	h.render(w, r, rq, status, "webhooks", p)
}

// createWebhook makes an endpoint and shows its signing secret once.
func (h *handler) createWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	u, desc := strings.TrimSpace(r.PostFormValue("url")), strings.TrimSpace(r.PostFormValue("description"))
	e, err := h.m.CreateEndpoint(r.Context(), rq.org, watch.WebhookInput{URL: &u, Description: &desc, Events: r.PostForm["events"]})
	if err != nil {
		status, msg := h.message(r, err)
		h.showWebhooks(w, r, rq, status, page{Form: "webhook", Error: msg, Values: r.PostForm}, webhooksView{})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	h.showWebhooks(w, r, rq, http.StatusCreated, page{Flash: "Endpoint created. Copy its signing secret now: it is not shown again."},
		webhooksView{Created: e, Secret: e.Secret})
}

// testWebhook queues a webhook.test delivery to the endpoint.
func (h *handler) testWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	if _, err := h.m.SendTest(r.Context(), rq.org, r.PathValue("wid")); err != nil {
		status, msg := h.message(r, err)
		h.showWebhooks(w, r, rq, status, page{Form: "webhook-" + r.PathValue("wid"), Error: msg}, webhooksView{})
		return
	}
	h.redirect(w, r, rq, "/webhooks", "Test event queued: its delivery shows below within a few seconds (reload the page).")
}

func (h *handler) confirmDeleteWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	e, err := h.m.Endpoint(r.Context(), rq.org, r.PathValue("wid"))
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	h.render(w, r, rq, http.StatusOK, "confirm", page{Title: "Delete a webhook endpoint", Section: "webhooks", Data: confirmation{
		Question: "Delete the webhook endpoint " + e.URL + "?",
		Detail:   "Its delivery log goes too, and deliveries not yet made are dropped. This cannot be undone.",
		Action:   "/webhooks/" + e.ID + "/delete", Button: "Delete the endpoint", Cancel: "/webhooks",
	}})
}

func (h *handler) deleteWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	if err := h.m.DeleteEndpoint(r.Context(), rq.org, r.PathValue("wid")); err != nil {
		h.fail(w, r, rq, err)
		return
	}
	h.redirect(w, r, rq, "/webhooks", "Endpoint deleted.")
}

// saveWatch sets a site's scan and verification schedules and its digest's recipients.
func (h *handler) saveWatch(w http.ResponseWriter, r *http.Request, rq *request) {
	scan, verify := r.PostFormValue("scanSchedule"), r.PostFormValue("verifySchedule")
	emails := []string{}
	for _, e := range strings.FieldsFunc(r.PostFormValue("digestEmails"), func(c rune) bool { return c == ',' || c == ' ' || c == '\n' || c == '\r' }) {
		emails = append(emails, e)
	}
	s, err := h.m.UpdateSite(r.Context(), rq.org, r.PathValue("id"), site.SiteInput{ScanSchedule: &scan, VerifySchedule: &verify, DigestEmails: emails})
	if err != nil {
		status, msg := h.message(r, err)
		h.showSite(w, r, rq, status, page{Form: "watch", Error: msg, Values: r.PostForm})
		return
	}
	msg := "Schedules and digest saved."
	switch {
	case len(emails) == 0:
		msg = "Schedules saved; no digest is sent (no recipient)."
	case h.m.DigestUseCases == nil || !h.m.Sends():
		msg = warnFlash + "Schedules saved. No digest email will be sent: this server has no mail settings (CONSENTD_SMTP_URL is not set). " +
			"The recipients are kept; the digest goes out once the operator sets it."
	}
	h.redirect(w, r, rq, "/sites/"+s.ID, msg)
}
