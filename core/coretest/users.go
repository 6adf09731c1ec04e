package coretest

import (
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
)

// testUsers: users are unique by email and by OpenID subject, memberships list with names
// per user and per organization, change role in place, and go; one-time tokens are used once.
func testUsers(t *testing.T, s usecases.Store) {
	a := &identity.Organization{ID: id(), Name: "agency", CreatedAt: now()}
	b := &identity.Organization{ID: id(), Name: "client", CreatedAt: now()}
	must(t, s.CreateOrganization(ctx, a))
	must(t, s.CreateOrganization(ctx, b))
	u := &identity.User{ID: id(), Email: "ana@example.com", Name: "Ana", PasswordHash: "$argon2id$x", CreatedAt: now()}
	must(t, s.CreateUser(ctx, u))
	wantCode(t, s.CreateUser(ctx, &identity.User{ID: id(), Email: u.Email, CreatedAt: now()}), core.CodeConflict)
	sso := &identity.User{ID: id(), Email: "bo@example.com", Issuer: "https://idp.example", Subject: "42", CreatedAt: now()}
	must(t, s.CreateUser(ctx, sso))
	wantCode(t, s.CreateUser(ctx, &identity.User{ID: id(), Email: "c@example.com", Issuer: sso.Issuer, Subject: "42", CreatedAt: now()}), core.CodeConflict)
	if n, err := s.CountUsers(ctx); err != nil || n != 2 {
		t.Fatalf("CountUsers: %d %v", n, err)
	}
	got, err := s.UserByEmail(ctx, "ana@example.com")
	must(t, err)
	if got.ID != u.ID || got.Name != "Ana" || got.PasswordHash != u.PasswordHash || !got.CreatedAt.Equal(u.CreatedAt) {
		t.Fatalf("UserByEmail: %+v", got)
	}
	if got, err := s.UserBySubject(ctx, sso.Issuer, "42"); err != nil || got.ID != sso.ID {
		t.Fatalf("UserBySubject: %+v %v", got, err)
	}
	_, err = s.UserBySubject(ctx, sso.Issuer, "")
	wantCode(t, err, core.CodeNotFound)
	_, err = s.User(ctx, id())
	wantCode(t, err, core.CodeNotFound)
	must(t, s.SetUserPassword(ctx, u.ID, "$argon2id$y"))
	must(t, s.SetUserSubject(ctx, u.ID, "https://idp.example", "7"))
	if got, _ := s.User(ctx, u.ID); got.PasswordHash != "$argon2id$y" || got.Subject != "7" {
		t.Fatalf("after updates: %+v", got)
	}
	// The second factor: a secret and its last used time step; a step not after it is refused.
	must(t, s.SetUserTOTP(ctx, u.ID, "JBSWY3DPEHPK3PXP", 100))
	if got, _ := s.UserByEmail(ctx, u.Email); got.TOTPSecret != "JBSWY3DPEHPK3PXP" || got.TOTPStep != 100 {
		t.Fatalf("after SetUserTOTP: %+v", got)
	}
	wantCode(t, s.UseTOTPStep(ctx, u.ID, 100), core.CodeConflict)
	wantCode(t, s.UseTOTPStep(ctx, u.ID, 99), core.CodeConflict)
	must(t, s.UseTOTPStep(ctx, u.ID, 101))
	wantCode(t, s.UseTOTPStep(ctx, u.ID, 101), core.CodeConflict)
	wantCode(t, s.UseTOTPStep(ctx, id(), 500), core.CodeNotFound)
	wantCode(t, s.SetUserTOTP(ctx, id(), "X", 1), core.CodeNotFound)
	if got, _ := s.User(ctx, u.ID); got.TOTPStep != 101 {
		t.Fatalf("after UseTOTPStep: %+v", got)
	}
	must(t, s.SetUserTOTP(ctx, u.ID, "", 0))
	if got, _ := s.User(ctx, u.ID); got.TOTPSecret != "" || got.TOTPStep != 0 {
		t.Fatalf("after turning TOTP off: %+v", got)
	}

	t0 := now()
	must(t, s.PutMembership(ctx, &identity.Membership{OrgID: a.ID, UserID: u.ID, Role: core.RoleOwner, CreatedAt: t0}))
	must(t, s.PutMembership(ctx, &identity.Membership{OrgID: b.ID, UserID: u.ID, Role: core.RoleEditor, CreatedAt: t0.Add(time.Second)}))
	must(t, s.PutMembership(ctx, &identity.Membership{OrgID: a.ID, UserID: sso.ID, Role: core.RoleViewer, CreatedAt: t0.Add(time.Second)}))
	wantCode(t, s.PutMembership(ctx, &identity.Membership{OrgID: a.ID, UserID: id(), Role: core.RoleViewer, CreatedAt: t0}), core.CodeNotFound)
	ms, err := s.Memberships(ctx, u.ID)
	must(t, err)
	if len(ms) != 2 || ms[0].OrgID != a.ID || ms[0].OrgName != "agency" || ms[0].Role != core.RoleOwner || ms[1].Role != core.RoleEditor || ms[0].Email != u.Email {
		t.Fatalf("Memberships: %+v", ms)
	}
	must(t, s.PutMembership(ctx, &identity.Membership{OrgID: a.ID, UserID: sso.ID, Role: core.RoleAdmin, CreatedAt: t0.Add(time.Hour)}))
	members, err := s.Members(ctx, a.ID)
	must(t, err)
	if len(members) != 2 || members[1].UserID != sso.ID || members[1].Role != core.RoleAdmin || !members[1].CreatedAt.Equal(t0.Add(time.Second)) {
		t.Fatalf("Members after a role change: %+v", members)
	}
	must(t, s.DeleteMembership(ctx, a.ID, sso.ID))
	wantCode(t, s.DeleteMembership(ctx, a.ID, sso.ID), core.CodeNotFound)
	_, err = s.Membership(ctx, a.ID, sso.ID)
	wantCode(t, err, core.CodeNotFound)

	tok := &identity.OneTimeToken{ID: identity.SessionID("invite"), Kind: identity.TokenInvite, OrgID: a.ID, Email: "new@example.com",
		Role: core.RoleEditor, CreatedBy: "Ana", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	must(t, s.CreateToken(ctx, tok))
	reset := &identity.OneTimeToken{ID: identity.SessionID("reset"), Kind: identity.TokenReset, Email: u.Email, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	must(t, s.CreateToken(ctx, reset))
	got2, err := s.Token(ctx, tok.ID)
	must(t, err)
	if got2.OrgID != a.ID || got2.Role != core.RoleEditor || got2.Email != tok.Email || got2.UsedAt != nil || !got2.ExpiresAt.Equal(tok.ExpiresAt) {
		t.Fatalf("Token: %+v", got2)
	}
	must(t, s.UseToken(ctx, tok.ID, t0))
	wantCode(t, s.UseToken(ctx, tok.ID, t0), core.CodeConflict)
	wantCode(t, s.UseToken(ctx, identity.SessionID("nope"), t0), core.CodeConflict)
	if got, _ := s.Token(ctx, tok.ID); got.UsedAt == nil || !got.UsedAt.Equal(t0) {
		t.Fatalf("used token: %+v", got)
	}
	if got, _ := s.Token(ctx, reset.ID); got.OrgID != "" || got.Kind != identity.TokenReset {
		t.Fatalf("reset token: %+v", got)
	}
}
