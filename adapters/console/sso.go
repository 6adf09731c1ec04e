package console

import (
	"context"
	"net/http"
	"strings"

	"github.com/consentd/consentd/core"
)

// SSOProvider is an organization's OpenID provider (adapters/oidcsso.Provider).
type SSOProvider interface {
	OrgID() string
	Policy() core.SSOPolicy
	AuthCodeURL(state, nonce string) string
	Exchange(ctx context.Context, code, nonce string) (core.ExternalIdentity, error)
}

// ssoCookie carries the state and nonce of a single sign-on between its start and the
// provider's callback. It is SameSite=Lax: the callback is a navigation from the provider.
const ssoCookie = "consentd_sso"

func (h *handler) ssoProvider(org string) SSOProvider {
	for _, p := range h.cfg.SSO {
		if p.OrgID() == org {
			return p
		}
	}
	return nil
}

// ssoStart sends the browser to the organization's provider.
func (h *handler) ssoStart(w http.ResponseWriter, r *http.Request) {
	p := h.ssoProvider(r.PathValue("org"))
	if p == nil {
		h.errorPage(w, r, nil, http.StatusNotFound, "Not found", "This organization has no single sign-on.")
		return
	}
	state, nonce := randomToken(), randomToken()
	http.SetCookie(w, &http.Cookie{Name: ssoCookie, Value: state + "." + nonce + "." + p.OrgID(), Path: "/sso", MaxAge: 600,
		HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, p.AuthCodeURL(state, nonce), http.StatusFound)
}

// ssoCallback verifies the provider's answer, lets core decide whether the person may join,
// and opens a session.
func (h *handler) ssoCallback(w http.ResponseWriter, r *http.Request) {
	c, _ := r.Cookie(ssoCookie)
	http.SetCookie(w, &http.Cookie{Name: ssoCookie, Value: "", Path: "/sso", MaxAge: -1, HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteLaxMode})
	var parts []string
	if c != nil {
		parts = strings.SplitN(c.Value, ".", 3)
	}
	if len(parts) != 3 || !tokenEqual(parts[0], r.URL.Query().Get("state")) {
		h.showSignIn(w, r, http.StatusBadRequest, "The single sign-on did not come back from the sign-in it started. Try again.")
		return
	}
	p := h.ssoProvider(parts[2])
	if p == nil {
		h.showSignIn(w, r, http.StatusBadRequest, "This organization has no single sign-on.")
		return
	}
	id, err := p.Exchange(r.Context(), r.URL.Query().Get("code"), parts[1])
	if err == nil {
		var u *core.User
		if u, err = h.m.SignInExternal(r.Context(), p.Policy(), id); err == nil {
			h.startSessionPage(w, r, core.SessionStart{OrgID: p.OrgID(), UserID: u.ID, UserAgent: r.UserAgent()})
			return
		}
	}
	status, msg := h.message(r, err)
	h.showSignIn(w, r, status, msg)
}

func (h *handler) ssoOrgs() []string {
	var out []string
	for _, p := range h.cfg.SSO {
		out = append(out, p.OrgID())
	}
	return out
}
