package core_test

import (
	"context"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// TestMembers: an owner invites a colleague; the link works once; the colleague signs in
// with the chosen password, belongs to both organizations (an agency) with their roles; the
// last owner cannot leave or be demoted; removing a member ends their sessions at once.
func TestMembers(t *testing.T) {
	m, _, _ := newCore(t)
	agency, _ := m.Orgs.CreateOrganization(ctx, "agency")
	client, _ := m.Orgs.CreateOrganization(ctx, "client")
	cli := core.WithActor(ctx, core.System("consentd user create"))
	owner, err := m.Users.CreateMember(cli, agency.ID, "Owner@Example.com", "Olga", "correct horse battery", core.RoleOwner)
	if err != nil || owner.Email != "owner@example.com" {
		t.Fatalf("create owner: %+v %v", owner, err)
	}
	if _, err := m.Users.CreateMember(cli, client.ID, "owner@example.com", "", "", core.RoleOwner); err != nil {
		t.Fatal(err)
	}
	oa, err := m.Users.UserActor(ctx, owner.ID, agency.ID)
	if err != nil || oa.Role != core.RoleOwner || oa.Name != "Olga" {
		t.Fatalf("owner actor: %+v %v", oa, err)
	}
	asOwner := core.WithActor(ctx, oa)
	link, err := m.Users.Invite(asOwner, agency.ID, "ed@example.com", core.RoleEditor)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Users.AcceptInvitation(ctx, link, "", "Ed", "short"); core.ErrorCode(err) != core.CodeInvalid {
		t.Fatalf("short password: %v", err)
	}
	if email, err := m.Users.AcceptInvitation(ctx, link, "", "Ed", "a long enough password"); err != nil || email != "ed@example.com" {
		t.Fatalf("accept: %q %v", email, err)
	}
	signedIn, err := m.Users.SignIn(ctx, "ed@example.com", "a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	ed := signedIn.User
	// The form again, with another password: the same answer, and the account is unchanged.
	if email, err := m.Users.AcceptInvitation(ctx, link, "", "Eve", "another long password"); err != nil || email != "ed@example.com" {
		t.Fatalf("the form again: %q %v", email, err)
	}
	if _, err := m.Users.SignIn(ctx, "ed@example.com", "another long password"); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("the second form set the password: %v", err)
	}
	if org, err := m.Users.JoinInvitation(asPerson(ed.ID), link, ed.ID); err != nil || org != agency.ID {
		t.Fatalf("join: %q %v", org, err)
	}
	if _, err := m.Users.JoinInvitation(asPerson(ed.ID), link, ed.ID); core.ErrorCode(err) != core.CodeNotFound {
		t.Fatalf("second use of the link: %v", err)
	}
	if _, err := m.Users.SignIn(ctx, "ed@example.com", "wrong password!"); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("wrong password: %v", err)
	}
	if _, err := m.Users.SignIn(ctx, "nobody@example.com", "a long enough password"); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("unknown email: %v", err)
	}
	res, err := m.Users.SignIn(ctx, "ED@example.com", "a long enough password")
	if err != nil || res.User.ID != ed.ID || len(res.Memberships) != 1 || res.Memberships[0].Role != core.RoleEditor ||
		res.Memberships[0].OrgName != "agency" || res.CodeToken != "" {
		t.Fatalf("sign in: %+v %v", res, err)
	}
	if res, _ := m.Users.SignIn(ctx, "owner@example.com", "correct horse battery"); len(res.Memberships) != 2 {
		t.Fatalf("the owner belongs to %d organizations, want 2", len(res.Memberships))
	}
	ea, _ := m.Users.UserActor(ctx, ed.ID, agency.ID)
	if _, err := m.Users.Invite(core.WithActor(ctx, ea), agency.ID, "x@example.com", core.RoleOwner); core.ErrorCode(err) != core.CodeForbidden {
		t.Fatalf("editor invites: %v", err)
	}
	if err := m.Users.ChangeRole(asOwner, agency.ID, owner.ID, core.RoleAdmin); core.ErrorCode(err) != core.CodeConflict {
		t.Fatalf("demote the last owner: %v", err)
	}
	if err := m.Users.RemoveMember(asOwner, agency.ID, owner.ID); core.ErrorCode(err) != core.CodeConflict {
		t.Fatalf("last owner leaves: %v", err)
	}
	tok, _, err := m.Sessions.StartSession(ctx, identity.SessionStart{OrgID: agency.ID, UserID: ed.ID}, identity.SessionTTL)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Users.RemoveMember(asOwner, agency.ID, ed.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Sessions.ResumeSession(ctx, tok, identity.SessionIdle); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("the removed member's session: %v", err)
	}
	if _, err := m.Users.UserActor(ctx, ed.ID, agency.ID); core.ErrorCode(err) != core.CodeUnauthorized {
		t.Fatalf("removed member's actor: %v", err)
	}
	p, _ := m.AuditLog.AuditEntries(asOwner, agency.ID, identity.AuditQuery{}, "")
	var acts []string
	for _, e := range p.Entries {
		acts = append(acts, e.Action+"/"+e.ActorName)
	}
	if got := strings.Join(acts, " "); got != "member.remove/Olga member.join/Ed member.invite/Olga member.join/consentd user create" {
		t.Fatalf("audit: %s", got)
	}
	// A reset link sets a new password once.
	reset, err := m.Users.ResetLink(cli, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Users.ResetPassword(ctx, reset, "a brand new password"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Users.SignIn(ctx, "owner@example.com", "a brand new password"); err != nil {
		t.Fatalf("sign in with the new password: %v", err)
	}
	if _, err := m.Users.ResetPassword(ctx, reset, "another new password"); core.ErrorCode(err) != core.CodeNotFound {
		t.Fatalf("reset link reused: %v", err)
	}
}

func TestPasswordHash(t *testing.T) {
	h := identity.HashPassword("correct horse battery")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=1024,t=1,p=2$") || !identity.CheckPassword(h, "correct horse battery") ||
		identity.CheckPassword(h, "correct horse batterz") || identity.CheckPassword("$argon2id$v=19$m=1,t=1,p=1$$", "x") {
		t.Fatalf("hash %s", h)
	}
	if identity.HashPassword("same") == identity.HashPassword("same") {
		t.Fatal("no salt")
	}
}

// TestInvitationExistingAccount: an owner of another organization invites the email of an
// admin of the first. The invitation form never checks that account's password, never joins
// it nor uses the link up, and answers exactly as for an email without an account; only the
// admin, signed in, joins with it; another signed-in user is refused and the link still works.
func TestInvitationExistingAccount(t *testing.T) {
	m, _, _ := newCore(t)
	a, _ := m.Orgs.CreateOrganization(ctx, "a")
	b, _ := m.Orgs.CreateOrganization(ctx, "b")
	cli := core.WithActor(ctx, core.System("consentd user create"))
	ana, err := m.Users.CreateMember(cli, a.ID, "ana@example.com", "Ana", "anas own password", core.RoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := m.Users.CreateMember(cli, b.ID, "bob@example.com", "Bob", "bobs own password", core.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	ba, _ := m.Users.UserActor(ctx, bob.ID, b.ID)
	asBob := core.WithActor(ctx, ba)
	forAna, err := m.Users.Invite(asBob, b.ID, "ana@example.com", core.RoleViewer)
	if err != nil {
		t.Fatal(err)
	}
	forNew, err := m.Users.Invite(asBob, b.ID, "new@example.com", core.RoleViewer)
	if err != nil {
		t.Fatal(err)
	}
	for _, pw := range []string{"a wrong password", "anas own password"} {
		email, err := m.Users.AcceptInvitation(ctx, forAna, "", "X", pw)
		if err != nil || email != "ana@example.com" {
			t.Fatalf("form for an existing account with %q: %q %v", pw, email, err)
		}
	}
	if email, err := m.Users.AcceptInvitation(ctx, forNew, "", "X", "a wrong password"); err != nil || email != "new@example.com" {
		t.Fatalf("form for a new email: %q %v", email, err)
	}
	// Bad input is refused alike.
	for _, link := range []string{forAna, forNew} {
		if _, err := m.Users.AcceptInvitation(ctx, link, "", "X", "short"); core.ErrorCode(err) != core.CodeInvalid {
			t.Fatalf("short password: %v", err)
		}
	}
	if ms, _ := m.Users.Memberships(ctx, ana.ID); len(ms) != 1 {
		t.Fatalf("the form made Ana a member of %d organizations", len(ms))
	}
	if _, err := m.Users.Invitation(ctx, forAna); err != nil {
		t.Fatalf("the form used the link up: %v", err)
	}
	if _, err := m.Users.SignIn(ctx, "ana@example.com", "anas own password"); err != nil {
		t.Fatalf("Ana's password changed: %v", err)
	}
	if _, err := m.Users.JoinInvitation(asPerson(bob.ID), forAna, bob.ID); core.ErrorCode(err) != core.CodeForbidden {
		t.Fatalf("Bob joins with Ana's invitation: %v", err)
	}
	if org, err := m.Users.JoinInvitation(asPerson(ana.ID), forAna, ana.ID); err != nil || org != b.ID {
		t.Fatalf("Ana joins: %q %v", org, err)
	}
	if ms, _ := m.Users.Memberships(ctx, ana.ID); len(ms) != 2 {
		t.Fatalf("Ana belongs to %d organizations after joining", len(ms))
	}
}

// asPerson is the context of the person userID, signed in to the console.
func asPerson(userID string) context.Context {
	return core.WithActor(ctx, &core.Actor{Kind: core.ActorUser, ID: userID})
}
