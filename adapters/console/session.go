package console

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"sync"
	"time"
)

// Cookie names. The session cookie is HttpOnly, SameSite=Strict, Secure on HTTPS; the
// pre-session cookie carries the sign-in form's CSRF token (login CSRF).
const (
	sessionCookie   = "consentd_session"
	preSessionToken = "consentd_signin"
)

// session is a signed-in person: the organization their API key belongs to, the CSRF token of
// their forms, and when the session ends.
type session struct {
	orgID string
	// keyID is the API key the person signed in with: revoking it, or its expiry after a
	// rotation, ends the session ("" when keys cannot be listed).
	keyID   string
	csrf    string
	created time.Time
	seen    time.Time
	flash   string
}

// sessions keep sessions in memory, keyed by the SHA-256 of the cookie value (so the map never
// holds what a request must present). They end after ttl, or after idle without a request, or
// at sign-out; a restart ends them all (docs/console.md).
type sessions struct {
	mu   sync.Mutex
	m    map[string]*session
	ttl  time.Duration
	idle time.Duration
	now  func() time.Time
}

func newSessions(ttl, idle time.Duration, now func() time.Time) *sessions {
	return &sessions{m: map[string]*session{}, ttl: ttl, idle: idle, now: now}
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

func hashToken(t string) string {
	h := sha256.Sum256([]byte(t))
	return hex.EncodeToString(h[:])
}

// create starts a session for orgID and returns the cookie value.
func (s *sessions) create(orgID, keyID string) (string, *session) {
	id := randomToken()
	now := s.now()
	ss := &session{orgID: orgID, keyID: keyID, csrf: randomToken(), created: now, seen: now}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(now)
	s.m[hashToken(id)] = ss
	return id, ss
}

// get returns the live session of the cookie value id, or nil; it ends an expired one.
func (s *sessions) get(id string) *session {
	if id == "" {
		return nil
	}
	k := hashToken(id)
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.m[k]
	if ss == nil {
		return nil
	}
	if s.expired(ss, now) {
		delete(s.m, k)
		return nil
	}
	ss.seen = now
	return ss
}

func (s *sessions) expired(ss *session, now time.Time) bool {
	return !now.Before(ss.created.Add(s.ttl)) || !now.Before(ss.seen.Add(s.idle))
}

// sweep drops expired sessions; the caller holds mu.
func (s *sessions) sweep(now time.Time) {
	for k, ss := range s.m {
		if s.expired(ss, now) {
			delete(s.m, k)
		}
	}
}

// end ends the session of the cookie value id.
func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, hashToken(id))
}

// takeFlash returns and clears the session's one-time notice.
func (s *sessions) takeFlash(ss *session) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := ss.flash
	ss.flash = ""
	return f
}

func (s *sessions) setFlash(ss *session, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss.flash = msg
}

// key returns the session's API key ID; setKey moves the session to another key (its
// successor after a rotation).
func (s *sessions) key(ss *session) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ss.keyID
}

func (s *sessions) setKey(ss *session, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss.keyID = id
}

// tokenEqual compares two tokens in constant time; an empty token never matches.
func tokenEqual(a, b string) bool {
	return a != "" && b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// signInLimiter refuses sign-in attempts from a client address after max failures within
// window, until the oldest of them leaves the window.
type signInLimiter struct {
	mu     sync.Mutex
	fails  map[string][]time.Time
	max    int
	window time.Duration
	now    func() time.Time
}

func newSignInLimiter(max int, window time.Duration, now func() time.Time) *signInLimiter {
	return &signInLimiter{fails: map[string][]time.Time{}, max: max, window: window, now: now}
}

// retryAfter is how long addr must wait before trying again; zero when it may try now.
func (l *signInLimiter) retryAfter(addr string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	f := l.recent(addr, now)
	if len(f) < l.max {
		return 0
	}
	return f[0].Add(l.window).Sub(now)
}

func (l *signInLimiter) failed(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if len(l.fails) > 10000 { // bound memory under a spray of addresses
		for a := range l.fails {
			if len(l.recent(a, now)) == 0 {
				delete(l.fails, a)
			}
		}
	}
	l.fails[addr] = append(l.recent(addr, now), now)
}

// recent returns addr's failures within the window; the caller holds mu.
func (l *signInLimiter) recent(addr string, now time.Time) []time.Time {
	f := l.fails[addr]
	i := 0
	for i < len(f) && !now.Before(f[i].Add(l.window)) {
		i++
	}
	f = f[i:]
	if len(f) == 0 {
		delete(l.fails, addr)
	} else {
		l.fails[addr] = f
	}
	return f
}
