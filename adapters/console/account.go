package console

import (
	"net/http"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// accountView is the account page's data: who is signed in, their organizations, whether
// they have a password and two-step sign-in, and how many sessions they have open.
type accountView struct {
	// Member is false for a session opened with an API key (which has no account).
	Member      bool
	Name, Email string
	Orgs        []*identity.Membership
	TOTP        bool
	Sessions    int
}

// accountPage is the signed-in person's account: profile, password, two-step sign-in and
// sessions, in one place.
func (h *handler) accountPage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showAccount(w, r, rq, http.StatusOK, page{})
}

func (h *handler) showAccount(w http.ResponseWriter, r *http.Request, rq *request, status int, p page) {
	v := accountView{Member: rq.s.UserID != ""}
	if v.Member {
		var err error
		if v.Orgs, err = h.m.Memberships(r.Context(), rq.s.UserID); err != nil {
			h.fail(w, r, rq, err)
			return
		}
		for _, m := range v.Orgs {
			if m.OrgID == rq.org {
				v.Name, v.Email = m.Name, m.Email
			}
		}
		if v.TOTP, err = h.m.TOTPEnabled(r.Context(), rq.s.UserID); err != nil {
			h.fail(w, r, rq, err)
			return
		}
		ss, err := h.m.ListSessions(r.Context(), rq.org)
		if err != nil {
			h.fail(w, r, rq, err)
			return
		}
		for _, s := range ss {
			if s.UserID == rq.s.UserID {
				v.Sessions++
			}
		}
	}
	p.Title, p.Section, p.Data = "Your account", "account", v
	h.render(w, r, rq, status, "account", p)
}

// changePassword sets the member's own password after checking the current one; a wrong
// current password counts toward the sign-in limit, as at sign-in.
func (h *handler) changePassword(w http.ResponseWriter, r *http.Request, rq *request) {
	keys, ok := h.codeLimit(w, r, rq, "")
	if !ok {
		return
	}
	err := h.m.ChangePassword(r.Context(), rq.s.UserID, r.PostFormValue("currentPassword"), r.PostFormValue("password"))
	if core.ErrorField(err) == "currentPassword" {
		h.signInFailed(r, keys...)
	}
	if err != nil {
		status, msg := h.message(r, err)
		h.showAccount(w, r, rq, status, page{Form: "password", Error: msg})
		return
	}
	h.redirect(w, r, rq, "/account", "Password changed: use the new one from your next sign-in. Your open sessions stay signed in.")
}
