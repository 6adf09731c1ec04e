package memstore

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// teamsData is the audit log (and, later, members and sessions).
type teamsData struct {
	audit    []core.AuditEntry
	anchors  map[string]auditAnchor
	sessions map[string]identity.Session
	failures []signInFailure
	users    map[string]identity.User
	members  map[membershipKey]identity.Membership
	tokens   map[string]identity.OneTimeToken
	sso      map[string]identity.SSOConfig
	recovery []identity.RecoveryCode
}

// auditAnchor is an organization's last entry removed by retention.
type auditAnchor struct {
	seq  int64
	hash string
}

type signInFailure struct {
	key string
	at  time.Time
}

func (t teamsData) clone() teamsData {
	return teamsData{audit: slices.Clone(t.audit), anchors: maps.Clone(t.anchors), sessions: maps.Clone(t.sessions), failures: slices.Clone(t.failures),
		users: maps.Clone(t.users), members: maps.Clone(t.members), tokens: maps.Clone(t.tokens), sso: maps.Clone(t.sso),
		recovery: slices.Clone(t.recovery)}
}

// AuditHead implements core.AuditStore.
func (s *Store) AuditHead(_ context.Context, orgID string) (int64, string, error) {
	defer s.lock()()
	seq, hash := int64(0), core.GenesisHash
	if a, ok := s.d.teams.anchors[orgID]; ok {
		seq, hash = a.seq, a.hash
	}
	for _, e := range s.d.teams.audit {
		if e.OrganizationID == orgID && e.Seq > seq {
			seq, hash = e.Seq, e.Hash
		}
	}
	return seq, hash, nil
}

// AppendAudit implements core.AuditStore.
func (s *Store) AppendAudit(_ context.Context, e *core.AuditEntry) error {
	defer s.lock()()
	for _, x := range s.d.teams.audit {
		if x.OrganizationID == e.OrganizationID && x.Seq == e.Seq || x.ID == e.ID {
			return conflict("audit entry")
		}
	}
	c := *e
	c.Changes = slices.Clone(e.Changes)
	s.d.teams.audit = append(s.d.teams.audit, c)
	return nil
}

// AuditEntries implements core.AuditStore.
func (s *Store) AuditEntries(_ context.Context, q identity.AuditQuery) ([]*core.AuditEntry, error) {
	defer s.lock()()
	out := []*core.AuditEntry{}
	for _, e := range s.d.teams.audit {
		switch {
		case e.OrganizationID != q.OrgID,
			q.BeforeSeq != 0 && e.Seq >= q.BeforeSeq,
			q.From != nil && !e.CreatedAt.After(*q.From),
			q.To != nil && !e.CreatedAt.Before(*q.To),
			q.SiteID != "" && e.SiteID != q.SiteID,
			q.Actor != "" && e.ActorID != q.Actor,
			q.Action != "" && e.Action != q.Action:
			continue
		}
		c := e
		out = append(out, &c)
	}
	slices.SortFunc(out, func(a, b *core.AuditEntry) int { return cmp.Compare(b.Seq, a.Seq) })
	if len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// EachAuditEntry implements core.AuditStore.
func (s *Store) EachAuditEntry(_ context.Context, orgID string, fn func(*core.AuditEntry) error) error {
	unlock := s.lock()
	var es []core.AuditEntry
	for _, e := range s.d.teams.audit {
		if e.OrganizationID == orgID {
			es = append(es, e)
		}
	}
	unlock()
	slices.SortFunc(es, func(a, b core.AuditEntry) int { return cmp.Compare(a.Seq, b.Seq) })
	for i := range es {
		if err := fn(&es[i]); err != nil {
			return err
		}
	}
	return nil
}

// AuditAnchor implements core.AuditStore.
func (s *Store) AuditAnchor(_ context.Context, orgID string) (int64, string, error) {
	defer s.lock()()
	if a, ok := s.d.teams.anchors[orgID]; ok {
		return a.seq, a.hash, nil
	}
	return 0, core.GenesisHash, nil
}

// RemoveAuditEntries implements core.AuditStore.
func (s *Store) RemoveAuditEntries(_ context.Context, orgID string, through int64) (int, error) {
	defer s.lock()()
	var last *core.AuditEntry
	kept := s.d.teams.audit[:0:0]
	for i, e := range s.d.teams.audit {
		if e.OrganizationID != orgID || e.Seq > through {
			kept = append(kept, e)
			continue
		}
		if last == nil || e.Seq > last.Seq {
			last = &s.d.teams.audit[i]
		}
	}
	if last == nil {
		return 0, nil
	}
	if s.d.teams.anchors == nil {
		s.d.teams.anchors = map[string]auditAnchor{}
	}
	s.d.teams.anchors[orgID] = auditAnchor{seq: last.Seq, hash: last.Hash}
	n := len(s.d.teams.audit) - len(kept)
	s.d.teams.audit = kept
	return n, nil
}

// CreateSession implements core.SessionStore.
func (s *Store) CreateSession(_ context.Context, ss *identity.Session) error {
	defer s.lock()()
	if _, ok := s.d.teams.sessions[ss.ID]; ok {
		return conflict("session")
	}
	if _, ok := s.d.orgs[ss.OrgID]; !ok {
		return notFound("organization")
	}
	if s.d.teams.sessions == nil {
		s.d.teams.sessions = map[string]identity.Session{}
	}
	s.d.teams.sessions[ss.ID] = *ss
	return nil
}

// Session implements core.SessionStore.
func (s *Store) Session(_ context.Context, id string) (*identity.Session, error) {
	defer s.lock()()
	ss, ok := s.d.teams.sessions[id]
	if !ok {
		return nil, notFound("session")
	}
	return &ss, nil
}

// Sessions implements core.SessionStore.
func (s *Store) Sessions(_ context.Context, orgID string) ([]*identity.Session, error) {
	defer s.lock()()
	out := []*identity.Session{}
	for _, ss := range s.d.teams.sessions {
		if ss.OrgID == orgID {
			out = append(out, &ss)
		}
	}
	slices.SortFunc(out, func(a, b *identity.Session) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

func (s *Store) updateSession(id string, fn func(*identity.Session)) error {
	defer s.lock()()
	ss, ok := s.d.teams.sessions[id]
	if !ok {
		return notFound("session")
	}
	fn(&ss)
	s.d.teams.sessions[id] = ss
	return nil
}

// TouchSession implements core.SessionStore.
func (s *Store) TouchSession(_ context.Context, id string, at time.Time) error {
	return s.updateSession(id, func(ss *identity.Session) { ss.SeenAt = at })
}

// SetSessionKey implements core.SessionStore.
func (s *Store) SetSessionKey(_ context.Context, id, keyID string) error {
	return s.updateSession(id, func(ss *identity.Session) { ss.KeyID = keyID })
}

// SetSessionFlash implements core.SessionStore.
func (s *Store) SetSessionFlash(_ context.Context, id, flash string) error {
	return s.updateSession(id, func(ss *identity.Session) { ss.Flash = flash })
}

// DeleteSession implements core.SessionStore.
func (s *Store) DeleteSession(_ context.Context, id string) error {
	defer s.lock()()
	if _, ok := s.d.teams.sessions[id]; !ok {
		return notFound("session")
	}
	delete(s.d.teams.sessions, id)
	return nil
}

// DeleteUserSessions implements core.SessionStore.
func (s *Store) DeleteUserSessions(_ context.Context, orgID, userID string) (int, error) {
	defer s.lock()()
	n := 0
	for id, ss := range s.d.teams.sessions {
		if ss.OrgID == orgID && ss.UserID == userID && userID != "" {
			delete(s.d.teams.sessions, id)
			n++
		}
	}
	return n, nil
}

// DeleteExpiredSessions implements core.SessionStore.
func (s *Store) DeleteExpiredSessions(_ context.Context, at time.Time) error {
	defer s.lock()()
	for id, ss := range s.d.teams.sessions {
		if ss.ExpiresAt.Before(at) {
			delete(s.d.teams.sessions, id)
		}
	}
	return nil
}

// AddSignInFailure implements core.SessionStore.
func (s *Store) AddSignInFailure(_ context.Context, key string, at time.Time) error {
	defer s.lock()()
	s.d.teams.failures = append(s.d.teams.failures, signInFailure{key, at})
	return nil
}

// SignInFailures implements core.SessionStore.
func (s *Store) SignInFailures(_ context.Context, key string, since time.Time) ([]time.Time, error) {
	defer s.lock()()
	out := []time.Time{}
	for _, f := range s.d.teams.failures {
		if f.key == key && f.at.After(since) {
			out = append(out, f.at)
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return out, nil
}

// DeleteSignInFailures implements core.SessionStore.
func (s *Store) DeleteSignInFailures(_ context.Context, at time.Time) error {
	defer s.lock()()
	s.d.teams.failures = slices.DeleteFunc(s.d.teams.failures, func(f signInFailure) bool { return f.at.Before(at) })
	return nil
}

type membershipKey struct{ org, user string }

// CreateUser implements core.UserStore.
func (s *Store) CreateUser(_ context.Context, u *identity.User) error {
	defer s.lock()()
	for _, x := range s.d.teams.users {
		if x.Email == u.Email || (u.Subject != "" && x.Issuer == u.Issuer && x.Subject == u.Subject) || x.ID == u.ID {
			return conflict("user")
		}
	}
	if s.d.teams.users == nil {
		s.d.teams.users = map[string]identity.User{}
	}
	s.d.teams.users[u.ID] = *u
	return nil
}

func (s *Store) findUser(match func(identity.User) bool) (*identity.User, error) {
	defer s.lock()()
	for _, u := range s.d.teams.users {
		if match(u) {
			return &u, nil
		}
	}
	return nil, notFound("user")
}

// User implements core.UserStore.
func (s *Store) User(_ context.Context, id string) (*identity.User, error) {
	return s.findUser(func(u identity.User) bool { return u.ID == id })
}

// UserByEmail implements core.UserStore.
func (s *Store) UserByEmail(_ context.Context, email string) (*identity.User, error) {
	return s.findUser(func(u identity.User) bool { return u.Email == email })
}

// UserBySubject implements core.UserStore.
func (s *Store) UserBySubject(_ context.Context, issuer, subject string) (*identity.User, error) {
	return s.findUser(func(u identity.User) bool { return subject != "" && u.Issuer == issuer && u.Subject == subject })
}

func (s *Store) updateUser(id string, fn func(*identity.User)) error {
	defer s.lock()()
	u, ok := s.d.teams.users[id]
	if !ok {
		return notFound("user")
	}
	fn(&u)
	s.d.teams.users[id] = u
	return nil
}

// SetUserPassword implements core.UserStore.
func (s *Store) SetUserPassword(_ context.Context, id, hash string) error {
	return s.updateUser(id, func(u *identity.User) { u.PasswordHash = hash })
}

// SetUserSubject implements core.UserStore.
func (s *Store) SetUserSubject(_ context.Context, id, issuer, subject string) error {
	return s.updateUser(id, func(u *identity.User) { u.Issuer, u.Subject = issuer, subject })
}

// SetUserTOTP implements core.UserStore.
func (s *Store) SetUserTOTP(_ context.Context, id, secret string, step int64) error {
	return s.updateUser(id, func(u *identity.User) { u.TOTPSecret, u.TOTPStep = secret, step })
}

// UseTOTPStep implements core.UserStore.
func (s *Store) UseTOTPStep(_ context.Context, id string, step int64) error {
	defer s.lock()()
	u, ok := s.d.teams.users[id]
	if !ok {
		return notFound("user")
	}
	if step <= u.TOTPStep {
		return core.Errorf(core.CodeConflict, "this code was used already")
	}
	u.TOTPStep = step
	s.d.teams.users[id] = u
	return nil
}

// CountUsers implements core.UserStore.
func (s *Store) CountUsers(context.Context) (int, error) {
	defer s.lock()()
	return len(s.d.teams.users), nil
}

// PutMembership implements core.UserStore.
func (s *Store) PutMembership(_ context.Context, m *identity.Membership) error {
	defer s.lock()()
	if _, ok := s.d.orgs[m.OrgID]; !ok {
		return notFound("organization")
	}
	if _, ok := s.d.teams.users[m.UserID]; !ok {
		return notFound("user")
	}
	if s.d.teams.members == nil {
		s.d.teams.members = map[membershipKey]identity.Membership{}
	}
	k := membershipKey{m.OrgID, m.UserID}
	c := identity.Membership{UserID: m.UserID, OrgID: m.OrgID, Role: m.Role, CreatedAt: m.CreatedAt}
	if old, ok := s.d.teams.members[k]; ok {
		c.CreatedAt = old.CreatedAt
	}
	s.d.teams.members[k] = c
	return nil
}

// fill adds the names of the organization and the user; the caller holds the lock.
func (s *Store) fill(m identity.Membership) *identity.Membership {
	m.OrgName = s.d.orgs[m.OrgID].Name
	u := s.d.teams.users[m.UserID]
	m.Email, m.Name, m.TOTP = u.Email, u.Name, u.TOTPSecret != ""
	return &m
}

// Membership implements core.UserStore.
func (s *Store) Membership(_ context.Context, orgID, userID string) (*identity.Membership, error) {
	defer s.lock()()
	m, ok := s.d.teams.members[membershipKey{orgID, userID}]
	if !ok {
		return nil, notFound("membership")
	}
	return s.fill(m), nil
}

func (s *Store) memberships(match func(identity.Membership) bool) []*identity.Membership {
	defer s.lock()()
	out := []*identity.Membership{}
	for _, m := range s.d.teams.members {
		if match(m) {
			out = append(out, s.fill(m))
		}
	}
	slices.SortFunc(out, func(a, b *identity.Membership) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.OrgID, b.OrgID), cmp.Compare(a.UserID, b.UserID))
	})
	return out
}

// Memberships implements core.UserStore.
func (s *Store) Memberships(_ context.Context, userID string) ([]*identity.Membership, error) {
	return s.memberships(func(m identity.Membership) bool { return m.UserID == userID }), nil
}

// Members implements core.UserStore.
func (s *Store) Members(_ context.Context, orgID string) ([]*identity.Membership, error) {
	return s.memberships(func(m identity.Membership) bool { return m.OrgID == orgID }), nil
}

// DeleteMembership implements core.UserStore.
func (s *Store) DeleteMembership(_ context.Context, orgID, userID string) error {
	defer s.lock()()
	k := membershipKey{orgID, userID}
	if _, ok := s.d.teams.members[k]; !ok {
		return notFound("membership")
	}
	delete(s.d.teams.members, k)
	return nil
}

// CreateToken implements core.UserStore.
func (s *Store) CreateToken(_ context.Context, t *identity.OneTimeToken) error {
	defer s.lock()()
	if _, ok := s.d.teams.tokens[t.ID]; ok {
		return conflict("token")
	}
	if s.d.teams.tokens == nil {
		s.d.teams.tokens = map[string]identity.OneTimeToken{}
	}
	s.d.teams.tokens[t.ID] = *t
	return nil
}

// Token implements core.UserStore.
func (s *Store) Token(_ context.Context, id string) (*identity.OneTimeToken, error) {
	defer s.lock()()
	t, ok := s.d.teams.tokens[id]
	if !ok {
		return nil, notFound("token")
	}
	return &t, nil
}

// UseToken implements core.UserStore.
func (s *Store) UseToken(_ context.Context, id string, at time.Time) error {
	defer s.lock()()
	t, ok := s.d.teams.tokens[id]
	if !ok || t.UsedAt != nil {
		return conflict("token use")
	}
	t.UsedAt = &at
	s.d.teams.tokens[id] = t
	return nil
}

// PutSSOConfig implements core.SSOStore.
func (s *Store) PutSSOConfig(_ context.Context, c *identity.SSOConfig) error {
	defer s.lock()()
	if _, ok := s.d.orgs[c.OrganizationID]; !ok {
		return notFound("organization")
	}
	if s.d.teams.sso == nil {
		s.d.teams.sso = map[string]identity.SSOConfig{}
	}
	v := *c
	v.AllowedDomains = slices.Clone(c.AllowedDomains)
	if old, ok := s.d.teams.sso[c.OrganizationID]; ok {
		v.CreatedAt = old.CreatedAt
	}
	s.d.teams.sso[c.OrganizationID] = v
	return nil
}

// SSOConfig implements core.SSOStore.
func (s *Store) SSOConfig(_ context.Context, orgID string) (*identity.SSOConfig, error) {
	defer s.lock()()
	c, ok := s.d.teams.sso[orgID]
	if !ok {
		return nil, notFound("single sign-on")
	}
	c.AllowedDomains = slices.Clone(c.AllowedDomains)
	return &c, nil
}

// DeleteSSOConfig implements core.SSOStore.
func (s *Store) DeleteSSOConfig(_ context.Context, orgID string) error {
	defer s.lock()()
	if _, ok := s.d.teams.sso[orgID]; !ok {
		return notFound("single sign-on")
	}
	delete(s.d.teams.sso, orgID)
	return nil
}

// CountSSOConfigs implements core.SSOStore.
func (s *Store) CountSSOConfigs(context.Context) (int, error) {
	defer s.lock()()
	return len(s.d.teams.sso), nil
}

// ReplaceRecoveryCodes implements core.RecoveryCodeStore.
func (s *Store) ReplaceRecoveryCodes(_ context.Context, userID string, codes []*identity.RecoveryCode) error {
	defer s.lock()()
	if _, ok := s.d.teams.users[userID]; !ok {
		return notFound("user")
	}
	s.d.teams.recovery = slices.DeleteFunc(s.d.teams.recovery, func(c identity.RecoveryCode) bool { return c.UserID == userID })
	for _, c := range codes {
		s.d.teams.recovery = append(s.d.teams.recovery, *c)
	}
	return nil
}

// RecoveryCodes implements core.RecoveryCodeStore.
func (s *Store) RecoveryCodes(_ context.Context, userID string) ([]*identity.RecoveryCode, error) {
	defer s.lock()()
	out := []*identity.RecoveryCode{}
	for _, c := range s.d.teams.recovery {
		if c.UserID == userID {
			out = append(out, &c)
		}
	}
	slices.SortStableFunc(out, func(a, b *identity.RecoveryCode) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

// UseRecoveryCode implements core.RecoveryCodeStore.
func (s *Store) UseRecoveryCode(_ context.Context, id string, at time.Time) error {
	defer s.lock()()
	for i, c := range s.d.teams.recovery {
		if c.ID == id {
			if c.UsedAt != nil {
				break
			}
			s.d.teams.recovery[i].UsedAt = &at
			return nil
		}
	}
	return core.Errorf(core.CodeConflict, "recovery code used already or unknown")
}
