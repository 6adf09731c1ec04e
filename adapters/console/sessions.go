package console

import (
	"net/http"
	"time"

	"github.com/consentd/consentd/core/identity"
)

// sessionsView is the sessions page's data.
type sessionsView struct {
	Sessions []*identity.Session
	Current  string
	Now      time.Time
	// Member is a session of a member (not an API key); TOTP whether they have a second factor.
	Member, TOTP bool
}

// sessionsPage lists the person's sessions (everyone's for an owner), with a revoke button.
func (h *handler) sessionsPage(w http.ResponseWriter, r *http.Request, rq *request) {
	list, err := h.m.ListSessions(r.Context(), rq.org)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	v := sessionsView{Sessions: list, Current: rq.s.ID, Now: h.cfg.Now(), Member: rq.s.UserID != ""}
	if v.Member {
		if v.TOTP, err = h.m.TOTPEnabled(r.Context(), rq.s.UserID); err != nil {
			h.fail(w, r, rq, err)
			return
		}
	}
	h.render(w, r, rq, http.StatusOK, "sessions", page{Title: "Sessions", Section: "sessions", Data: v})
}

// revokeSession ends a session at once; ending one's own signs out.
func (h *handler) revokeSession(w http.ResponseWriter, r *http.Request, rq *request) {
	id := r.PathValue("sid")
	if err := h.m.RevokeSession(r.Context(), rq.org, id); err != nil {
		h.fail(w, r, rq, err)
		return
	}
	if id == rq.s.ID {
		http.Redirect(w, r, "/sign-in?signed-out=1", http.StatusSeeOther)
		return
	}
	h.redirect(w, r, rq, "/sessions", "Session ended.")
}
