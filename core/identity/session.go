package identity

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/consentd/consentd/core"
)

// Session is a person signed in to the console. The store keeps only the SHA-256 of the
// cookie's value (ID), so that a copy of the database opens no session.
type Session struct {
	// ID is the hex SHA-256 of the session's token (the cookie's value).
	ID    string `json:"id"`
	OrgID string `json:"organizationId"`
	// UserID is the member signed in, or KeyID the API key signed in with.
	UserID string `json:"userId,omitempty"`
	KeyID  string `json:"keyId,omitempty"`
	// CSRF is the synchronizer token of the session's forms.
	CSRF      string    `json:"-"`
	UserAgent string    `json:"userAgent"`
	CreatedAt time.Time `json:"createdAt"`
	// SeenAt is the last request, to SessionTouchInterval.
	SeenAt    time.Time `json:"seenAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Flash is a one-time notice for the next page.
	Flash string `json:"-"`
}

// SessionStore keeps console sessions and failed sign-ins, so that sessions survive restarts
// and work across several serve processes, and the sign-in limit counts all of them.
type SessionStore interface {
	// CreateSession stores a session; conflict when its ID exists.
	CreateSession(ctx context.Context, s *Session) error
	// Session finds a session by ID; not_found when there is none.
	Session(ctx context.Context, id string) (*Session, error)
	// Sessions lists an organization's sessions, newest first.
	Sessions(ctx context.Context, orgID string) ([]*Session, error)
	// TouchSession records a request at at; not_found when the session is gone.
	TouchSession(ctx context.Context, id string, at time.Time) error
	// SetSessionKey moves a session to another API key; not_found when it is gone.
	SetSessionKey(ctx context.Context, id, keyID string) error
	// SetSessionFlash sets the session's one-time notice; not_found when it is gone.
	SetSessionFlash(ctx context.Context, id, flash string) error
	// DeleteSession ends a session; not_found when there is none.
	DeleteSession(ctx context.Context, id string) error
	// DeleteUserSessions ends every session of a user in an organization and returns how many.
	DeleteUserSessions(ctx context.Context, orgID, userID string) (int, error)
	// DeleteExpiredSessions removes sessions that expired before at.
	DeleteExpiredSessions(ctx context.Context, at time.Time) error
	// AddSignInFailure records a failed sign-in of key (a client address or an account).
	AddSignInFailure(ctx context.Context, key string, at time.Time) error
	// SignInFailures returns key's failures after since, oldest first.
	SignInFailures(ctx context.Context, key string, since time.Time) ([]time.Time, error)
	// DeleteSignInFailures removes failures before at.
	DeleteSignInFailures(ctx context.Context, at time.Time) error
}

// Session rules.
const (
	// SessionTTL bounds a session's life; SessionIdle ends it after that long without a
	// request (the console may set shorter ones).
	SessionTTL  = 12 * time.Hour
	SessionIdle = time.Hour
	// SessionTouchInterval is how stale a session's SeenAt may be: a session making many
	// requests is written at most once per interval (the idle timeout is that precise).
	SessionTouchInterval = time.Minute
	// SignInFailures failures within SignInWindow make a client address or an account wait.
	SignInFailures = 5
	SignInWindow   = 15 * time.Minute
	// MaxUserAgent is how much of a browser's User-Agent a session keeps.
	MaxUserAgent = 300
)

// Sessions are the use cases of console sessions and the sign-in limit.
type Sessions struct {
	Store Store
	Clock core.Clock
	Log   *slog.Logger
	Audit core.Auditor
}

// NewSessionToken returns a fresh random session token (32 bytes, URL-safe base64).
func NewSessionToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// SessionID is the stored form of a session token.
func SessionID(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// SessionStart is who a new session is for.
type SessionStart struct {
	OrgID, UserID, KeyID, UserAgent string
}

// StartSession opens a session that lasts ttl at most and returns its token (for the
// cookie; only its hash is stored) with the session.
func (sessions *Sessions) StartSession(ctx context.Context, in SessionStart, ttl time.Duration) (string, *Session, error) {
	now := sessions.Clock.Now()
	ua := in.UserAgent
	if r := []rune(ua); len(r) > MaxUserAgent {
		ua = string(r[:MaxUserAgent])
	}
	if core.CheckText("userAgent", ua) != nil {
		ua = ""
	}
	token := NewSessionToken()
	s := &Session{ID: SessionID(token), OrgID: in.OrgID, UserID: in.UserID, KeyID: in.KeyID, CSRF: NewSessionToken(),
		UserAgent: ua, CreatedAt: now, SeenAt: now, ExpiresAt: now.Add(ttl)}
	if err := sessions.Store.DeleteExpiredSessions(ctx, now); err != nil {
		sessions.Log.WarnContext(ctx, "could not remove expired sessions", "error", err)
	}
	if err := sessions.Store.CreateSession(ctx, s); err != nil {
		return "", nil, err
	}
	return token, s, nil
}

// ResumeSession returns the live session of token; unauthorized when there is none, or when
// it expired (ExpiresAt) or was idle for idle (then it is removed).
func (sessions *Sessions) ResumeSession(ctx context.Context, token string, idle time.Duration) (*Session, error) {
	gone := core.Errorf(core.CodeUnauthorized, "session ended: sign in again")
	if token == "" {
		return nil, gone
	}
	id := SessionID(token)
	s, err := sessions.Store.Session(ctx, id)
	if core.IsNotFound(err) {
		return nil, gone
	}
	if err != nil {
		return nil, err
	}
	now := sessions.Clock.Now()
	if !now.Before(s.ExpiresAt) || !now.Before(s.SeenAt.Add(idle)) {
		if err := sessions.Store.DeleteSession(ctx, id); err != nil && !core.IsNotFound(err) {
			return nil, err
		}
		return nil, gone
	}
	if now.Sub(s.SeenAt) >= SessionTouchInterval {
		if err := sessions.Store.TouchSession(ctx, id, now); core.IsNotFound(err) {
			return nil, gone // ended meanwhile, on this node or another
		} else if err != nil {
			return nil, err
		}
		s.SeenAt = now
	}
	return s, nil
}

// EndSession ends the session of token (sign-out); ending one that is gone is no error.
func (sessions *Sessions) EndSession(ctx context.Context, token string) error {
	if err := sessions.Store.DeleteSession(ctx, SessionID(token)); err != nil && !core.IsNotFound(err) {
		return err
	}
	return nil
}

// ownSession reports whether s belongs to the caller: the same member or the same key.
func ownSession(a *core.Actor, s *Session) bool {
	if a == nil {
		return false
	}
	if a.Kind == core.ActorSystem {
		return true
	}
	return (a.Kind == core.ActorUser && s.UserID == a.ID) || (a.Kind == core.ActorKey && s.KeyID != "" && s.KeyID == a.ID)
}

// ListSessions lists the organization's live sessions, newest first: the caller's own, or
// everyone's for a caller who manages members.
func (sessions *Sessions) ListSessions(ctx context.Context, orgID string) ([]*Session, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, ""); err != nil {
		return nil, err
	}
	all, err := sessions.Store.Sessions(ctx, orgID)
	if err != nil {
		return nil, err
	}
	a, now := core.ActorOf(ctx), sessions.Clock.Now()
	out := []*Session{}
	for _, s := range all {
		if now.Before(s.ExpiresAt) && (ownSession(a, s) || a.Can(core.PermMembers)) {
			out = append(out, s)
		}
	}
	return out, nil
}

// RevokeSession ends a session of the organization by its ID: the caller's own, or anyone's
// for a caller who manages members.
func (sessions *Sessions) RevokeSession(ctx context.Context, orgID, id string) error {
	if err := core.Authorize(ctx, core.PermRead, orgID, ""); err != nil {
		return err
	}
	s, err := sessions.Store.Session(ctx, id)
	if core.IsNotFound(err) || (err == nil && s.OrgID != orgID) {
		return core.Errorf(core.CodeNotFound, "session not found")
	}
	if err != nil {
		return err
	}
	if a := core.ActorOf(ctx); !ownSession(a, s) {
		if err := core.Authorize(ctx, core.PermMembers, orgID, ""); err != nil {
			return err
		}
	}
	return sessions.Store.InTx(ctx, func(tx Store) error {
		if err := tx.DeleteSession(ctx, id); err != nil {
			return err
		}
		return sessions.Audit.Record(ctx, tx, orgID, "", core.AuditSessionRevoke, id[:12], map[string]any{"userAgent": s.UserAgent, "createdAt": s.CreatedAt}, nil)
	})
}

// MoveSessionKey puts a session on another API key (the successor of the key it was opened
// with, after a rotation).
func (sessions *Sessions) MoveSessionKey(ctx context.Context, id, keyID string) error {
	return sessions.Store.SetSessionKey(ctx, id, keyID)
}

// SetFlash leaves a one-time notice for the session's next page.
func (sessions *Sessions) SetFlash(ctx context.Context, id, msg string) error {
	return sessions.Store.SetSessionFlash(ctx, id, msg)
}

// TakeFlash returns the session's notice and clears it.
func (sessions *Sessions) TakeFlash(ctx context.Context, s *Session) string {
	if s.Flash == "" {
		return ""
	}
	f := s.Flash
	s.Flash = ""
	if err := sessions.Store.SetSessionFlash(ctx, s.ID, ""); err != nil && !core.IsNotFound(err) {
		sessions.Log.WarnContext(ctx, "could not clear a session's notice", "error", err)
	}
	return f
}

// SignInRetryAfter is how long key (a client address or an account) must wait before it may
// try to sign in again: zero while it has had fewer than max failures within window.
func (sessions *Sessions) SignInRetryAfter(ctx context.Context, key string, max int, window time.Duration) (time.Duration, error) {
	now := sessions.Clock.Now()
	fs, err := sessions.Store.SignInFailures(ctx, key, now.Add(-window))
	if err != nil || len(fs) < max {
		return 0, err
	}
	return fs[len(fs)-max].Add(window).Sub(now), nil
}

// SignInFailed records a failed sign-in of key, and forgets failures older than window.
func (sessions *Sessions) SignInFailed(ctx context.Context, key string, window time.Duration) error {
	now := sessions.Clock.Now()
	if err := sessions.Store.DeleteSignInFailures(ctx, now.Add(-window)); err != nil {
		return err
	}
	return sessions.Store.AddSignInFailure(ctx, key, now)
}
