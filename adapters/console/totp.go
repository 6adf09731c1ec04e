package console

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"image/png"
	"net/http"
	"net/url"
	"strings"

	"github.com/pquerna/otp"

	"github.com/consentd/consentd/core"
)

// totpView is the authenticator page's data.
type totpView struct {
	Enabled bool
	// Codes are recovery codes just made, shown this once; Left is how many unused codes the
	// member has; Recovered says they just signed in with one.
	Codes     []string
	Left      int
	Recovered bool
	Secret    string
	URI       string
	// QR is the otpauth URI as a PNG data: URL ("" when it could not be drawn).
	QR template.URL
}

// setupCookie keeps the secret of a two-step set-up in progress, so that the page shows the
// same secret (and QR code) at every load until the set-up is confirmed, or abandoned with
// "Start over" (or after an hour): a reload after scanning the code must not break it. It
// holds the member's ID and the secret, is HttpOnly, SameSite=Strict and only sent to
// /account/totp; the secret is the one the page shows the member anyway, and nothing is stored
// until a code of it confirms it.
const setupCookie = "consentd_totp_setup"

// totpPage shows a member their second factor: the secret being set up with its QR code to
// enable it (?new=1 starts over with a new one), or the form to turn it off.
func (h *handler) totpPage(w http.ResponseWriter, r *http.Request, rq *request) {
	if r.URL.Query().Get("new") != "" {
		h.setSetupSecret(w, r, "", "")
		http.Redirect(w, r, "/account/totp", http.StatusSeeOther)
		return
	}
	h.showTOTP(w, r, rq, http.StatusOK, "", "", nil)
}

// setupSecret is the secret of the member's set-up in progress in this browser ("" when none).
func setupSecret(r *http.Request, userID string) string {
	c, err := r.Cookie(setupCookie)
	if err != nil {
		return ""
	}
	id, secret, ok := strings.Cut(c.Value, ".")
	if !ok || id != userID {
		return ""
	}
	return secret
}

// setSetupSecret keeps secret as the member's set-up in progress ("" forgets it).
func (h *handler) setSetupSecret(w http.ResponseWriter, r *http.Request, userID, secret string) {
	c := &http.Cookie{Name: setupCookie, Path: "/account/totp", HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode}
	if secret == "" {
		c.MaxAge = -1
	} else {
		c.Value, c.MaxAge = userID+"."+secret, 3600
	}
	http.SetCookie(w, c)
}

func (h *handler) showTOTP(w http.ResponseWriter, r *http.Request, rq *request, status int, secret, msg string, codes []string) {
	if rq.s.UserID == "" {
		h.errorPage(w, r, rq, http.StatusForbidden, "Not allowed",
			"A session opened with an API key has no authenticator. Sign in with your email and password to set one up.")
		return
	}
	on, err := h.m.TOTPEnabled(r.Context(), rq.s.UserID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	v := totpView{Enabled: on, Codes: codes, Recovered: r.URL.Query().Get("recovered") != ""}
	if on {
		if v.Left, err = h.m.RecoveryCodesLeft(r.Context(), rq.s.UserID); err != nil {
			h.fail(w, r, rq, err)
			return
		}
	} else {
		if secret == "" {
			secret = setupSecret(r, rq.s.UserID)
		}
		setup, err := h.m.NewTOTP(r.Context(), rq.s.UserID, secret)
		if core.ErrorCode(err) == core.CodeInvalid && secret != "" {
			setup, err = h.m.NewTOTP(r.Context(), rq.s.UserID, "") // a kept secret that no longer reads: a new one
		}
		if err != nil {
			h.fail(w, r, rq, err)
			return
		}
		v.Secret, v.URI, v.QR = setup.Secret, setup.URI, qrDataURL(setup.URI)
		h.setSetupSecret(w, r, rq.s.UserID, setup.Secret)
	}
	p := page{Title: "Authenticator", Section: "account", Form: "totp", Error: msg, Data: v, Values: url.Values{}}
	if codes != nil {
		p.Flash = "Two-step sign-in is on: after your password, the console asks for your authenticator's code. Save your recovery codes now."
	}
	h.render(w, r, rq, status, "totp", p)
}

// qrDataURL draws the otpauth URI as a QR code with the TOTP library (its pure-Go barcode
// dependency), for the console's img-src 'self' data: policy.
func qrDataURL(uri string) template.URL {
	key, err := otp.NewKeyFromURL(uri)
	if err != nil {
		return ""
	}
	img, err := key.Image(240, 240)
	if err != nil {
		return ""
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return ""
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))
}

// enableTOTP turns the second factor on once the code of the shown secret is right.
func (h *handler) enableTOTP(w http.ResponseWriter, r *http.Request, rq *request) {
	secret := r.PostFormValue("secret")
	keys, ok := h.codeLimit(w, r, rq, secret)
	if !ok {
		return
	}
	codes, err := h.m.EnableTOTP(r.Context(), rq.s.UserID, secret, r.PostFormValue("code"))
	if h.totpRefused(w, r, rq, secret, err, keys) {
		return
	}
	h.setSetupSecret(w, r, "", "") // confirmed: the set-up is over
	h.showCodes(w, r, rq, codes)
}

// codeLimit applies the sign-in limit to a form that takes an authenticator code, for the
// client address and the member's account: it answers 429 (ok false) when one of them must
// wait, and returns the keys a wrong code counts against. A session of an API key has no
// authenticator (showTOTP says so).
func (h *handler) codeLimit(w http.ResponseWriter, r *http.Request, rq *request, secret string) ([]string, bool) {
	if rq.s.UserID == "" {
		h.showTOTP(w, r, rq, http.StatusForbidden, "", "", nil)
		return nil, false
	}
	keys := []string{signInKey(h.proxies.ClientIP(r))}
	ms, err := h.m.Memberships(r.Context(), rq.s.UserID)
	if err != nil {
		h.fail(w, r, rq, err)
		return nil, false
	}
	if len(ms) > 0 {
		keys = append(keys, accountKey(ms[0].Email))
	}
	wait, err := h.retryAfter(r, keys...)
	if err != nil {
		h.fail(w, r, rq, err)
		return nil, false
	}
	if wait > 0 {
		h.showTOTP(w, r, rq, http.StatusTooManyRequests, secret, tooMany(w, wait), nil)
		return nil, false
	}
	return keys, true
}

// totpRefused answers a refused code (the page again, with the message and the secret being
// set up, if any; the failure counted against keys) or another error, and reports whether it
// answered.
func (h *handler) totpRefused(w http.ResponseWriter, r *http.Request, rq *request, secret string, err error, keys []string) bool {
	if core.ErrorCode(err) == core.CodeInvalid {
		h.signInFailed(r, keys...)
		_, msg := h.message(r, err)
		h.showTOTP(w, r, rq, http.StatusBadRequest, secret, msg, nil)
		return true
	}
	if err != nil {
		h.fail(w, r, rq, err)
		return true
	}
	return false
}

// showCodes shows new recovery codes, on this answer only: they are stored hashed.
func (h *handler) showCodes(w http.ResponseWriter, r *http.Request, rq *request, codes []string) {
	w.Header().Set("Cache-Control", "no-store")
	h.showTOTP(w, r, rq, http.StatusOK, "", "", codes)
}

// newRecoveryCodes replaces the member's recovery codes, with a current code.
func (h *handler) newRecoveryCodes(w http.ResponseWriter, r *http.Request, rq *request) {
	keys, ok := h.codeLimit(w, r, rq, "")
	if !ok {
		return
	}
	codes, err := h.m.NewRecoveryCodes(r.Context(), rq.s.UserID, r.PostFormValue("code"))
	if h.totpRefused(w, r, rq, "", err, keys) {
		return
	}
	h.showCodes(w, r, rq, codes)
}

// disableTOTP turns the second factor off with a current code.
func (h *handler) disableTOTP(w http.ResponseWriter, r *http.Request, rq *request) {
	keys, ok := h.codeLimit(w, r, rq, "")
	if !ok {
		return
	}
	if h.totpRefused(w, r, rq, "", h.m.DisableTOTP(r.Context(), rq.s.UserID, r.PostFormValue("code")), keys) {
		return
	}
	h.redirect(w, r, rq, "/sessions", "Two-step sign-in is off: your password alone signs you in.")
}
