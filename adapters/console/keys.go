package console

import (
	"net/http"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// keysView is the API keys page's data.
type keysView struct {
	Keys    []*identity.APIKey
	Current string // the key of this session
	// Secret is a key just created or rotated, shown once; Of names it.
	Secret string
	Of     string
	Graces []grace
	Now    time.Time
	Roles  []core.Role
}

type grace struct {
	Value string
	Label string
}

var graces = []grace{{"0", "at once"}, {"1h", "in 1 hour"}, {"24h", "in 24 hours"}, {"168h", "in 7 days"}}

func (h *handler) keysPage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showKeys(w, r, rq, http.StatusOK, page{}, "", "")
}

func (h *handler) showKeys(w http.ResponseWriter, r *http.Request, rq *request, status int, p page, secret, of string) {
	keys, err := h.m.APIKeys(r.Context(), rq.org)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	p.Title, p.Section = "API keys", "keys"
	p.Data = keysView{Keys: keys, Current: rq.s.KeyID, Secret: secret, Of: of, Graces: graces, Now: h.cfg.Now(), Roles: core.Roles()}
	h.render(w, r, rq, status, "keys", p)
}

func (h *handler) createKey(w http.ResponseWriter, r *http.Request, rq *request) {
	k, secret, err := h.m.IssueAPIKey(r.Context(), rq.org, identity.APIKeyInput{
		Name: strings.TrimSpace(r.PostFormValue("name")), Role: core.Role(r.PostFormValue("role"))})
	if err != nil {
		status, msg := h.message(r, err)
		h.showKeys(w, r, rq, status, page{Form: "create", Error: msg, Values: r.PostForm}, "", "")
		return
	}
	h.showKeys(w, r, rq, http.StatusCreated, page{Flash: "Key created. Copy it now: it is shown only this once."}, secret, k.ID)
}

func (h *handler) rotateKey(w http.ResponseWriter, r *http.Request, rq *request) {
	g, err := time.ParseDuration(r.PostFormValue("grace"))
	if r.PostFormValue("grace") == "0" {
		g, err = 0, nil
	}
	if err != nil {
		h.showKeys(w, r, rq, http.StatusBadRequest, page{Form: "rotate-" + r.PathValue("kid"), Error: "Choose when the old key stops working."}, "", "")
		return
	}
	nk, secret, _, err := h.m.RotateAPIKey(r.Context(), rq.org, r.PathValue("kid"), &g)
	if err != nil {
		status, msg := h.message(r, err)
		h.showKeys(w, r, rq, status, page{Form: "rotate-" + r.PathValue("kid"), Error: msg}, "", "")
		return
	}
	msg := "Key rotated. Copy the new key now: it is shown only this once. The old key stops working " + graceLabel(r.PostFormValue("grace")) + "."
	if r.PathValue("kid") == rq.s.KeyID {
		// This session now stands on the successor.
		if err := h.m.MoveSessionKey(r.Context(), rq.s.ID, nk.ID); err != nil {
			h.fail(w, r, rq, err)
			return
		}
		rq.s.KeyID = nk.ID
	}
	h.showKeys(w, r, rq, http.StatusCreated, page{Flash: msg}, secret, nk.ID)
}

func graceLabel(v string) string {
	for _, g := range graces {
		if g.Value == v {
			return g.Label
		}
	}
	return v
}

func (h *handler) findKey(w http.ResponseWriter, r *http.Request, rq *request) *identity.APIKey {
	keys, err := h.m.APIKeys(r.Context(), rq.org)
	if err != nil {
		h.fail(w, r, rq, err)
		return nil
	}
	for _, k := range keys {
		if k.ID == r.PathValue("kid") {
			return k
		}
	}
	h.errorPage(w, r, rq, http.StatusNotFound, "Key not found", "This API key no longer exists. Go back to the API keys.")
	return nil
}

func (h *handler) confirmRevokeKey(w http.ResponseWriter, r *http.Request, rq *request) {
	k := h.findKey(w, r, rq)
	if k == nil {
		return
	}
	detail := "Programs using it are refused from their next request. This cannot be undone."
	if k.ID == rq.s.KeyID {
		detail = "You signed in with this key: revoking it signs you out. " + detail
	}
	name := k.Name
	if name == "" {
		name = k.Prefix + "…"
	}
	h.render(w, r, rq, http.StatusOK, "confirm", page{Title: "Revoke " + name, Section: "keys", Data: confirmation{
		Question: "Revoke the API key “" + name + "”?", Detail: detail,
		Action: "/keys/" + k.ID + "/revoke", Button: "Revoke the key", Cancel: "/keys",
	}})
}

func (h *handler) revokeKey(w http.ResponseWriter, r *http.Request, rq *request) {
	if err := h.m.RevokeAPIKey(r.Context(), rq.org, r.PathValue("kid")); err != nil {
		h.fail(w, r, rq, err)
		return
	}
	h.redirect(w, r, rq, "/keys", "Key revoked.")
}
