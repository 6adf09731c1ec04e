package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
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
		c, err := core.TOTPCode(setup.Secret, at)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// A code of another time, or garbage, does not enable it.
	for _, bad := range []string{code(now.Add(-2 * time.Minute)), "12345", "abcdef", ""} {
		if err := m.Users.EnableTOTP(asAna, u.ID, setup.Secret, bad); core.ErrorCode(err) != core.CodeInvalid ||
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
	if err := m.Users.EnableTOTP(asAna, u.ID, setup.Secret, enableCode); err != nil {
		t.Fatalf("enable: %v", err)
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
	now = now.Add(core.TOTPSignInTTL)
	if _, err := m.Users.SignInCode(ctx, res2.CodeToken, code(now)); core.ErrorCode(err) != core.CodeUnauthorized ||
		!strings.Contains(core.ErrorMessage(err), "expired") {
		t.Fatalf("expired code step: %v", err)
	}
	if _, err := m.Users.SignInCode(ctx, "", code(now)); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("no code step: %v", err)
	}

	// Turning it off needs a current, unused code.
	if err := m.Users.EnableTOTP(asAna, u.ID, setup.Secret, code(now)); core.ErrorCode(err) != core.CodeConflict {
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

	page, err := m.AuditLog.AuditEntries(asAna, org.ID, core.AuditQuery{}, "")
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
