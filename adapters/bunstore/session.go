package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core/identity"
)

var _ identity.SessionStore = (*Store)(nil)

type sessionRow struct {
	bun.BaseModel  `bun:"table:sessions"`
	ID             string    `bun:"id,pk"`
	OrganizationID string    `bun:"organization_id"`
	UserID         string    `bun:"user_id"`
	KeyID          string    `bun:"key_id"`
	CSRF           string    `bun:"csrf"`
	UserAgent      string    `bun:"user_agent"`
	CreatedAt      time.Time `bun:"created_at"`
	SeenAt         time.Time `bun:"seen_at"`
	ExpiresAt      time.Time `bun:"expires_at"`
	Flash          string    `bun:"flash"`
}

func (r *sessionRow) core() *identity.Session {
	return &identity.Session{ID: r.ID, OrgID: r.OrganizationID, UserID: r.UserID, KeyID: r.KeyID, CSRF: r.CSRF, UserAgent: r.UserAgent,
		CreatedAt: r.CreatedAt.UTC(), SeenAt: r.SeenAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(), Flash: r.Flash}
}

type signInFailure struct {
	bun.BaseModel `bun:"table:sign_in_failures"`
	Key           string    `bun:"key"`
	At            time.Time `bun:"at"`
}

// CreateSession implements core.SessionStore.
func (s *Store) CreateSession(ctx context.Context, ss *identity.Session) error {
	if err := findIDs("organization", ss.OrgID); err != nil {
		return err
	}
	if err := storable("session", ss); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(&sessionRow{ID: ss.ID, OrganizationID: ss.OrgID, UserID: ss.UserID, KeyID: ss.KeyID,
		CSRF: ss.CSRF, UserAgent: ss.UserAgent, CreatedAt: ss.CreatedAt, SeenAt: ss.SeenAt, ExpiresAt: ss.ExpiresAt, Flash: ss.Flash}).Exec(ctx)
	return translate(err, "session")
}

// Session implements core.SessionStore.
func (s *Store) Session(ctx context.Context, id string) (*identity.Session, error) {
	var r sessionRow
	if err := s.db.NewSelect().Model(&r).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, translate(err, "session")
	}
	return r.core(), nil
}

// Sessions implements core.SessionStore.
func (s *Store) Sessions(ctx context.Context, orgID string) ([]*identity.Session, error) {
	out := []*identity.Session{}
	if !isID(orgID) {
		return out, nil
	}
	var rows []sessionRow
	if err := s.db.NewSelect().Model(&rows).Where("organization_id = ?", orgID).OrderExpr("created_at DESC, id").Scan(ctx); err != nil {
		return nil, translate(err, "session")
	}
	for i := range rows {
		out = append(out, rows[i].core())
	}
	return out, nil
}

func (s *Store) setSession(ctx context.Context, id, set string, v any) error {
	res, err := s.db.NewUpdate().Model((*sessionRow)(nil)).Set(set, v).Where("id = ?", id).Exec(ctx)
	return mustAffect(res, err, "session")
}

// TouchSession implements core.SessionStore.
func (s *Store) TouchSession(ctx context.Context, id string, at time.Time) error {
	return s.setSession(ctx, id, "seen_at = ?", at)
}

// SetSessionKey implements core.SessionStore.
func (s *Store) SetSessionKey(ctx context.Context, id, keyID string) error {
	return s.setSession(ctx, id, "key_id = ?", keyID)
}

// SetSessionFlash implements core.SessionStore.
func (s *Store) SetSessionFlash(ctx context.Context, id, flash string) error {
	if err := storable("session", flash); err != nil {
		return err
	}
	return s.setSession(ctx, id, "flash = ?", flash)
}

// DeleteSession implements core.SessionStore.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	res, err := s.db.NewDelete().Model((*sessionRow)(nil)).Where("id = ?", id).Exec(ctx)
	return mustAffect(res, err, "session")
}

// DeleteUserSessions implements core.SessionStore.
func (s *Store) DeleteUserSessions(ctx context.Context, orgID, userID string) (int, error) {
	if !isID(orgID) || userID == "" {
		return 0, nil
	}
	res, err := s.db.NewDelete().Model((*sessionRow)(nil)).Where("organization_id = ? AND user_id = ?", orgID, userID).Exec(ctx)
	if err != nil {
		return 0, translate(err, "session")
	}
	n, err := res.RowsAffected()
	return int(n), translate(err, "session")
}

// DeleteExpiredSessions implements core.SessionStore.
func (s *Store) DeleteExpiredSessions(ctx context.Context, at time.Time) error {
	_, err := s.db.NewDelete().Model((*sessionRow)(nil)).Where("expires_at < ?", at).Exec(ctx)
	return translate(err, "session")
}

// AddSignInFailure implements core.SessionStore.
func (s *Store) AddSignInFailure(ctx context.Context, key string, at time.Time) error {
	if err := storable("sign-in failure", key); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(&signInFailure{Key: key, At: at}).Exec(ctx)
	return translate(err, "sign-in failure")
}

// SignInFailures implements core.SessionStore.
func (s *Store) SignInFailures(ctx context.Context, key string, since time.Time) ([]time.Time, error) {
	var rows []signInFailure
	if err := s.db.NewSelect().Model(&rows).Where("key = ? AND at > ?", key, since).OrderExpr("at").Scan(ctx); err != nil {
		return nil, translate(err, "sign-in failure")
	}
	out := make([]time.Time, len(rows))
	for i, r := range rows {
		out[i] = r.At.UTC()
	}
	return out, nil
}

// DeleteSignInFailures implements core.SessionStore.
func (s *Store) DeleteSignInFailures(ctx context.Context, at time.Time) error {
	_, err := s.db.NewDelete().Model((*signInFailure)(nil)).Where("at < ?", at).Exec(ctx)
	return translate(err, "sign-in failure")
}
