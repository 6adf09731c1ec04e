package console

import (
	"context"
	"crypto/subtle"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// Cookie names. The session cookie is HttpOnly, SameSite=Strict, Secure on HTTPS; the
// pre-session cookie carries the sign-in form's CSRF token (login CSRF).
const (
	sessionCookie   = "consentd_session"
	preSessionToken = "consentd_signin"
	// codeCookie holds a password sign-in waiting for its authenticator code (no session).
	codeCookie = "consentd_code"
)

// session is a signed-in person, kept in the store by core (core.Sessions): the cookie holds
// a random token, the store its SHA-256 with the organization, the member or API key, the
// CSRF token and the times. Sessions survive restarts and work across serve processes.
type session = identity.Session

// SessionUseCases keep console sessions and the sign-in limit in the store.
type SessionUseCases interface {
	StartSession(ctx context.Context, in identity.SessionStart, ttl time.Duration) (string, *identity.Session, error)
	ResumeSession(ctx context.Context, token string, idle time.Duration) (*identity.Session, error)
	EndSession(ctx context.Context, token string) error
	ListSessions(ctx context.Context, orgID string) ([]*identity.Session, error)
	RevokeSession(ctx context.Context, orgID, id string) error
	MoveSessionKey(ctx context.Context, id, keyID string) error
	SetFlash(ctx context.Context, id, msg string) error
	TakeFlash(ctx context.Context, s *identity.Session) string
	SignInRetryAfter(ctx context.Context, key string, max int, window time.Duration) (time.Duration, error)
	SignInFailed(ctx context.Context, key string, window time.Duration) error
}

func randomToken() string { return identity.NewSessionToken() }

// getSession returns the live session of the cookie value token, or nil (a store error is
// logged and treated as signed out).
func (h *handler) getSession(ctx context.Context, token string) *session {
	s, _ := h.resumeSession(ctx, token)
	return s
}

// resumeSession is getSession that also returns why a session could not be read when the
// reason is no unknown or expired session (the store is unavailable, say): a page then says
// so instead of sending the person to sign in again.
func (h *handler) resumeSession(ctx context.Context, token string) (*session, error) {
	if token == "" {
		return nil, nil
	}
	s, err := h.m.ResumeSession(ctx, token, h.cfg.IdleTimeout)
	if err != nil {
		if core.ErrorCode(err) == core.CodeUnauthorized {
			return nil, nil
		}
		if !core.IsUnavailable(err) {
			h.log.ErrorContext(ctx, "could not read a console session", "err", err)
		}
		return nil, err
	}
	return s, nil
}

// tokenEqual compares two tokens in constant time; an empty token never matches.
func tokenEqual(a, b string) bool {
	return a != "" && b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// signInKey is what the sign-in limit counts failures under: a client address.
func signInKey(addr string) string { return "addr:" + addr }
