package coretest

import (
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
)

// testSessions: sessions round-trip, are listed per organization newest first, touched,
// moved to another key, carry a notice, end one by one, per user and by expiry; sign-in
// failures are counted per key after a time and forgotten before one.
func testSessions(t *testing.T, s usecases.Store) {
	a := &identity.Organization{ID: id(), Name: "a", CreatedAt: now()}
	b := &identity.Organization{ID: id(), Name: "b", CreatedAt: now()}
	must(t, s.CreateOrganization(ctx, a))
	must(t, s.CreateOrganization(ctx, b))
	t0 := now()
	user := id()
	s1 := &identity.Session{ID: identity.SessionID("one"), OrgID: a.ID, UserID: user, CSRF: "c1", UserAgent: "Firefox",
		CreatedAt: t0, SeenAt: t0, ExpiresAt: t0.Add(time.Hour)}
	s2 := &identity.Session{ID: identity.SessionID("two"), OrgID: a.ID, KeyID: id(), CSRF: "c2",
		CreatedAt: t0.Add(time.Second), SeenAt: t0, ExpiresAt: t0.Add(2 * time.Hour)}
	s3 := &identity.Session{ID: identity.SessionID("three"), OrgID: b.ID, UserID: user, CSRF: "c3", CreatedAt: t0, SeenAt: t0, ExpiresAt: t0.Add(time.Minute)}
	for _, x := range []*identity.Session{s1, s2, s3} {
		must(t, s.CreateSession(ctx, x))
	}
	wantCode(t, s.CreateSession(ctx, s1), core.CodeConflict)
	got, err := s.Session(ctx, s1.ID)
	must(t, err)
	if got.OrgID != a.ID || got.UserID != user || got.CSRF != "c1" || got.UserAgent != "Firefox" || !got.CreatedAt.Equal(t0) ||
		!got.ExpiresAt.Equal(s1.ExpiresAt) || got.Flash != "" {
		t.Fatalf("round trip: %+v", got)
	}
	_, err = s.Session(ctx, identity.SessionID("nope"))
	wantCode(t, err, core.CodeNotFound)
	list, err := s.Sessions(ctx, a.ID)
	must(t, err)
	if len(list) != 2 || list[0].ID != s2.ID || list[1].ID != s1.ID {
		t.Fatalf("Sessions(a): %+v", list)
	}
	seen := t0.Add(time.Minute)
	must(t, s.TouchSession(ctx, s1.ID, seen))
	must(t, s.SetSessionKey(ctx, s1.ID, "k2"))
	must(t, s.SetSessionFlash(ctx, s1.ID, "Saved."))
	got, _ = s.Session(ctx, s1.ID)
	if !got.SeenAt.Equal(seen) || got.KeyID != "k2" || got.Flash != "Saved." {
		t.Fatalf("after updates: %+v", got)
	}
	wantCode(t, s.TouchSession(ctx, identity.SessionID("nope"), seen), core.CodeNotFound)
	wantCode(t, s.SetSessionFlash(ctx, identity.SessionID("nope"), "x"), core.CodeNotFound)

	// Ending a user's sessions in one organization leaves the other's.
	n, err := s.DeleteUserSessions(ctx, a.ID, user)
	must(t, err)
	if n != 1 {
		t.Fatalf("DeleteUserSessions: %d, want 1", n)
	}
	if _, err := s.Session(ctx, s3.ID); err != nil {
		t.Fatalf("the other organization's session of the user: %v", err)
	}
	if n, _ := s.DeleteUserSessions(ctx, a.ID, ""); n != 0 {
		t.Fatalf("DeleteUserSessions with no user: %d", n)
	}
	must(t, s.DeleteExpiredSessions(ctx, t0.Add(30*time.Minute)))
	_, err = s.Session(ctx, s3.ID)
	wantCode(t, err, core.CodeNotFound)
	must(t, s.DeleteSession(ctx, s2.ID))
	wantCode(t, s.DeleteSession(ctx, s2.ID), core.CodeNotFound)

	for i := range 3 {
		must(t, s.AddSignInFailure(ctx, "addr:10.0.0.1", t0.Add(time.Duration(i)*time.Minute)))
	}
	must(t, s.AddSignInFailure(ctx, "user:x", t0))
	fs, err := s.SignInFailures(ctx, "addr:10.0.0.1", t0)
	must(t, err)
	if len(fs) != 2 || !fs[0].Equal(t0.Add(time.Minute)) || !fs[1].Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("failures after t0 (exclusive): %v", fs)
	}
	must(t, s.DeleteSignInFailures(ctx, t0.Add(90*time.Second)))
	if fs, _ := s.SignInFailures(ctx, "addr:10.0.0.1", t0.Add(-time.Hour)); len(fs) != 1 {
		t.Fatalf("after forgetting old failures: %v", fs)
	}
	if fs, _ := s.SignInFailures(ctx, "user:x", t0.Add(-time.Hour)); len(fs) != 0 {
		t.Fatalf("another key's old failure kept: %v", fs)
	}
}
