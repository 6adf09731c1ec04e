package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
)

var _ identity.UserStore = (*Store)(nil)

type userRow struct {
	bun.BaseModel `bun:"table:users"`
	ID            string    `bun:"id,pk"`
	Email         string    `bun:"email"`
	Name          string    `bun:"name"`
	PasswordHash  string    `bun:"password_hash"`
	Issuer        string    `bun:"issuer"`
	Subject       string    `bun:"subject"`
	TOTPSecret    string    `bun:"totp_secret"`
	TOTPStep      int64     `bun:"totp_step"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (r *userRow) core() *identity.User {
	return &identity.User{ID: r.ID, Email: r.Email, Name: r.Name, PasswordHash: r.PasswordHash, Issuer: r.Issuer, Subject: r.Subject,
		TOTPSecret: r.TOTPSecret, TOTPStep: r.TOTPStep, CreatedAt: r.CreatedAt.UTC()}
}

type membershipRow struct {
	bun.BaseModel  `bun:"table:memberships"`
	OrganizationID string    `bun:"organization_id,pk"`
	UserID         string    `bun:"user_id,pk"`
	Role           string    `bun:"role"`
	CreatedAt      time.Time `bun:"created_at"`
	OrgName        string    `bun:"org_name,scanonly"`
	Email          string    `bun:"email,scanonly"`
	Name           string    `bun:"name,scanonly"`
	TOTP           bool      `bun:"totp,scanonly"`
}

func (r *membershipRow) core() *identity.Membership {
	return &identity.Membership{UserID: r.UserID, OrgID: r.OrganizationID, OrgName: r.OrgName, Role: core.Role(r.Role), Email: r.Email,
		Name: r.Name, TOTP: r.TOTP, CreatedAt: r.CreatedAt.UTC()}
}

type tokenRow struct {
	bun.BaseModel  `bun:"table:one_time_tokens"`
	ID             string     `bun:"id,pk"`
	Kind           string     `bun:"kind"`
	OrganizationID *string    `bun:"organization_id"`
	Email          string     `bun:"email"`
	Role           string     `bun:"role"`
	CreatedBy      string     `bun:"created_by"`
	CreatedAt      time.Time  `bun:"created_at"`
	ExpiresAt      time.Time  `bun:"expires_at"`
	UsedAt         *time.Time `bun:"used_at"`
}

// CreateUser implements core.UserStore.
func (s *Store) CreateUser(ctx context.Context, u *identity.User) error {
	if err := newID("user", u.ID); err != nil {
		return err
	}
	if err := storable("user", u); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(&userRow{ID: u.ID, Email: u.Email, Name: u.Name, PasswordHash: u.PasswordHash,
		Issuer: u.Issuer, Subject: u.Subject, CreatedAt: u.CreatedAt}).Exec(ctx)
	return translate(err, "user")
}

func (s *Store) userWhere(ctx context.Context, where string, args ...any) (*identity.User, error) {
	var r userRow
	if err := s.db.NewSelect().Model(&r).Where(where, args...).Limit(1).Scan(ctx); err != nil {
		return nil, translate(err, "user")
	}
	return r.core(), nil
}

// User implements core.UserStore.
func (s *Store) User(ctx context.Context, id string) (*identity.User, error) {
	if err := findIDs("user", id); err != nil {
		return nil, err
	}
	return s.userWhere(ctx, "id = ?", id)
}

// UserByEmail implements core.UserStore.
func (s *Store) UserByEmail(ctx context.Context, email string) (*identity.User, error) {
	return s.userWhere(ctx, "email = ?", email)
}

// UserBySubject implements core.UserStore.
func (s *Store) UserBySubject(ctx context.Context, issuer, subject string) (*identity.User, error) {
	if subject == "" {
		return nil, core.Errorf(core.CodeNotFound, "user not found")
	}
	return s.userWhere(ctx, "issuer = ? AND subject = ?", issuer, subject)
}

// SetUserPassword implements core.UserStore.
func (s *Store) SetUserPassword(ctx context.Context, id, hash string) error {
	if err := findIDs("user", id); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model((*userRow)(nil)).Set("password_hash = ?", hash).Where("id = ?", id).Exec(ctx)
	return mustAffect(res, err, "user")
}

// SetUserSubject implements core.UserStore.
func (s *Store) SetUserSubject(ctx context.Context, id, issuer, subject string) error {
	if err := findIDs("user", id); err != nil {
		return err
	}
	if err := storable("user", []string{issuer, subject}); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model((*userRow)(nil)).Set("issuer = ?, subject = ?", issuer, subject).Where("id = ?", id).Exec(ctx)
	return mustAffect(res, err, "user")
}

// SetUserTOTP implements core.UserStore.
func (s *Store) SetUserTOTP(ctx context.Context, id, secret string, step int64) error {
	if err := findIDs("user", id); err != nil {
		return err
	}
	if err := storable("user", secret); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model((*userRow)(nil)).Set("totp_secret = ?, totp_step = ?", secret, step).Where("id = ?", id).Exec(ctx)
	return mustAffect(res, err, "user")
}

// UseTOTPStep implements core.UserStore: one conditional update, so that two requests with
// the same code cannot both pass.
func (s *Store) UseTOTPStep(ctx context.Context, id string, step int64) error {
	if err := findIDs("user", id); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model((*userRow)(nil)).Set("totp_step = ?", step).Where("id = ? AND totp_step < ?", id, step).Exec(ctx)
	if err != nil {
		return translate(err, "user")
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	if _, err := s.User(ctx, id); err != nil {
		return err
	}
	return core.Errorf(core.CodeConflict, "this code was used already")
}

// CountUsers implements core.UserStore.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	n, err := s.db.NewSelect().Model((*userRow)(nil)).Count(ctx)
	return int(n), translate(err, "user")
}

// PutMembership implements core.UserStore.
func (s *Store) PutMembership(ctx context.Context, m *identity.Membership) error {
	if err := findIDs("membership", m.OrgID, m.UserID); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(&membershipRow{OrganizationID: m.OrgID, UserID: m.UserID, Role: string(m.Role), CreatedAt: m.CreatedAt}).
		On("CONFLICT (organization_id, user_id) DO UPDATE").Set("role = EXCLUDED.role").Exec(ctx)
	return translate(err, "membership")
}

func (s *Store) membershipsWhere(ctx context.Context, where string, args ...any) ([]*identity.Membership, error) {
	var rows []membershipRow
	err := s.db.NewSelect().Model(&rows).
		ColumnExpr("m.organization_id, m.user_id, m.role, m.created_at, o.name AS org_name, u.email, u.name, u.totp_secret <> '' AS totp").
		ModelTableExpr("memberships AS m").
		Join("JOIN organizations AS o ON o.id = m.organization_id").
		Join("JOIN users AS u ON u.id = m.user_id").
		Where(where, args...).OrderExpr("m.created_at, m.organization_id, m.user_id").Scan(ctx)
	if err != nil {
		return nil, translate(err, "membership")
	}
	out := make([]*identity.Membership, len(rows))
	for i := range rows {
		out[i] = rows[i].core()
	}
	return out, nil
}

// Membership implements core.UserStore.
func (s *Store) Membership(ctx context.Context, orgID, userID string) (*identity.Membership, error) {
	if err := findIDs("membership", orgID, userID); err != nil {
		return nil, err
	}
	ms, err := s.membershipsWhere(ctx, "m.organization_id = ? AND m.user_id = ?", orgID, userID)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, core.Errorf(core.CodeNotFound, "membership not found")
	}
	return ms[0], nil
}

// Memberships implements core.UserStore.
func (s *Store) Memberships(ctx context.Context, userID string) ([]*identity.Membership, error) {
	if !isID(userID) {
		return []*identity.Membership{}, nil
	}
	return s.membershipsWhere(ctx, "m.user_id = ?", userID)
}

// Members implements core.UserStore.
func (s *Store) Members(ctx context.Context, orgID string) ([]*identity.Membership, error) {
	if !isID(orgID) {
		return []*identity.Membership{}, nil
	}
	return s.membershipsWhere(ctx, "m.organization_id = ?", orgID)
}

// DeleteMembership implements core.UserStore.
func (s *Store) DeleteMembership(ctx context.Context, orgID, userID string) error {
	if err := findIDs("membership", orgID, userID); err != nil {
		return err
	}
	res, err := s.db.NewDelete().Model((*membershipRow)(nil)).Where("organization_id = ? AND user_id = ?", orgID, userID).Exec(ctx)
	return mustAffect(res, err, "membership")
}

// CreateToken implements core.UserStore.
func (s *Store) CreateToken(ctx context.Context, t *identity.OneTimeToken) error {
	if err := storable("token", t); err != nil {
		return err
	}
	r := &tokenRow{ID: t.ID, Kind: t.Kind, Email: t.Email, Role: string(t.Role), CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt,
		ExpiresAt: t.ExpiresAt, UsedAt: t.UsedAt}
	if t.OrgID != "" {
		if err := findIDs("organization", t.OrgID); err != nil {
			return err
		}
		r.OrganizationID = &t.OrgID
	}
	_, err := s.db.NewInsert().Model(r).Exec(ctx)
	return translate(err, "token")
}

// Token implements core.UserStore.
func (s *Store) Token(ctx context.Context, id string) (*identity.OneTimeToken, error) {
	var r tokenRow
	if err := s.db.NewSelect().Model(&r).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, translate(err, "token")
	}
	t := &identity.OneTimeToken{ID: r.ID, Kind: r.Kind, Email: r.Email, Role: core.Role(r.Role), CreatedBy: r.CreatedBy,
		CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(), UsedAt: utcPtr(r.UsedAt)}
	if r.OrganizationID != nil {
		t.OrgID = *r.OrganizationID
	}
	return t, nil
}

// UseToken implements core.UserStore: it marks the token used only if it was not, so that
// two requests racing with one link cannot both use it.
func (s *Store) UseToken(ctx context.Context, id string, at time.Time) error {
	res, err := s.db.NewUpdate().Model((*tokenRow)(nil)).Set("used_at = ?", at).Where("id = ? AND used_at IS NULL", id).Exec(ctx)
	if err := mustAffect(res, err, "token"); core.IsNotFound(err) {
		return core.Errorf(core.CodeConflict, "token used already or unknown")
	} else if err != nil {
		return err
	}
	return nil
}

type recoveryCodeRow struct {
	bun.BaseModel `bun:"table:totp_recovery_codes"`
	ID            string     `bun:"id,pk"`
	UserID        string     `bun:"user_id"`
	Prefix        string     `bun:"prefix"`
	Hash          string     `bun:"hash"`
	CreatedAt     time.Time  `bun:"created_at"`
	UsedAt        *time.Time `bun:"used_at"`
}

// ReplaceRecoveryCodes implements core.RecoveryCodeStore.
func (s *Store) ReplaceRecoveryCodes(ctx context.Context, userID string, codes []*identity.RecoveryCode) error {
	if err := findIDs("user", userID); err != nil {
		return err
	}
	return s.InTx(ctx, func(tx usecases.Store) error {
		t := tx.(*Store)
		if _, err := t.User(ctx, userID); err != nil {
			return err
		}
		if _, err := t.db.NewDelete().Model((*recoveryCodeRow)(nil)).Where("user_id = ?", userID).Exec(ctx); err != nil {
			return translate(err, "recovery code")
		}
		if len(codes) == 0 {
			return nil
		}
		rows := make([]recoveryCodeRow, len(codes))
		for i, c := range codes {
			if err := newID("recovery code", c.ID); err != nil {
				return err
			}
			rows[i] = recoveryCodeRow{ID: c.ID, UserID: userID, Prefix: c.Prefix, Hash: c.Hash, CreatedAt: c.CreatedAt, UsedAt: c.UsedAt}
		}
		_, err := t.db.NewInsert().Model(&rows).Exec(ctx)
		return translate(err, "recovery code")
	})
}

// RecoveryCodes implements core.RecoveryCodeStore.
func (s *Store) RecoveryCodes(ctx context.Context, userID string) ([]*identity.RecoveryCode, error) {
	out := []*identity.RecoveryCode{}
	if !isID(userID) {
		return out, nil
	}
	var rows []recoveryCodeRow
	if err := s.db.NewSelect().Model(&rows).Where("user_id = ?", userID).OrderExpr("created_at, id").Scan(ctx); err != nil {
		return nil, translate(err, "recovery code")
	}
	for _, r := range rows {
		out = append(out, &identity.RecoveryCode{ID: r.ID, UserID: r.UserID, Prefix: r.Prefix, Hash: r.Hash, CreatedAt: r.CreatedAt.UTC(),
			UsedAt: utcPtr(r.UsedAt)})
	}
	return out, nil
}

// UseRecoveryCode implements core.RecoveryCodeStore: one conditional update, so that two
// sign-ins with the same code cannot both pass.
func (s *Store) UseRecoveryCode(ctx context.Context, id string, at time.Time) error {
	if !isID(id) {
		return core.Errorf(core.CodeConflict, "recovery code used already or unknown")
	}
	res, err := s.db.NewUpdate().Model((*recoveryCodeRow)(nil)).Set("used_at = ?", at).Where("id = ? AND used_at IS NULL", id).Exec(ctx)
	if err := mustAffect(res, err, "recovery code"); core.IsNotFound(err) {
		return core.Errorf(core.CodeConflict, "recovery code used already or unknown")
	} else if err != nil {
		return err
	}
	return nil
}
