package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// membersView is the members page's data.
type membersView struct {
	Members []*identity.Membership
	Roles   []core.Role
	// Link is an invitation just made, shown once to copy; For names its email; Mail says
	// whether it was emailed: "sent", "failed", or "" when no mail server is configured.
	Link, For, Mail string
	Me              string
	// SSO is the organization's single sign-on, for owners; nil for others.
	SSO *ssoView
}

func (h *handler) membersPage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showMembers(w, r, rq, http.StatusOK, page{}, membersView{})
}

// showMembers renders the members page; v carries an invitation just made, if any.
func (h *handler) showMembers(w http.ResponseWriter, r *http.Request, rq *request, status int, p page, v membersView) {
	ms, err := h.m.Members(r.Context(), rq.org)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	if v.SSO, err = h.ssoView(r, rq); err != nil {
		h.fail(w, r, rq, err)
		return
	}
	p.Title, p.Section = "Members", "members"
	v.Members, v.Roles, v.Me = ms, core.Roles(), rq.s.UserID
	p.Data = v
	h.render(w, r, rq, status, "members", p)
}

// invite makes an invitation link and, when a mail server is configured, emails it to the
// invitee. The link is shown to copy either way, so a mail that fails loses nothing.
func (h *handler) invite(w http.ResponseWriter, r *http.Request, rq *request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	role := core.Role(r.PostFormValue("role"))
	secret, err := h.m.Invite(r.Context(), rq.org, email, role)
	if err != nil {
		status, msg := h.message(r, err)
		h.showMembers(w, r, rq, status, page{Form: "invite", Error: msg, Values: r.PostForm}, membersView{})
		return
	}
	v := membersView{Link: h.baseURL(r) + "/invite/" + secret, For: email}
	flash := "Invitation made. No email was sent (this server has no mail settings): send this link to " + email + ". It works once, for 7 days."
	sent, err := h.m.MailInvitation(r.Context(), rq.org, email, role, v.Link)
	switch {
	case err != nil:
		h.log.ErrorContext(r.Context(), "could not email an invitation", "org", rq.org, "err", err)
		v.Mail = "failed"
		flash = "Invitation made, but the email to " + email + " could not be sent: send this link yourself. It works once, for 7 days."
	case sent:
		v.Mail = "sent"
		flash = "Invitation made and emailed to " + email + ". It works once, for 7 days."
	}
	h.showMembers(w, r, rq, http.StatusCreated, page{Flash: flash}, v)
}

func (h *handler) changeRole(w http.ResponseWriter, r *http.Request, rq *request) {
	if err := h.m.ChangeRole(r.Context(), rq.org, r.PathValue("uid"), core.Role(r.PostFormValue("role"))); err != nil {
		status, msg := h.message(r, err)
		h.showMembers(w, r, rq, status, page{Form: "member-" + r.PathValue("uid"), Error: msg}, membersView{})
		return
	}
	h.redirect(w, r, rq, "/members", "Role changed.")
}

// resetMemberTOTP turns a member's two-step sign-in off (owners, admins).
// member is the organization's member uid, for a confirmation page, when the person may act
// on members (perm); nil after answering otherwise.
func (h *handler) member(w http.ResponseWriter, r *http.Request, rq *request, perm core.Permission) *identity.Membership {
	if !rq.actor.Can(perm) {
		h.errorPage(w, r, rq, http.StatusForbidden, "Not allowed", "Your role does not allow this. Ask an owner of the organization.")
		return nil
	}
	ms, err := h.m.Members(r.Context(), rq.org)
	if err != nil {
		h.fail(w, r, rq, err)
		return nil
	}
	for _, m := range ms {
		if m.UserID == r.PathValue("uid") {
			return m
		}
	}
	h.errorPage(w, r, rq, http.StatusNotFound, "Not found", "There is no such member in this organization.")
	return nil
}

// confirmResetMemberTOTP asks before a member's second factor is reset.
func (h *handler) confirmResetMemberTOTP(w http.ResponseWriter, r *http.Request, rq *request) {
	m := h.member(w, r, rq, core.PermFactors)
	if m == nil {
		return
	}
	h.render(w, r, rq, http.StatusOK, "confirm", page{Title: "Reset two-step sign-in", Section: "members", Data: confirmation{
		Question: "Reset the two-step sign-in of " + m.Email + "?",
		Detail: "Their authenticator and recovery codes stop working, and their password alone signs them in until they set up a new authenticator. " +
			"Do this only when you are sure it is them asking (they lost their phone and their recovery codes).",
		Action: "/members/" + m.UserID + "/totp-reset", Button: "Reset two-step sign-in", Cancel: "/members",
	}})
}

// confirmRemoveMember asks before a member is removed.
func (h *handler) confirmRemoveMember(w http.ResponseWriter, r *http.Request, rq *request) {
	m := h.member(w, r, rq, core.PermMembers)
	if m == nil {
		return
	}
	q := "Remove " + m.Email + " from the organization?"
	if m.UserID == rq.s.UserID {
		q = "Leave the organization?"
	}
	h.render(w, r, rq, http.StatusOK, "confirm", page{Title: "Remove a member", Section: "members", Data: confirmation{
		Question: q,
		Detail:   "Their sessions in this organization end at once; what they changed stays, and the audit log keeps their name. An invitation brings them back.",
		Action:   "/members/" + m.UserID + "/remove", Button: "Remove the member", Cancel: "/members",
	}})
}

func (h *handler) resetMemberTOTP(w http.ResponseWriter, r *http.Request, rq *request) {
	if err := h.m.ResetMemberTOTP(r.Context(), rq.org, r.PathValue("uid")); err != nil {
		status, msg := h.message(r, err)
		h.showMembers(w, r, rq, status, page{Form: "member-" + r.PathValue("uid"), Error: msg}, membersView{})
		return
	}
	h.redirect(w, r, rq, "/members", "Two-step sign-in reset: the member signs in with their password and may set up a new authenticator.")
}

func (h *handler) removeMember(w http.ResponseWriter, r *http.Request, rq *request) {
	if err := h.m.RemoveMember(r.Context(), rq.org, r.PathValue("uid")); err != nil {
		status, msg := h.message(r, err)
		h.showMembers(w, r, rq, status, page{Form: "member-" + r.PathValue("uid"), Error: msg}, membersView{})
		return
	}
	if r.PathValue("uid") == rq.s.UserID {
		http.Redirect(w, r, "/sign-in?signed-out=1", http.StatusSeeOther)
		return
	}
	h.redirect(w, r, rq, "/members", "Member removed: their sessions have ended.")
}

// baseURL is the console's external address, for links.
func (h *handler) baseURL(r *http.Request) string {
	if h.cfg.PublicURL != "" {
		return strings.TrimSuffix(h.cfg.PublicURL, "/")
	}
	scheme := "http"
	if h.proxies.HTTPS(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// inviteView is the invitation (or password reset) page's data.
type inviteView struct {
	*identity.OneTimeToken
	// Path is the link's own path; SignInURL the sign-in that comes back to it.
	Path, SignInURL string
	// SignedInAs is the email of the person signed in ("" for nobody, or a key's session);
	// Match says it is the invited one, so that the page offers a one-click Join.
	SignedInAs string
	Match      bool
}

// invitePage shows an invitation (or the first owner's link). To someone not signed in it
// shows the same form whatever the email: a new account, or "sign in first" for a person who
// has one. To a person signed in as the invited email it shows a Join button; to one signed
// in as another email, how to change.
func (h *handler) invitePage(w http.ResponseWriter, r *http.Request) {
	t, err := h.m.Invitation(r.Context(), r.PathValue("token"))
	if err != nil {
		if s, _ := h.person(r); s != nil {
			// The first owner's link is used up by the account it made: its owner, signed in, goes on.
			http.Redirect(w, r, "/sites", http.StatusSeeOther)
			return
		}
		h.errorPage(w, r, nil, http.StatusNotFound, "Link not valid", sentence(core.ErrorMessage(err)))
		return
	}
	h.showInvite(w, r, t, http.StatusOK, "")
}

// person is the session of a person signed in (not a key's) and their email; nil when there
// is none.
func (h *handler) person(r *http.Request) (*session, string) {
	c, _ := r.Cookie(sessionCookie)
	if c == nil {
		return nil, ""
	}
	s := h.getSession(r.Context(), c.Value)
	if s == nil || s.UserID == "" {
		return nil, ""
	}
	ms, err := h.m.Memberships(r.Context(), s.UserID)
	if err != nil || len(ms) == 0 {
		return nil, ""
	}
	return s, ms[0].Email
}

func (h *handler) showInvite(w http.ResponseWriter, r *http.Request, t *identity.OneTimeToken, status int, msg string) {
	v := inviteView{OneTimeToken: t, Path: r.URL.Path}
	p := page{Title: "Join consentd", Error: msg, Values: r.PostForm, Data: &v}
	if t.Kind == identity.TokenReset {
		p.Title = "Choose a new password"
	} else {
		q := url.Values{"next": {r.URL.Path}}
		if t.Email != "" {
			q.Set("email", t.Email)
		}
		v.SignInURL = "/sign-in?" + q.Encode()
		if s, email := h.person(r); s != nil {
			// The Join and sign-out forms are the session's: its CSRF token.
			v.SignedInAs, v.Match, p.CSRF = email, t.Email == "" || email == t.Email, s.CSRF
			h.render(w, r, nil, status, "invite", p)
			return
		}
	}
	tok := randomToken()
	http.SetCookie(w, &http.Cookie{Name: preSessionToken, Value: tok, Path: "/", MaxAge: 3600,
		HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
	p.CSRF = tok
	h.render(w, r, nil, status, "invite", p)
}

// acceptInvite answers the invitation form. A person signed in as the invited email joins
// with one click (step=join). Anyone else gives a name and a password: for a new email the
// account is made and joined; for an email with an account nothing happens, and no password
// is checked. Both answer alike, a redirect to the sign-in that comes back to the link (where
// an account's holder joins), and both count as an attempt against the client address and
// the invited email, like a failed sign-in: the link is no faster a probe than the sign-in.
func (h *handler) acceptInvite(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("step") == "join" {
		h.joinInvite(w, r)
		return
	}
	addr := signInKey(h.proxies.ClientIP(r))
	if h.limited(w, r, addr) {
		return
	}
	token := r.PathValue("token")
	t, err := h.m.Invitation(r.Context(), token)
	if err != nil || t.Kind != identity.TokenInvite {
		h.signInFailed(r, addr)
		h.errorPage(w, r, nil, http.StatusNotFound, "Link not valid", "This link is not valid, was used already or has expired: ask for a new one.")
		return
	}
	if c, _ := r.Cookie(preSessionToken); c == nil || !tokenEqual(r.PostFormValue("csrf"), c.Value) {
		h.showInvite(w, r, t, http.StatusForbidden, "The form had expired. It has been reloaded: enter your details again.")
		return
	}
	email := t.Email
	if email == "" {
		email = r.PostFormValue("email")
	}
	keys := []string{addr}
	if strings.TrimSpace(email) != "" { // the first owner's link: the email typed, if any
		keys = append(keys, accountKey(email))
	}
	if h.limited(w, r, keys...) {
		return
	}
	h.signInFailed(r, keys...)
	email, err = h.m.AcceptInvitation(r.Context(), token, email, r.PostFormValue("name"), r.PostFormValue("password"))
	if err != nil {
		status, msg := h.message(r, err)
		h.showInvite(w, r, t, status, msg)
		return
	}
	q := url.Values{"invited": {"1"}, "email": {email}, "next": {r.URL.Path}}
	http.Redirect(w, r, "/sign-in?"+q.Encode(), http.StatusSeeOther)
}

// joinInvite accepts an invitation for the person signed in, with their session's CSRF
// token, and opens a session in the organization joined.
func (h *handler) joinInvite(w http.ResponseWriter, r *http.Request) {
	s, _ := h.person(r)
	if s == nil {
		h.errorPage(w, r, nil, http.StatusUnauthorized, "Signed out", "Your session has ended. Sign in again and open the invitation link again.")
		return
	}
	rq := &request{s: s, org: s.OrgID}
	if !h.checkCSRF(r, s.CSRF) {
		h.errorPage(w, r, rq, http.StatusForbidden, "Request refused",
			"This form was not sent from this console page (its security token is missing or stale). Reload the page and try again.")
		return
	}
	// The person signed in is the caller; they act in no organization yet.
	ctx := core.WithActor(r.Context(), &core.Actor{Kind: core.ActorUser, ID: s.UserID})
	org, err := h.m.JoinInvitation(ctx, r.PathValue("token"), s.UserID)
	if err != nil {
		if core.ErrorCode(err) == core.CodeForbidden {
			if t, terr := h.m.Invitation(r.Context(), r.PathValue("token")); terr == nil {
				status, msg := h.message(r, err)
				h.showInvite(w, r, t, status, msg)
				return
			}
		}
		status, msg := h.message(r, err)
		h.errorPage(w, r, nil, status, "Not joined", msg)
		return
	}
	r.PostForm.Set("next", "/sites")
	h.startSession(w, r, identity.SessionStart{OrgID: org, UserID: s.UserID, UserAgent: r.UserAgent()})
}

// resetPage and resetPassword set a new password with a one-time link from
// `consentd user reset-password`.
func (h *handler) resetPage(w http.ResponseWriter, r *http.Request) {
	t, err := h.m.Invitation(r.Context(), r.PathValue("token"))
	if err != nil || t.Kind != identity.TokenReset {
		h.errorPage(w, r, nil, http.StatusNotFound, "Link not valid", "This link is not valid, was used already or has expired: ask your operator for a new one.")
		return
	}
	h.showInvite(w, r, t, http.StatusOK, "")
}

// resetPassword sets the new password. A link that is not valid (a guess, a used or expired
// one) counts as a failed sign-in of the client address.
func (h *handler) resetPassword(w http.ResponseWriter, r *http.Request) {
	addr := signInKey(h.proxies.ClientIP(r))
	if h.limited(w, r, addr) {
		return
	}
	t, err := h.m.Invitation(r.Context(), r.PathValue("token"))
	if err != nil || t.Kind != identity.TokenReset {
		h.signInFailed(r, addr)
		h.errorPage(w, r, nil, http.StatusNotFound, "Link not valid", "This link is not valid, was used already or has expired: ask your operator for a new one.")
		return
	}
	if c, _ := r.Cookie(preSessionToken); c == nil || !tokenEqual(r.PostFormValue("csrf"), c.Value) {
		h.showInvite(w, r, t, http.StatusForbidden, "The form had expired. It has been reloaded: enter your new password again.")
		return
	}
	if _, err := h.m.ResetPassword(r.Context(), r.PathValue("token"), r.PostFormValue("password")); err != nil {
		status, msg := h.message(r, err)
		if status == http.StatusNotFound {
			h.signInFailed(r, addr)
		}
		h.showInvite(w, r, t, status, msg)
		return
	}
	http.Redirect(w, r, "/sign-in?reset=1", http.StatusSeeOther)
}

// switchOrg moves a member to another of their organizations, in a new session.
func (h *handler) switchOrg(w http.ResponseWriter, r *http.Request, rq *request) {
	org := r.PostFormValue("org")
	if rq.s.UserID == "" {
		h.errorPage(w, r, rq, http.StatusBadRequest, "Not a member", "A session opened with an API key stays in its organization.")
		return
	}
	if _, err := h.m.UserActor(r.Context(), rq.s.UserID, org); err != nil {
		h.fail(w, r, rq, core.Errorf(core.CodeNotFound, "you are not a member of that organization"))
		return
	}
	h.startSession(w, r, identity.SessionStart{OrgID: org, UserID: rq.s.UserID, UserAgent: r.UserAgent()})
}
