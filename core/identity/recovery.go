package identity

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// Recovery codes: single-use codes shown once when two-step sign-in is turned on, for a
// member who lost their authenticator. Each is 10 characters of base32 (50 random bits),
// shown as xxxxx-xxxxx; only its argon2id hash (HashPassword, as for passwords) is stored,
// with its first RecoveryPrefixLen characters so that a sign-in checks one hash, not ten.
const (
	RecoveryCodeCount = 10
	recoveryCodeLen   = 10
	// RecoveryPrefixLen is how much of a code is stored in clear to find its hash.
	RecoveryPrefixLen = 3
)

// RecoveryCode is one stored recovery code of a user.
type RecoveryCode struct {
	ID     string
	UserID string
	// Prefix is the code's first RecoveryPrefixLen characters; Hash its argon2id hash.
	Prefix    string
	Hash      string
	CreatedAt time.Time
	UsedAt    *time.Time
}

// RecoveryCodeStore keeps users' recovery codes.
type RecoveryCodeStore interface {
	// ReplaceRecoveryCodes removes the user's codes and stores codes (none turns them off);
	// not_found when the user does not exist.
	ReplaceRecoveryCodes(ctx context.Context, userID string, codes []*RecoveryCode) error
	// RecoveryCodes lists the user's codes, used ones too, oldest first.
	RecoveryCodes(ctx context.Context, userID string) ([]*RecoveryCode, error)
	// UseRecoveryCode marks a code used at at, atomically; conflict when it was used already
	// or does not exist.
	UseRecoveryCode(ctx context.Context, id string, at time.Time) error
}

var recoveryAlphabet = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// normalizeRecoveryCode is a code as typed, without spaces and hyphens, lower case; "" when
// it cannot be a recovery code.
func normalizeRecoveryCode(code string) string {
	c := strings.ToLower(strings.NewReplacer(" ", "", "-", "", "\t", "").Replace(strings.TrimSpace(code)))
	if len(c) != recoveryCodeLen {
		return ""
	}
	for _, r := range c {
		if !strings.ContainsRune("abcdefghijklmnopqrstuvwxyz234567", r) {
			return ""
		}
	}
	return c
}

// newRecoveryCodes makes RecoveryCodeCount codes for the user: what to show (xxxxx-xxxxx)
// and what to store.
func (users *Users) newRecoveryCodes(userID string) ([]string, []*RecoveryCode) {
	shown := make([]string, RecoveryCodeCount)
	stored := make([]*RecoveryCode, RecoveryCodeCount)
	for i := range shown {
		b := make([]byte, 7)
		_, _ = rand.Read(b) // crypto/rand.Read never fails
		c := recoveryAlphabet.EncodeToString(b)[:recoveryCodeLen]
		shown[i] = c[:5] + "-" + c[5:]
		stored[i] = &RecoveryCode{ID: users.NewID(), UserID: userID, Prefix: c[:RecoveryPrefixLen], Hash: HashPassword(c), CreatedAt: users.Clock.Now()}
	}
	return shown, stored
}

// RecoveryCodesLeft is how many unused recovery codes the signed-in user has.
func (users *Users) RecoveryCodesLeft(ctx context.Context, userID string) (int, error) {
	if err := selfUser(ctx, userID); err != nil {
		return 0, err
	}
	cs, err := users.Store.RecoveryCodes(ctx, userID)
	if err != nil {
		return 0, err
	}
	return unused(cs), nil
}

func unused(cs []*RecoveryCode) int {
	n := 0
	for _, c := range cs {
		if c.UsedAt == nil {
			n++
		}
	}
	return n
}

// NewRecoveryCodes replaces the signed-in user's recovery codes with new ones, shown once;
// code must be a current, unused code of their authenticator.
func (users *Users) NewRecoveryCodes(ctx context.Context, userID, code string) ([]string, error) {
	if err := selfUser(ctx, userID); err != nil {
		return nil, err
	}
	u, err := users.Store.User(ctx, userID)
	if err != nil {
		return nil, err
	}
	if u.TOTPSecret == "" {
		return nil, core.Errorf(core.CodeConflict, "two-step sign-in is off: turn it on to get recovery codes")
	}
	step, ok := totpStep(u.TOTPSecret, code, users.Clock.Now())
	if !ok {
		return nil, core.FieldErrorf("code", "not the current code of your authenticator")
	}
	shown, stored := users.newRecoveryCodes(userID)
	err = users.Store.InTx(ctx, func(tx Store) error {
		if err := tx.UseTOTPStep(ctx, userID, step); err != nil {
			if core.ErrorCode(err) == core.CodeConflict {
				return core.FieldErrorf("code", "this code was used already; wait for the next one")
			}
			return err
		}
		old, err := tx.RecoveryCodes(ctx, userID)
		if err != nil {
			return err
		}
		if err := tx.ReplaceRecoveryCodes(ctx, userID, stored); err != nil {
			return err
		}
		return users.auditUser(ctx, tx, u, core.AuditUserRecoveryNew, "recoveryCodesLeft", unused(old), len(stored))
	})
	if err != nil {
		return nil, err
	}
	return shown, nil
}

// auditUser records a change of a user's own sign-in in every organization of theirs.
func (users *Users) auditUser(ctx context.Context, tx Store, u *User, action, field string, old, new any) error {
	ms, err := tx.Memberships(ctx, u.ID)
	if err != nil {
		return err
	}
	o, _ := json.Marshal(old)
	n, _ := json.Marshal(new)
	for _, m := range ms {
		if err := users.Audit.RecordChanges(ctx, tx, m.OrgID, "", action, u.ID, []core.Change{{Field: field, Old: o, New: n}}); err != nil {
			return err
		}
	}
	return nil
}

// signInRecovery finishes the code step with a recovery code: the user's unused code of
// that prefix whose hash matches is used (once). false when code is no recovery code of
// theirs.
func (users *Users) signInRecovery(ctx context.Context, tx Store, u *User, code string) (bool, error) {
	c := normalizeRecoveryCode(code)
	if c == "" {
		return false, nil
	}
	cs, err := tx.RecoveryCodes(ctx, u.ID)
	if err != nil {
		return false, err
	}
	for _, rc := range cs {
		if rc.UsedAt != nil || rc.Prefix != c[:RecoveryPrefixLen] || !CheckPassword(rc.Hash, c) {
			continue
		}
		if err := tx.UseRecoveryCode(ctx, rc.ID, users.Clock.Now()); err != nil {
			if core.ErrorCode(err) == core.CodeConflict {
				return false, nil
			}
			return false, err
		}
		left := unused(cs) - 1
		// Nobody is signed in yet: the person signing in is the actor.
		actx := core.WithActor(ctx, &core.Actor{Kind: core.ActorUser, ID: u.ID, Name: u.DisplayName()})
		return true, users.auditUser(actx, tx, u, core.AuditUserRecoveryUse, "recoveryCodesLeft", left+1, left)
	}
	return false, nil
}

// ResetMemberTOTP turns a member's two-step sign-in off and removes their recovery codes,
// for a member who lost their authenticator and their codes: the factors permission (owner,
// admin), on a member of the organization whose role is not above the caller's. Their
// password alone signs them in afterwards, until they set up a new authenticator. Recorded
// in every organization of the member, so that each sees who reset it.
func (users *Users) ResetMemberTOTP(ctx context.Context, orgID, userID string) error {
	if err := core.Authorize(ctx, core.PermFactors, orgID, ""); err != nil {
		return err
	}
	return users.Store.InTx(ctx, func(tx Store) error {
		m, err := tx.Membership(ctx, orgID, userID)
		if core.IsNotFound(err) {
			return core.Errorf(core.CodeNotFound, "member not found")
		}
		if err != nil {
			return err
		}
		if a := core.ActorOf(ctx); a != nil && a.Kind != core.ActorSystem && m.Role.Rank() < a.Role.Rank() {
			return core.Errorf(core.CodeForbidden, "the %s role may not reset the two-step sign-in of an %s", a.Role, m.Role)
		}
		u, err := tx.User(ctx, userID)
		if err != nil {
			return err
		}
		return users.resetTOTP(ctx, tx, u)
	})
}

// ResetTOTP turns off the two-step sign-in of the person with email and removes their
// recovery codes, for an operator (`consentd user reset-totp`, the system actor only): an
// owner locked out with nobody left to reset it in the console. Audited in every organization
// of the person as ResetMemberTOTP is, the operator's command named as the actor.
func (users *Users) ResetTOTP(ctx context.Context, email string) (*User, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return nil, err
	}
	var u *User
	err := users.Store.InTx(ctx, func(tx Store) error {
		var err error
		if u, err = tx.UserByEmail(ctx, strings.TrimSpace(email)); core.IsNotFound(err) {
			return core.FieldErrorf("email", "no account has this email")
		} else if err != nil {
			return err
		}
		return users.resetTOTP(ctx, tx, u)
	})
	return u, err
}

// resetTOTP turns u's second factor off, with its recovery codes, and records it.
func (users *Users) resetTOTP(ctx context.Context, tx Store, u *User) error {
	if u.TOTPSecret == "" {
		return core.Errorf(core.CodeConflict, "this member has no two-step sign-in")
	}
	if err := tx.SetUserTOTP(ctx, u.ID, "", 0); err != nil {
		return err
	}
	if err := tx.ReplaceRecoveryCodes(ctx, u.ID, nil); err != nil {
		return err
	}
	return users.auditUser(ctx, tx, u, core.AuditUserTOTPReset, "totp", true, false)
}
