package core_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
)

// TestTOTP: enabling needs a current code of the shown secret; once on, a password sign-in
// gives only a code step, which needs the right code; a code signs in once (replay refused);
// turning it off needs a current unused code; both changes are audited.
func TestTOTP(t *testing.T) {
	now := time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC)
	m, _, _ := newCoreAt(t, func() time.Time { return now })
	org, _ := m.Orgs.CreateOrganization(ctx, "acme")
	cli := core.WithActor(ctx, core.System("consentd user create"))
	u, err := m.Users.CreateMember(cli, org.ID, "ana@example.com", "Ana", "correct horse battery", core.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := m.Users.CreateMember(cli, org.ID, "bo@example.com", "Bo", "correct horse battery", core.RoleOwner)
	ua, _ := m.Users.UserActor(ctx, u.ID, org.ID)
	asAna := core.WithActor(ctx, ua)

	setup, err := m.Users.NewTOTP(asAna, u.ID, "")
	if err != nil || len(setup.Secret) < 16 || !strings.HasPrefix(setup.URI, "otpauth://totp/consentd:ana@example.com?") ||
		!strings.Contains(setup.URI, "secret="+setup.Secret) {
		t.Fatalf("NewTOTP: %+v %v", setup, err)
	}
	if again, err := m.Users.NewTOTP(asAna, u.ID, setup.Secret); err != nil || again.Secret != setup.Secret {
		t.Fatalf("NewTOTP of the same secret: %+v %v", again, err)
	}
	if _, err := m.Users.NewTOTP(asAna, other.ID, ""); core.ErrorCode(err) != core.CodeForbidden {
		t.Fatalf("setting up another member's authenticator: %v", err)
	}
	code := func(at time.Time) string {
		c, err := identity.TOTPCode(setup.Secret, at)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// A code of another time, or garbage, does not enable it.
	for _, bad := range []string{code(now.Add(-2 * time.Minute)), "12345", "abcdef", ""} {
		if _, err := m.Users.EnableTOTP(asAna, u.ID, setup.Secret, bad); core.ErrorCode(err) != core.CodeInvalid ||
			!strings.HasPrefix(core.ErrorMessage(err), "code:") {
			t.Fatalf("enable with %q: %v", bad, err)
		}
	}
	if on, _ := m.Users.TOTPEnabled(asAna, u.ID); on {
		t.Fatal("enabled by a wrong code")
	}
	if res, err := m.Users.SignIn(ctx, "ana@example.com", "correct horse battery"); err != nil || res.User == nil || res.CodeToken != "" {
		t.Fatalf("sign in before TOTP: %+v %v", res, err)
	}
	enableCode := code(now)
	if codes, err := m.Users.EnableTOTP(asAna, u.ID, setup.Secret, enableCode); err != nil || len(codes) != identity.RecoveryCodeCount {
		t.Fatalf("enable: %v, %d recovery codes", err, len(codes))
	}
	if on, _ := m.Users.TOTPEnabled(asAna, u.ID); !on {
		t.Fatal("not enabled")
	}

	// The password alone gives no user, only the code step.
	res, err := m.Users.SignIn(ctx, "ana@example.com", "correct horse battery")
	if err != nil || res.User != nil || res.Memberships != nil || res.CodeToken == "" {
		t.Fatalf("password step: %+v %v", res, err)
	}
	if email, err := m.Users.CodeSignInEmail(ctx, res.CodeToken); err != nil || email != "ana@example.com" {
		t.Fatalf("CodeSignInEmail: %q %v", email, err)
	}
	if _, err := m.Users.SignInCode(ctx, res.CodeToken, "000000"); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("wrong code: %v", err)
	}
	// The code that enabled it was used: replaying it within its window is refused.
	if _, err := m.Users.SignInCode(ctx, res.CodeToken, enableCode); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("replayed enabling code: %v", err)
	}
	now = now.Add(30 * time.Second)
	c2 := code(now)
	done, err := m.Users.SignInCode(ctx, res.CodeToken, c2)
	if err != nil || done.User.ID != u.ID || len(done.Memberships) != 1 {
		t.Fatalf("code step: %+v %v", done, err)
	}
	// The code step is used up, and the code cannot sign in again through a new one.
	if _, err := m.Users.SignInCode(ctx, res.CodeToken, c2); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("finished code step reused: %v", err)
	}
	res2, _ := m.Users.SignIn(ctx, "ana@example.com", "correct horse battery")
	if _, err := m.Users.SignInCode(ctx, res2.CodeToken, c2); core.ErrorCode(err) != core.CodeUnauthorized ||
		!strings.Contains(core.ErrorMessage(err), "used already") {
		t.Fatalf("replayed code: %v", err)
	}
	// The code step expires.
	now = now.Add(identity.TOTPSignInTTL)
	if _, err := m.Users.SignInCode(ctx, res2.CodeToken, code(now)); core.ErrorCode(err) != core.CodeUnauthorized ||
		!strings.Contains(core.ErrorMessage(err), "expired") {
		t.Fatalf("expired code step: %v", err)
	}
	if _, err := m.Users.SignInCode(ctx, "", code(now)); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("no code step: %v", err)
	}

	// Turning it off needs a current, unused code.
	if _, err := m.Users.EnableTOTP(asAna, u.ID, setup.Secret, code(now)); core.ErrorCode(err) != core.CodeConflict {
		t.Fatalf("enable twice: %v", err)
	}
	if err := m.Users.DisableTOTP(asAna, u.ID, "123456"); core.ErrorCode(err) != core.CodeInvalid {
		t.Fatalf("disable with a wrong code: %v", err)
	}
	now = now.Add(time.Minute)
	off := code(now)
	if _, err := m.Users.SignInCode(ctx, mustCodeToken(t, m), off); err != nil {
		t.Fatal(err)
	}
	if err := m.Users.DisableTOTP(asAna, u.ID, off); core.ErrorCode(err) != core.CodeInvalid {
		t.Fatalf("disable with a used code: %v", err)
	}
	now = now.Add(30 * time.Second)
	if err := m.Users.DisableTOTP(core.WithActor(ctx, core.System("x")), u.ID, code(now)); core.ErrorCode(err) != core.CodeForbidden {
		t.Fatalf("disable by someone else: %v", err)
	}
	if err := m.Users.DisableTOTP(asAna, u.ID, code(now)); err != nil {
		t.Fatalf("disable: %v", err)
	}
	if res, err := m.Users.SignIn(ctx, "ana@example.com", "correct horse battery"); err != nil || res.User == nil {
		t.Fatalf("sign in after TOTP is off: %+v %v", res, err)
	}

	page, err := m.AuditLog.AuditEntries(asAna, org.ID, identity.AuditQuery{}, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range page.Entries {
		if strings.HasPrefix(e.Action, "user.totp") {
			got = append(got, e.Action+" by "+e.ActorName)
		}
	}
	if strings.Join(got, ", ") != "user.totp_disable by Ana, user.totp_enable by Ana" {
		t.Fatalf("audit: %v", got)
	}
}

func mustCodeToken(t *testing.T, m *testCore) string {
	t.Helper()
	res, err := m.Users.SignIn(ctx, "ana@example.com", "correct horse battery")
	if err != nil || res.CodeToken == "" {
		t.Fatalf("password step: %+v %v", res, err)
	}
	return res.CodeToken
}

// TestTOTPRecovery: turning two-step sign-in on gives ten recovery codes, stored only as
// argon2id hashes; each signs in once in place of the authenticator's code (typed in any
// case, with or without its hyphen); new codes need a current code and replace the old; an
// owner or admin resets a member's second factor (not an owner's, for an admin), which
// removes the codes; every step is in the audit log; turning it off removes the codes.
func TestTOTPRecovery(t *testing.T) {
	now := time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC)
	m, _, _ := newCoreAt(t, func() time.Time { return now })
	store := m.store
	org, _ := m.Orgs.CreateOrganization(ctx, "acme")
	cli := core.WithActor(ctx, core.System("consentd user create"))
	u, err := m.Users.CreateMember(cli, org.ID, "ana@example.com", "Ana", "correct horse battery", core.RoleEditor)
	if err != nil {
		t.Fatal(err)
	}
	owner, _ := m.Users.CreateMember(cli, org.ID, "olga@example.com", "Olga", "correct horse battery", core.RoleOwner)
	admin, _ := m.Users.CreateMember(cli, org.ID, "adam@example.com", "Adam", "correct horse battery", core.RoleAdmin)
	viewer, _ := m.Users.CreateMember(cli, org.ID, "vic@example.com", "Vic", "correct horse battery", core.RoleViewer)
	as := func(id string) context.Context {
		a, err := m.Users.UserActor(ctx, id, org.ID)
		if err != nil {
			t.Fatal(err)
		}
		return core.WithActor(ctx, a)
	}
	enable := func(id string) (string, []string) {
		t.Helper()
		setup, err := m.Users.NewTOTP(as(id), id, "")
		if err != nil {
			t.Fatal(err)
		}
		c, _ := identity.TOTPCode(setup.Secret, now)
		codes, err := m.Users.EnableTOTP(as(id), id, setup.Secret, c)
		if err != nil {
			t.Fatal(err)
		}
		return setup.Secret, codes
	}
	secret, codes := enable(u.ID)
	seen := map[string]bool{}
	for _, c := range codes {
		if len(c) != 11 || c[5] != '-' || seen[c] {
			t.Fatalf("recovery codes %q", codes)
		}
		seen[c] = true
	}
	stored, _ := store.RecoveryCodes(ctx, u.ID)
	for _, s := range stored {
		if !strings.HasPrefix(s.Hash, "$argon2id$") || strings.Contains(s.Hash, codes[0][:5]) {
			t.Fatalf("a stored code is not an argon2id hash: %+v", s)
		}
	}
	if n, _ := m.Users.RecoveryCodesLeft(as(u.ID), u.ID); n != identity.RecoveryCodeCount {
		t.Fatalf("codes left: %d", n)
	}
	codeStep := func() string { return mustCodeTokenOf(t, m, "ana@example.com") }
	// A recovery code signs in once, typed in upper case without its hyphen too.
	typed := strings.ToUpper(strings.ReplaceAll(codes[3], "-", ""))
	res, err := m.Users.SignInCode(ctx, codeStep(), typed)
	if err != nil || res.User.ID != u.ID || res.RecoveryCodesLeft == nil || *res.RecoveryCodesLeft != identity.RecoveryCodeCount-1 {
		t.Fatalf("sign in with a recovery code: %+v %v", res, err)
	}
	if _, err := m.Users.SignInCode(ctx, codeStep(), codes[3]); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("a used recovery code again: %v", err)
	}
	if _, err := m.Users.SignInCode(ctx, codeStep(), "abcde-fghij"); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("a made-up recovery code: %v", err)
	}
	// An authenticator code still works and reports no recovery.
	now = now.Add(time.Minute)
	c, _ := identity.TOTPCode(secret, now)
	if res, err := m.Users.SignInCode(ctx, codeStep(), c); err != nil || res.RecoveryCodesLeft != nil {
		t.Fatalf("sign in with the authenticator: %+v %v", res, err)
	}
	// New codes need a current, unused code, and replace the old ones.
	if _, err := m.Users.NewRecoveryCodes(as(u.ID), u.ID, c); core.ErrorCode(err) != core.CodeInvalid {
		t.Fatalf("new codes with a used code: %v", err)
	}
	now = now.Add(time.Minute)
	c, _ = identity.TOTPCode(secret, now)
	fresh, err := m.Users.NewRecoveryCodes(as(u.ID), u.ID, c)
	if err != nil || len(fresh) != identity.RecoveryCodeCount {
		t.Fatalf("new codes: %v %v", fresh, err)
	}
	if _, err := m.Users.SignInCode(ctx, codeStep(), codes[4]); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("an old code after new ones: %v", err)
	}
	if _, err := m.Users.SignInCode(ctx, codeStep(), fresh[0]); err != nil {
		t.Fatalf("a new code: %v", err)
	}

	// Resetting: a viewer may not; an admin may not reset an owner's; an admin resets a
	// member's, which removes their codes; the password alone then signs in.
	enable(owner.ID)
	if err := m.Users.ResetMemberTOTP(as(viewer.ID), org.ID, u.ID); core.ErrorCode(err) != core.CodeForbidden {
		t.Fatalf("a viewer resets: %v", err)
	}
	if err := m.Users.ResetMemberTOTP(as(admin.ID), org.ID, owner.ID); core.ErrorCode(err) != core.CodeForbidden {
		t.Fatalf("an admin resets an owner: %v", err)
	}
	if err := m.Users.ResetMemberTOTP(as(admin.ID), org.ID, viewer.ID); core.ErrorCode(err) != core.CodeConflict {
		t.Fatalf("resetting a member without two-step sign-in: %v", err)
	}
	other, _ := m.Orgs.CreateOrganization(ctx, "other")
	if err := m.Users.ResetMemberTOTP(as(admin.ID), other.ID, u.ID); core.ErrorCode(err) != core.CodeNotFound {
		t.Fatalf("resetting in another organization: %v", err)
	}
	if err := m.Users.ResetMemberTOTP(as(admin.ID), org.ID, u.ID); err != nil {
		t.Fatalf("an admin resets a member: %v", err)
	}
	if res, err := m.Users.SignIn(ctx, "ana@example.com", "correct horse battery"); err != nil || res.User == nil {
		t.Fatalf("sign in after a reset: %+v %v", res, err)
	}
	if cs, _ := store.RecoveryCodes(ctx, u.ID); len(cs) != 0 {
		t.Fatalf("codes after a reset: %d", len(cs))
	}
	if err := m.Users.ResetMemberTOTP(as(owner.ID), org.ID, admin.ID); core.ErrorCode(err) != core.CodeConflict {
		t.Fatalf("an owner resets an admin without a factor: %v", err)
	}
	// Turning it off removes the codes too.
	now = now.Add(time.Minute)
	oc, _ := identity.TOTPCode(ownerSecret(t, store, owner.ID), now)
	if err := m.Users.DisableTOTP(as(owner.ID), owner.ID, oc); err != nil {
		t.Fatal(err)
	}
	if cs, _ := store.RecoveryCodes(ctx, owner.ID); len(cs) != 0 {
		t.Fatalf("codes after turning it off: %d", len(cs))
	}

	page, err := m.AuditLog.AuditEntries(as(owner.ID), org.ID, identity.AuditQuery{}, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range page.Entries {
		if strings.HasPrefix(e.Action, "user.totp") {
			got = append(got, e.Action+" by "+e.ActorName+" "+string(e.Changes[0].Old)+">"+string(e.Changes[0].New))
		}
	}
	want := "user.totp_disable by Olga true>false, user.totp_reset by Adam true>false, user.totp_enable by Olga false>true, " +
		"user.totp_recovery_use by Ana 10>9, user.totp_recovery_codes by Ana 9>10, user.totp_recovery_use by Ana 10>9, user.totp_enable by Ana false>true"
	if strings.Join(got, ", ") != want {
		t.Fatalf("audit:\n got %s\nwant %s", strings.Join(got, ", "), want)
	}
}

func mustCodeTokenOf(t *testing.T, m *testCore, email string) string {
	t.Helper()
	res, err := m.Users.SignIn(ctx, email, "correct horse battery")
	if err != nil || res.CodeToken == "" {
		t.Fatalf("password step: %+v %v", res, err)
	}
	return res.CodeToken
}

func ownerSecret(t *testing.T, store usecases.Store, id string) string {
	t.Helper()
	u, err := store.User(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return u.TOTPSecret
}
