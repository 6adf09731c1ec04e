package console

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// signInPage shows the sign-in form with a fresh pre-session token (against login CSRF).
func (h *handler) signInPage(w http.ResponseWriter, r *http.Request) {
	if c, _ := r.Cookie(sessionCookie); c != nil && h.getSession(r.Context(), c.Value) != nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	h.showSignIn(w, r, http.StatusOK, "")
}

func (h *handler) showSignIn(w http.ResponseWriter, r *http.Request, status int, msg string) {
	tok := randomToken()
	http.SetCookie(w, &http.Cookie{Name: preSessionToken, Value: tok, Path: "/sign-in", MaxAge: 3600,
		HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
	next, email := r.URL.Query().Get("next"), r.URL.Query().Get("email")
	if r.Method == http.MethodPost {
		next, email = r.PostFormValue("next"), r.PostFormValue("email")
	}
	p := page{Title: "Sign in", CSRF: tok, Form: "signin", Error: msg, Values: url.Values{"next": {safeNext(next)}, "email": {email}}}
	if r.URL.Query().Get("invited") != "" && email != "" && msg == "" {
		// The answer of an invitation form, the same whether the email had an account or not.
		p.Flash = "To join, sign in as " + email + ": with the password you just chose, or with your account's own password if you had an account already. The invitation then asks for one click."
	}
	h.render(w, r, nil, status, "signin", p)
}

// signIn exchanges an API key for a session.
func (h *handler) signIn(w http.ResponseWriter, r *http.Request) {
	addr := signInKey(h.proxies.ClientIP(r))
	wait, err := h.m.SignInRetryAfter(r.Context(), addr, h.cfg.SignInFailures, h.cfg.SignInWindow)
	if err != nil {
		status, msg := h.message(r, err)
		h.showSignIn(w, r, status, msg)
		return
	}
	if wait > 0 {
		mins := int(math.Ceil(wait.Minutes()))
		w.Header().Set("Retry-After", fmt.Sprint(int(math.Ceil(wait.Seconds()))))
		h.showSignIn(w, r, http.StatusTooManyRequests,
			fmt.Sprintf("Too many failed sign-ins from your address. Wait %s and try again.", textfmt.Plural(mins, "minute", "minutes")))
		return
	}
	c, _ := r.Cookie(preSessionToken)
	if c == nil || !tokenEqual(r.PostFormValue("csrf"), c.Value) {
		h.showSignIn(w, r, http.StatusForbidden, "The sign-in form had expired. It has been reloaded: enter your key again.")
		return
	}
	if r.PostFormValue("step") == "code" {
		h.signInWithCode(w, r, addr)
		return
	}
	if r.PostFormValue("email") != "" {
		h.signInWithPassword(w, r, addr)
		return
	}
	key := strings.TrimSpace(r.PostFormValue("key"))
	if key == "" {
		h.showSignIn(w, r, http.StatusBadRequest, "Enter an API key.")
		return
	}
	actor, err := h.m.AuthenticateKey(r.Context(), key)
	if err != nil {
		status, msg := h.message(r, err)
		if status == http.StatusUnauthorized {
			h.signInFailed(r, addr)
			msg = "This API key is not valid. Check that you pasted all of it; keys are created with 'consentd apikey create'."
		}
		h.showSignIn(w, r, status, msg)
		return
	}
	h.startSession(w, r, identity.SessionStart{OrgID: actor.OrgID, KeyID: actor.ID, UserAgent: r.UserAgent()})
}

// startSession opens a session and sets its cookie, ending the session the browser had (a new
// session ID at every sign-in: no fixation), and sends the person on.
func (h *handler) startSession(w http.ResponseWriter, r *http.Request, in identity.SessionStart) {
	if old, _ := r.Cookie(sessionCookie); old != nil {
		if err := h.m.EndSession(r.Context(), old.Value); err != nil {
			h.log.ErrorContext(r.Context(), "could not end the previous session", "err", err)
		}
	}
	if !h.openSession(w, r, in) {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: preSessionToken, Value: "", Path: "/sign-in", MaxAge: -1,
		HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

// openSession starts a session for in and sets its cookie; on failure it answers with the
// sign-in page and reports false.
func (h *handler) openSession(w http.ResponseWriter, r *http.Request, in identity.SessionStart) bool {
	id, _, err := h.m.StartSession(r.Context(), in, h.cfg.SessionTTL)
	if err != nil {
		status, msg := h.message(r, err)
		h.showSignIn(w, r, status, msg)
		return false
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", MaxAge: int(h.cfg.SessionTTL.Seconds()),
		HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
	return true
}

// startSessionPage opens a session like startSession but answers with a page that moves on
// by itself: after a navigation from another site (the identity provider), a browser
// withholds SameSite=Strict cookies from redirects, not from the page's own navigation.
func (h *handler) startSessionPage(w http.ResponseWriter, r *http.Request, in identity.SessionStart) {
	if !h.openSession(w, r, in) {
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/sites"><title>Signed in · consentd</title></head><body><p><a href="/sites">Signed in: continue to your sites</a></p></body></html>`))
}

// signInWithPassword signs a member in with their email and password; failures count
// against the client address and the account.
func (h *handler) signInWithPassword(w http.ResponseWriter, r *http.Request, addr string) {
	email := strings.ToLower(strings.TrimSpace(r.PostFormValue("email")))
	account := accountKey(email)
	wait, err := h.m.SignInRetryAfter(r.Context(), account, h.cfg.SignInFailures, h.cfg.SignInWindow)
	if err == nil && wait > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int(math.Ceil(wait.Seconds()))))
		h.showSignIn(w, r, http.StatusTooManyRequests, fmt.Sprintf("Too many failed sign-ins for this account. Wait %s and try again.",
			textfmt.Plural(int(math.Ceil(wait.Minutes())), "minute", "minutes")))
		return
	}
	res, err := h.m.SignIn(r.Context(), email, r.PostFormValue("password"))
	if err != nil {
		status, msg := h.message(r, err)
		if status == http.StatusUnauthorized {
			h.signInFailed(r, addr, account)
		}
		h.showSignIn(w, r, status, msg)
		return
	}
	if res.CodeToken != "" {
		// No session yet: the code step holds the sign-in in its own short cookie.
		http.SetCookie(w, &http.Cookie{Name: codeCookie, Value: res.CodeToken, Path: "/sign-in", MaxAge: int(identity.TOTPSignInTTL.Seconds()),
			HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
		h.showCodeStep(w, r, http.StatusOK, "")
		return
	}
	h.startSession(w, r, identity.SessionStart{OrgID: res.Memberships[0].OrgID, UserID: res.User.ID, UserAgent: r.UserAgent()})
}

// showCodeStep asks for the authenticator's code, with a fresh pre-session token.
func (h *handler) showCodeStep(w http.ResponseWriter, r *http.Request, status int, msg string) {
	tok := randomToken()
	http.SetCookie(w, &http.Cookie{Name: preSessionToken, Value: tok, Path: "/sign-in", MaxAge: 3600,
		HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
	h.render(w, r, nil, status, "signincode", page{Title: "Enter your code", CSRF: tok, Form: "code", Error: msg,
		Values: url.Values{"next": {safeNext(r.PostFormValue("next"))}}})
}

// signInWithCode is the second step of a password sign-in with an authenticator: a wrong
// code counts against the client address and the account like a wrong password.
func (h *handler) signInWithCode(w http.ResponseWriter, r *http.Request, addr string) {
	c, _ := r.Cookie(codeCookie)
	token := ""
	if c != nil {
		token = c.Value
	}
	email, err := h.m.CodeSignInEmail(r.Context(), token)
	if err != nil {
		status, msg := h.message(r, err)
		h.showSignIn(w, r, status, msg)
		return
	}
	account := accountKey(email)
	wait, err := h.m.SignInRetryAfter(r.Context(), account, h.cfg.SignInFailures, h.cfg.SignInWindow)
	if err == nil && wait > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int(math.Ceil(wait.Seconds()))))
		h.showSignIn(w, r, http.StatusTooManyRequests, fmt.Sprintf("Too many failed sign-ins for this account. Wait %s and try again.",
			textfmt.Plural(int(math.Ceil(wait.Minutes())), "minute", "minutes")))
		return
	}
	code := strings.TrimSpace(r.PostFormValue("code"))
	if code == "" {
		h.showCodeStep(w, r, http.StatusBadRequest, "Enter the 6-digit code your authenticator app shows, or a recovery code.")
		return
	}
	res, err := h.m.SignInCode(r.Context(), token, code)
	if err != nil {
		status, msg := h.message(r, err)
		if status == http.StatusUnauthorized {
			h.signInFailed(r, addr, account)
		}
		h.showCodeStep(w, r, status, msg)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: codeCookie, Value: "", Path: "/sign-in", MaxAge: -1,
		HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
	if res.RecoveryCodesLeft != nil {
		// A recovery code was spent: the authenticator page says how many are left and
		// offers new ones.
		r.PostForm.Set("next", "/account/totp?recovered=1")
	}
	h.startSession(w, r, identity.SessionStart{OrgID: res.Memberships[0].OrgID, UserID: res.User.ID, UserAgent: r.UserAgent()})
}

// signOut ends the session (with its CSRF token: a cross-site page cannot sign a person out).
func (h *handler) signOut(w http.ResponseWriter, r *http.Request) {
	c, _ := r.Cookie(sessionCookie)
	if c != nil {
		if s := h.getSession(r.Context(), c.Value); s != nil {
			if !h.checkCSRF(r, s.CSRF) {
				h.errorPage(w, r, &request{s: s, id: c.Value, org: s.OrgID}, http.StatusForbidden, "Request refused",
					"This form was not sent from this console page. Reload the page and try again.")
				return
			}
			if err := h.m.EndSession(r.Context(), c.Value); err != nil {
				h.fail(w, r, nil, err)
				return
			}
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
	to := "/sign-in?signed-out=1"
	if next := r.PostFormValue("next"); next != "" {
		to = safeNext(next) // the invitation page's "sign in as the invited email"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// keyActor returns who the session acts as: its API key's role and sites. A revoked key, or
// a rotated one past its grace period, ends the sessions opened with it (ok false). Without
// the keys use cases the session acts as an owner of its organization.
func (h *handler) keyActor(r *http.Request, s *session) (*core.Actor, bool) {
	if s.UserID != "" {
		// A member acts with their role in the session's organization; once removed, never.
		a, err := h.m.UserActor(r.Context(), s.UserID, s.OrgID)
		if err != nil {
			if core.ErrorCode(err) != core.CodeUnauthorized {
				h.log.ErrorContext(r.Context(), "could not read a member's role", "err", err)
			}
			return nil, false
		}
		a.SessionID = s.ID
		return a, true
	}
	keyID := s.KeyID
	if keyID == "" {
		return &core.Actor{Kind: core.ActorKey, Name: "API key", OrgID: s.OrgID, Role: core.RoleOwner, SessionID: s.ID}, true
	}
	// Finding the session's own key is not a use of the keys permission: the session is the
	// credential.
	a, err := h.m.SessionKeyActor(r.Context(), s.OrgID, keyID)
	if core.ErrorCode(err) == core.CodeUnauthorized {
		return nil, false
	}
	if err != nil {
		// A store hiccup is reported by the page itself; act with the least rights meanwhile.
		return &core.Actor{Kind: core.ActorKey, ID: keyID, Name: "API key", OrgID: s.OrgID, Role: core.RoleViewer, SessionID: s.ID}, true
	}
	a.SessionID = s.ID
	return a, true
}

// safeNext keeps a post-sign-in redirect on this console.
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.ContainsAny(next, "\r\n") {
		return "/sites"
	}
	return next
}

// accountKey is what the sign-in limit counts an account's failures under: its email, as
// typed (lower case, trimmed), whether or not it has an account.
func accountKey(email string) string { return "account:" + strings.ToLower(strings.TrimSpace(email)) }

// retryAfter is how long the longest-waiting of keys must wait before its next attempt (zero
// when none must): the sign-in limit (core.SignInFailures within core.SignInWindow), which
// every form taking a password, a code or a one-time link applies. A store error is returned:
// the form then answers an error, never an attempt the limit could not count.
func (h *handler) retryAfter(r *http.Request, keys ...string) (time.Duration, error) {
	var wait time.Duration
	for _, k := range keys {
		d, err := h.m.SignInRetryAfter(r.Context(), k, h.cfg.SignInFailures, h.cfg.SignInWindow)
		if err != nil {
			return 0, err
		}
		wait = max(wait, d)
	}
	return wait, nil
}

// tooMany sets Retry-After and returns the sentence of a 429 after wait.
func tooMany(w http.ResponseWriter, wait time.Duration) string {
	w.Header().Set("Retry-After", fmt.Sprint(int(math.Ceil(wait.Seconds()))))
	return fmt.Sprintf("Too many failed attempts from your address or for this account. Wait %s and try again.",
		textfmt.Plural(int(math.Ceil(wait.Minutes())), "minute", "minutes"))
}

// limited answers 429 when one of keys must wait (an error when the limit cannot be read), and
// reports whether it answered.
func (h *handler) limited(w http.ResponseWriter, r *http.Request, keys ...string) bool {
	wait, err := h.retryAfter(r, keys...)
	if err != nil {
		h.fail(w, r, nil, err)
		return true
	}
	if wait <= 0 {
		return false
	}
	h.errorPage(w, r, nil, http.StatusTooManyRequests, "Too many attempts", tooMany(w, wait))
	return true
}

// signInFailed counts a failed sign-in (a wrong key, password or code) against each of keys:
// the client address, and the account where there is one.
func (h *handler) signInFailed(r *http.Request, keys ...string) {
	for _, k := range keys {
		if err := h.m.SignInFailed(r.Context(), k, h.cfg.SignInWindow); err != nil {
			h.log.ErrorContext(r.Context(), "could not record a failed sign-in", "err", err)
		}
	}
}
