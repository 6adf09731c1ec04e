package identity

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/consentd/consentd/core"
	"golang.org/x/crypto/argon2"
)

// ArgonTime and ArgonMemory are the argon2id parameters of new hashes: RFC 9106's second
// recommended option (memory-constrained), with two lanes. Tests that hash many passwords
// (core's, the console's) lower them to stay fast; the stored hash names its parameters, so
// either verifies.
var ArgonTime, ArgonMemory uint32 = 3, 64 * 1024

const (
	argonThreads = 2
	argonKeyLen  = 32
)

// HashPassword returns the argon2id hash of password in PHC string form.
func HashPassword(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt) // crypto/rand.Read never fails
	key := argon2.IDKey([]byte(password), salt, ArgonTime, ArgonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, ArgonMemory, ArgonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// CheckPassword reports whether password matches a hash made by HashPassword.
func CheckPassword(hash, password string) bool {
	var v, m, t int
	var p uint8
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m <= 0 || m > 1<<20 || t <= 0 || t > 20 {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(key) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, uint32(t), uint32(m), p, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1
}

// dummyHash is checked against when an email is unknown, so that a sign-in takes as long
// for an unknown email as for a wrong password.
var dummyHash = sync.OnceValue(func() string { return HashPassword("consentd-no-such-user") })

func checkPassword(password string) error {
	if n := utf8.RuneCountInString(password); n < MinPassword || n > MaxPassword {
		return core.FieldErrorf("password", "must be %d to %d characters", MinPassword, MaxPassword)
	}
	return nil
}

// ChangePassword sets the signed-in member's own password; current must be their password
// (validation_error naming "currentPassword" otherwise), or empty when they have none (a
// member who joined by single sign-on). Recorded in each of their organizations.
func (users *Users) ChangePassword(ctx context.Context, userID, current, password string) error {
	if err := selfUser(ctx, userID); err != nil {
		return err
	}
	if err := checkPassword(password); err != nil {
		return err
	}
	return users.Store.InTx(ctx, func(tx Store) error {
		u, err := tx.User(ctx, userID)
		if err != nil {
			return err
		}
		if u.PasswordHash != "" && !CheckPassword(u.PasswordHash, current) {
			return core.FieldErrorf("currentPassword", "is not your current password")
		}
		u.PasswordHash = HashPassword(password)
		if err := tx.SetUserPassword(ctx, u.ID, u.PasswordHash); err != nil {
			return err
		}
		ms, err := tx.Memberships(ctx, u.ID)
		if err != nil {
			return err
		}
		for _, x := range ms {
			if err := users.Audit.Record(ctx, tx, x.OrgID, "", core.AuditUserPasswordSet, u.ID, nil, nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// ResetLink is the operator's `consentd user reset-password`: a one-time link (its secret)
// to set a new password, valid ResetTTL.
func (users *Users) ResetLink(ctx context.Context, email string) (string, error) {
	email, err := NormalizeEmail("email", email)
	if err != nil {
		return "", err
	}
	var secret string
	err = users.Store.InTx(ctx, func(tx Store) error {
		if _, err := tx.UserByEmail(ctx, email); err != nil {
			return err
		}
		var err error
		secret, err = users.newToken(ctx, tx, &OneTimeToken{Kind: TokenReset, Email: email}, ResetTTL)
		return err
	})
	return secret, err
}

// ResetPassword uses a reset link to set a new password; it ends none of the user's
// sessions (the operator removes a member for that).
func (users *Users) ResetPassword(ctx context.Context, secret, password string) (*User, error) {
	t, err := users.Invitation(ctx, secret)
	if err != nil {
		return nil, err
	}
	if t.Kind != TokenReset {
		return nil, core.Errorf(core.CodeNotFound, "this link is not a password reset")
	}
	if err := checkPassword(password); err != nil {
		return nil, err
	}
	var u *User
	err = users.Store.InTx(ctx, func(tx Store) error {
		if err := tx.UseToken(ctx, t.ID, users.Clock.Now()); err != nil {
			return core.Errorf(core.CodeNotFound, "this link was used already")
		}
		var err error
		if u, err = tx.UserByEmail(ctx, t.Email); err != nil {
			return err
		}
		u.PasswordHash = HashPassword(password)
		if err := tx.SetUserPassword(ctx, u.ID, u.PasswordHash); err != nil {
			return err
		}
		ms, err := tx.Memberships(ctx, u.ID)
		if err != nil {
			return err
		}
		for _, x := range ms {
			if err := users.Audit.Record(core.WithActor(ctx, &core.Actor{Kind: core.ActorUser, ID: u.ID, Name: u.DisplayName()}), tx, x.OrgID, "",
				core.AuditUserPasswordSet, u.ID, nil, nil); err != nil {
				return err
			}
		}
		return nil
	})
	return u, err
}
