package console

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// SSOProvider is an organization's OpenID provider (adapters/oidcsso.Provider).
type SSOProvider interface {
	OrgID() string
	Policy() identity.SSOPolicy
	AuthCodeURL(state, nonce string) string
	Exchange(ctx context.Context, code, nonce string) (identity.ExternalIdentity, error)
}

// SSOProviders find organizations' providers (adapters/oidcsso.Providers): the
// organization's own, else the deployment's.
type SSOProviders interface {
	// Provider returns the organization's provider, calling back to redirectURL; not_found
	// when it has none.
	Provider(ctx context.Context, orgID, redirectURL string) (SSOProvider, error)
	// Offered reports whether any organization has single sign-on.
	Offered(ctx context.Context) (bool, error)
}

// ssoCookie carries the state and nonce of a single sign-on between its start and the
// provider's callback. It is SameSite=Lax: the callback is a navigation from the provider.
const ssoCookie = "consentd_sso"

func (h *handler) ssoProvider(r *http.Request, org string) (SSOProvider, error) {
	if h.cfg.SSO == nil {
		return nil, core.Errorf(core.CodeNotFound, "this organization has no single sign-on")
	}
	return h.cfg.SSO.Provider(r.Context(), org, h.baseURL(r)+"/sso/callback")
}

// ssoFind is the sign-in page's single sign-on form: the person's work email, whose domain
// finds the organization whose single sign-on admits it (the allowed domains its owner set);
// or, as before, the organization's name or ID.
func (h *handler) ssoFind(w http.ResponseWriter, r *http.Request) {
	ref := strings.TrimSpace(r.URL.Query().Get("org"))
	if ref == "" || len(ref) > 320 {
		h.showSignIn(w, r, http.StatusBadRequest, "Enter your work email to sign in with single sign-on.")
		return
	}
	if strings.Contains(ref, "@") {
		id, err := h.m.SSOOrgForEmail(r.Context(), ref)
		switch core.ErrorCode(err) {
		case "":
			h.render(w, r, nil, http.StatusOK, "ssocontinue", page{Title: "Single sign-on", Data: "/sso/" + url.PathEscape(id) + "/start"})
		case core.CodeConflict:
			h.showSignIn(w, r, http.StatusBadRequest, "Several organizations sign in people of this domain: ask your administrator for your organization's sign-in link.")
		case core.CodeInvalid:
			h.showSignIn(w, r, http.StatusBadRequest, "This is not an email address: enter your work email.")
		case core.CodeNotFound:
			h.showSignIn(w, r, http.StatusNotFound, "No organization signs in people of this email's domain with single sign-on. Sign in with your password, or ask your administrator.")
		default:
			status, msg := h.message(r, err)
			h.showSignIn(w, r, status, msg)
		}
		return
	}
	org, err := h.m.FindOrganization(r.Context(), ref)
	if core.ErrorCode(err) == core.CodeConflict {
		h.showSignIn(w, r, http.StatusBadRequest, "Several organizations have this name: ask your administrator for your organization's sign-in link.")
		return
	}
	if err == nil {
		_, err = h.ssoProvider(r, org.ID)
	}
	if err != nil {
		// The same answer whether the organization does not exist or has no single sign-on.
		h.showSignIn(w, r, http.StatusNotFound, "No organization of that name has single sign-on.")
		return
	}
	// A page that moves on by itself rather than a redirect: the form's navigation may only
	// lead to the console (form-action 'self'), and the provider is elsewhere.
	h.render(w, r, nil, http.StatusOK, "ssocontinue", page{Title: "Single sign-on", Data: "/sso/" + url.PathEscape(org.ID) + "/start"})
}

// ssoStart sends the browser to the organization's provider.
func (h *handler) ssoStart(w http.ResponseWriter, r *http.Request) {
	p, err := h.ssoProvider(r, r.PathValue("org"))
	if core.IsNotFound(err) {
		h.showSignIn(w, r, http.StatusNotFound, "No organization of that name has single sign-on.")
		return
	}
	if err != nil {
		h.log.ErrorContext(r.Context(), "single sign-on could not start", "org", r.PathValue("org"), "err", err)
		status, msg := h.message(r, err)
		h.showSignIn(w, r, status, msg)
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
	p, err := h.ssoProvider(r, parts[2])
	if err != nil {
		status, msg := h.message(r, err)
		h.showSignIn(w, r, status, msg)
		return
	}
	id, err := p.Exchange(r.Context(), r.URL.Query().Get("code"), parts[1])
	if err == nil {
		var u *identity.User
		if u, err = h.m.SignInExternal(r.Context(), p.Policy(), id); err == nil {
			h.startSessionPage(w, r, identity.SessionStart{OrgID: p.OrgID(), UserID: u.ID, UserAgent: r.UserAgent()})
			return
		}
	}
	status, msg := h.message(r, err)
	h.showSignIn(w, r, status, msg)
}

// ssoView is the single sign-on section of the members page (owners).
type ssoView struct {
	// Config is the organization's own provider; nil when it has none.
	Config *identity.SSOConfig
	// Callback is the redirect URI to register at the provider; Link the organization's
	// direct sign-in link.
	Callback, Link string
	Roles          []core.Role
}

func (h *handler) ssoView(r *http.Request, rq *request) (*ssoView, error) {
	if !rq.actor.Can(core.PermMembers) {
		return nil, nil
	}
	c, err := h.m.SSOConfig(r.Context(), rq.org)
	if err != nil && !core.IsNotFound(err) {
		return nil, err
	}
	v := &ssoView{Config: c, Callback: h.baseURL(r) + "/sso/callback", Link: h.baseURL(r) + "/sso/" + rq.org + "/start"}
	for _, role := range core.Roles() {
		if role != core.RoleOwner {
			v.Roles = append(v.Roles, role)
		}
	}
	return v, nil
}

// saveSSO sets the organization's provider; an empty secret keeps the stored one.
func (h *handler) saveSSO(w http.ResponseWriter, r *http.Request, rq *request) {
	in := identity.SSOInput{Issuer: strings.TrimSpace(r.PostFormValue("issuer")), ClientID: r.PostFormValue("clientId"),
		DefaultRole: core.Role(r.PostFormValue("defaultRole"))}
	if s := r.PostFormValue("clientSecret"); s != "" {
		in.ClientSecret = &s
	}
	for _, d := range strings.FieldsFunc(r.PostFormValue("allowedDomains"), func(c rune) bool { return c == ',' || c == ' ' || c == '\n' || c == '\r' }) {
		in.AllowedDomains = append(in.AllowedDomains, d)
	}
	c, err := h.m.PutSSOConfig(r.Context(), rq.org, in)
	if err != nil {
		status, msg := h.message(r, err)
		h.showMembers(w, r, rq, status, page{Form: "sso", Error: msg, Values: r.PostForm}, membersView{})
		return
	}
	h.redirect(w, r, rq, "/members", h.checkSSO(r, rq, c))
}

// checkSSO is the notice after saving single sign-on: it says members can sign in only once
// the provider was found as a sign-in would find it (the issuer's discovery document fetched
// and understood, by go-oidc through the guarded client); otherwise the configuration is
// saved with a warning naming what failed.
func (h *handler) checkSSO(r *http.Request, rq *request, c *identity.SSOConfig) string {
	discovery := strings.TrimSuffix(c.Issuer, "/") + "/.well-known/openid-configuration"
	if h.cfg.SSO == nil {
		return warnFlash + "Single sign-on saved, but this server does not offer single sign-on: nobody can sign in through it."
	}
	_, err := h.cfg.SSO.Provider(r.Context(), rq.org, h.baseURL(r)+"/sso/callback")
	if err == nil {
		return "Single sign-on saved and checked: the provider's discovery document was read. Members of the allowed domains (" +
			strings.Join(c.AllowedDomains, ", ") + ") can now sign in through it."
	}
	h.log.WarnContext(r.Context(), "a saved single sign-on provider could not be discovered", "org", rq.org, "issuer", c.Issuer, "err", err)
	cause := err.Error()
	if u := errors.Unwrap(err); u != nil {
		cause = u.Error()
	}
	return warnFlash + "Single sign-on saved, but it does not work yet: the issuer's discovery document (" + discovery +
		") could not be fetched or understood (" + cause + "). Nobody can sign in through it until it can: check the issuer URL."
}

// confirmDeleteSSO asks before the organization's single sign-on is removed.
func (h *handler) confirmDeleteSSO(w http.ResponseWriter, r *http.Request, rq *request) {
	if !rq.actor.Can(core.PermMembers) {
		h.errorPage(w, r, rq, http.StatusForbidden, "Not allowed", "Your role does not allow this. Ask an owner of the organization.")
		return
	}
	c, err := h.m.SSOConfig(r.Context(), rq.org)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	h.render(w, r, rq, http.StatusOK, "confirm", page{Title: "Remove single sign-on", Section: "members", Data: confirmation{
		Question: "Remove single sign-on through " + c.Issuer + "?",
		Detail: "Nobody can sign in through the provider any more: members without a password of their own (most who joined by single sign-on) " +
			"cannot sign in until an owner sends them a password link. Their sessions running now continue.",
		Action: "/members/sso/delete", Button: "Remove single sign-on", Cancel: "/members",
	}})
}

func (h *handler) deleteSSO(w http.ResponseWriter, r *http.Request, rq *request) {
	if err := h.m.DeleteSSOConfig(r.Context(), rq.org); err != nil {
		status, msg := h.message(r, err)
		h.showMembers(w, r, rq, status, page{Form: "sso", Error: msg}, membersView{})
		return
	}
	h.redirect(w, r, rq, "/members", "Single sign-on removed.")
}
