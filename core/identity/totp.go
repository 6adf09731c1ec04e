package identity

import (
	"context"
	"encoding/base32"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/consentd/consentd/core"
)

// TOTP (RFC 6238) second factor for password sign-in: 6 digits, 30-second steps, SHA-1 (what
// authenticator apps read from an otpauth:// URI). A code of the step before or after the
// current one is accepted (clock skew); a step once used is refused for that user (replay).
const (
	TOTPIssuer = "consentd"
	// TokenTOTP is the one-time token between the password and the code steps of a sign-in.
	TokenTOTP = "totp"
	// TOTPSignInTTL is how long the code step waits after the password was right.
	TOTPSignInTTL = 5 * time.Minute
	totpPeriod    = 30
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Skew: 0, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// TOTPSetup is a new secret for an authenticator app: the base32 secret to type and its
// otpauth:// URI.
type TOTPSetup struct {
	Secret string
	URI    string
}

// SignInResult is a password sign-in: the user and their organizations, or, when the user
// has a second factor, only CodeToken (the secret of the code step) and no session may
// start yet.
type SignInResult struct {
	User        *User
	Memberships []*Membership
	CodeToken   string
	// RecoveryCodesLeft is, after a sign-in with a recovery code, how many the user has left;
	// nil after other sign-ins.
	RecoveryCodesLeft *int
}

// totpStep returns the time step (Unix time / 30 s) whose code is code, among the previous,
// current and next steps at now.
func totpStep(secret, code string, now time.Time) (int64, bool) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(code) != 6 || secret == "" {
		return 0, false
	}
	for _, d := range []int64{0, -1, 1} {
		t := now.Add(time.Duration(d*totpPeriod) * time.Second)
		if ok, err := totp.ValidateCustom(code, secret, t, totpOpts); err == nil && ok {
			return t.Unix() / totpPeriod, true
		}
	}
	return 0, false
}

// TOTPCode is the code of secret at t (for tests and tools).
func TOTPCode(secret string, t time.Time) (string, error) {
	return totp.GenerateCodeCustom(secret, t, totpOpts)
}

// selfUser checks that the caller in ctx is the signed-in user userID: a second factor is
// the person's own, not an owner's to set for them.
func selfUser(ctx context.Context, userID string) error {
	a := core.ActorOf(ctx)
	if a == nil || a.Kind != core.ActorUser || a.ID != userID || userID == "" {
		return core.Errorf(core.CodeForbidden, "only the signed-in member sets up their own authenticator")
	}
	return nil
}

// NewTOTP makes a new secret for the user's authenticator app (or, given secret, the setup
// of that secret again, for a page shown anew); nothing is stored until EnableTOTP is given
// a code of it.
func (users *Users) NewTOTP(ctx context.Context, userID, secret string) (*TOTPSetup, error) {
	if err := selfUser(ctx, userID); err != nil {
		return nil, err
	}
	u, err := users.Store.User(ctx, userID)
	if err != nil {
		return nil, err
	}
	opts := totp.GenerateOpts{Issuer: TOTPIssuer, AccountName: u.Email, Period: totpPeriod, Digits: otp.DigitsSix,
		Algorithm: otp.AlgorithmSHA1}
	if secret != "" {
		raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(strings.TrimSpace(secret)))
		if err != nil || len(raw) < 10 || len(raw) > 64 {
			return nil, core.FieldErrorf("secret", "not a secret made by this console; reload the page")
		}
		opts.Secret = raw
	}
	key, err := totp.Generate(opts)
	if err != nil {
		return nil, core.Errorf(core.CodeInternal, "could not make a secret: %v", err)
	}
	return &TOTPSetup{Secret: key.Secret(), URI: key.URL()}, nil
}

// TOTPEnabled says whether the user signs in with a code after their password.
func (users *Users) TOTPEnabled(ctx context.Context, userID string) (bool, error) {
	if err := selfUser(ctx, userID); err != nil {
		return false, err
	}
	u, err := users.Store.User(ctx, userID)
	if err != nil {
		return false, err
	}
	return u.TOTPSecret != "", nil
}

// EnableTOTP turns the second factor on with secret (from NewTOTP) once code is one of its
// current codes: the authenticator app has it. validation_error naming "code" otherwise. It
// returns the user's recovery codes, to be shown this once.
func (users *Users) EnableTOTP(ctx context.Context, userID, secret, code string) ([]string, error) {
	if err := selfUser(ctx, userID); err != nil {
		return nil, err
	}
	secret = strings.ToUpper(strings.TrimSpace(secret))
	if len(secret) < 16 || len(secret) > 128 {
		return nil, core.FieldErrorf("secret", "not a secret made by this console; reload the page")
	}
	step, ok := totpStep(secret, code, users.Clock.Now())
	if !ok {
		return nil, core.FieldErrorf("code", "not the current code of this secret; check the app's clock and type the code it shows now")
	}
	shown, stored := users.newRecoveryCodes(userID)
	err := users.Store.InTx(ctx, func(tx Store) error {
		u, err := tx.User(ctx, userID)
		if err != nil {
			return err
		}
		if u.TOTPSecret != "" {
			return core.Errorf(core.CodeConflict, "an authenticator is set up already: turn it off first")
		}
		if err := tx.SetUserTOTP(ctx, userID, secret, step); err != nil {
			return err
		}
		if err := tx.ReplaceRecoveryCodes(ctx, userID, stored); err != nil {
			return err
		}
		return users.auditTOTP(ctx, tx, u, false, true)
	})
	if err != nil {
		return nil, err
	}
	return shown, nil
}

// DisableTOTP turns the second factor off; code must be a current, unused code.
func (users *Users) DisableTOTP(ctx context.Context, userID, code string) error {
	if err := selfUser(ctx, userID); err != nil {
		return err
	}
	return users.Store.InTx(ctx, func(tx Store) error {
		u, err := tx.User(ctx, userID)
		if err != nil {
			return err
		}
		if u.TOTPSecret == "" {
			return core.Errorf(core.CodeConflict, "no authenticator is set up")
		}
		step, ok := totpStep(u.TOTPSecret, code, users.Clock.Now())
		if !ok {
			return core.FieldErrorf("code", "not the current code of your authenticator")
		}
		if err := tx.UseTOTPStep(ctx, userID, step); err != nil {
			if core.ErrorCode(err) == core.CodeConflict {
				return core.FieldErrorf("code", "this code was used already; wait for the next one")
			}
			return err
		}
		if err := tx.SetUserTOTP(ctx, userID, "", 0); err != nil {
			return err
		}
		if err := tx.ReplaceRecoveryCodes(ctx, userID, nil); err != nil {
			return err
		}
		return users.auditTOTP(ctx, tx, u, true, false)
	})
}

// auditTOTP records the change in every organization of the user.
func (users *Users) auditTOTP(ctx context.Context, tx Store, u *User, old, new bool) error {
	action := core.AuditUserTOTPEnable
	if !new {
		action = core.AuditUserTOTPDisable
	}
	return users.auditUser(ctx, tx, u, action, "totp", old, new)
}

// codeSignIn is the live code step of secret.
func (users *Users) codeSignIn(ctx context.Context, secret string) (*OneTimeToken, error) {
	expired := core.Errorf(core.CodeUnauthorized, "this sign-in has expired: enter your email and password again")
	if secret == "" {
		return nil, expired
	}
	t, err := users.Store.Token(ctx, SessionID(secret))
	if core.IsNotFound(err) {
		return nil, expired
	}
	if err != nil {
		return nil, err
	}
	if t.Kind != TokenTOTP || t.UsedAt != nil || !users.Clock.Now().Before(t.ExpiresAt) {
		return nil, expired
	}
	return t, nil
}

// CodeSignInEmail is the email of a sign-in waiting for its code (for the failure limit);
// unauthorized when it expired or was finished.
func (users *Users) CodeSignInEmail(ctx context.Context, secret string) (string, error) {
	t, err := users.codeSignIn(ctx, secret)
	if err != nil {
		return "", err
	}
	return t.Email, nil
}

// SignInCode finishes a password sign-in with the authenticator's code or one of the user's
// recovery codes; unauthorized when the code is wrong or was used already (each code signs in
// once), or the step expired. RecoveryCodesLeft says how many are left after a recovery code.
func (users *Users) SignInCode(ctx context.Context, secret, code string) (*SignInResult, error) {
	t, err := users.codeSignIn(ctx, secret)
	if err != nil {
		return nil, err
	}
	bad := core.Errorf(core.CodeUnauthorized, "wrong code: type the code your authenticator app shows now")
	u, err := users.Store.UserByEmail(ctx, t.Email)
	if core.IsNotFound(err) {
		return nil, bad
	}
	if err != nil {
		return nil, err
	}
	step, ok := totpStep(u.TOTPSecret, code, users.Clock.Now())
	recovery := !ok && normalizeRecoveryCode(code) != ""
	if !ok && !recovery {
		return nil, bad
	}
	var ms []*Membership
	var left *int
	err = users.Store.InTx(ctx, func(tx Store) error {
		if recovery {
			used, err := users.signInRecovery(ctx, tx, u, code)
			if err != nil {
				return err
			}
			if !used {
				return core.Errorf(core.CodeUnauthorized, "wrong code: type the code your authenticator app shows now, or an unused recovery code")
			}
			cs, err := tx.RecoveryCodes(ctx, u.ID)
			if err != nil {
				return err
			}
			n := unused(cs)
			left = &n
		} else if err := tx.UseTOTPStep(ctx, u.ID, step); err != nil {
			if core.ErrorCode(err) == core.CodeConflict {
				return core.Errorf(core.CodeUnauthorized, "this code was used already: wait for the next one")
			}
			return err
		}
		if err := tx.UseToken(ctx, t.ID, users.Clock.Now()); err != nil {
			return core.Errorf(core.CodeUnauthorized, "this sign-in was finished already: enter your email and password again")
		}
		ms, err = tx.Memberships(ctx, u.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, core.Errorf(core.CodeUnauthorized, "this account belongs to no organization any more")
	}
	return &SignInResult{User: u, Memberships: ms, RecoveryCodesLeft: left}, nil
}
