package coretest

import (
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
)

// testRecoveryCodes: a user's recovery codes are replaced as a set, listed oldest first with
// their use, used once each (a second use and an unknown code are conflicts), and removed.
func testRecoveryCodes(t *testing.T, s usecases.Store) {
	u := &identity.User{ID: id(), Email: "rc@example.com", CreatedAt: now()}
	other := &identity.User{ID: id(), Email: "other@example.com", CreatedAt: now()}
	must(t, s.CreateUser(ctx, u))
	must(t, s.CreateUser(ctx, other))
	if cs, err := s.RecoveryCodes(ctx, u.ID); err != nil || len(cs) != 0 {
		t.Fatalf("RecoveryCodes of none: %v %v", cs, err)
	}
	t0 := now()
	mk := func(user string, n int, at time.Time) []*identity.RecoveryCode {
		var out []*identity.RecoveryCode
		for i := range n {
			out = append(out, &identity.RecoveryCode{ID: id(), UserID: user, Prefix: string(rune('a' + i)), Hash: "$argon2id$" + string(rune('a'+i)),
				CreatedAt: at.Add(time.Duration(i) * time.Millisecond)})
		}
		return out
	}
	first := mk(u.ID, 3, t0)
	must(t, s.ReplaceRecoveryCodes(ctx, u.ID, first))
	must(t, s.ReplaceRecoveryCodes(ctx, other.ID, mk(other.ID, 2, t0)))
	wantCode(t, s.ReplaceRecoveryCodes(ctx, id(), mk(u.ID, 1, t0)), core.CodeNotFound)
	cs, err := s.RecoveryCodes(ctx, u.ID)
	must(t, err)
	if len(cs) != 3 || cs[0].ID != first[0].ID || cs[2].Prefix != "c" || cs[1].Hash != "$argon2id$b" || cs[0].UsedAt != nil ||
		!cs[0].CreatedAt.Equal(first[0].CreatedAt) {
		t.Fatalf("RecoveryCodes: %+v", cs)
	}
	at := t0.Add(time.Minute)
	must(t, s.UseRecoveryCode(ctx, first[1].ID, at))
	wantCode(t, s.UseRecoveryCode(ctx, first[1].ID, at), core.CodeConflict)
	wantCode(t, s.UseRecoveryCode(ctx, id(), at), core.CodeConflict)
	cs, _ = s.RecoveryCodes(ctx, u.ID)
	if cs[1].UsedAt == nil || !cs[1].UsedAt.Equal(at) || cs[0].UsedAt != nil || cs[2].UsedAt != nil {
		t.Fatalf("after a use: %+v %+v %+v", cs[0], cs[1], cs[2])
	}
	// A new set replaces the old, used codes too.
	second := mk(u.ID, 2, t0.Add(time.Hour))
	must(t, s.ReplaceRecoveryCodes(ctx, u.ID, second))
	cs, _ = s.RecoveryCodes(ctx, u.ID)
	if len(cs) != 2 || cs[0].ID != second[0].ID {
		t.Fatalf("after a replacement: %+v", cs)
	}
	wantCode(t, s.UseRecoveryCode(ctx, first[0].ID, at), core.CodeConflict)
	must(t, s.ReplaceRecoveryCodes(ctx, u.ID, nil))
	if cs, _ := s.RecoveryCodes(ctx, u.ID); len(cs) != 0 {
		t.Fatalf("after removal: %+v", cs)
	}
	if cs, _ := s.RecoveryCodes(ctx, other.ID); len(cs) != 2 {
		t.Fatalf("the other user's codes: %+v", cs)
	}
	// Memberships say who has two-step sign-in on.
	org := &identity.Organization{ID: id(), Name: "rc", CreatedAt: now()}
	must(t, s.CreateOrganization(ctx, org))
	must(t, s.PutMembership(ctx, &identity.Membership{OrgID: org.ID, UserID: u.ID, Role: core.RoleViewer, CreatedAt: t0}))
	must(t, s.PutMembership(ctx, &identity.Membership{OrgID: org.ID, UserID: other.ID, Role: core.RoleViewer, CreatedAt: t0.Add(time.Second)}))
	must(t, s.SetUserTOTP(ctx, u.ID, "JBSWY3DPEHPK3PXP", 1))
	ms, err := s.Members(ctx, org.ID)
	must(t, err)
	if len(ms) != 2 || !ms[0].TOTP || ms[1].TOTP {
		t.Fatalf("Members' TOTP: %+v %+v", ms[0], ms[1])
	}
	if m, err := s.Membership(ctx, org.ID, u.ID); err != nil || !m.TOTP {
		t.Fatalf("Membership's TOTP: %+v %v", m, err)
	}
}
