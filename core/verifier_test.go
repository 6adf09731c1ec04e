package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/site"
	"github.com/consentd/consentd/core/verifier"
)

// TestVerifierCredential: a credential is valid for the one site it was issued for, until it
// expires; only the system issues one; anything else (another site's, a forged or an expired
// token) is worthless.
func TestVerifierCredential(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)}
	m, _, _ := newCoreAt(t, c.now)
	orgID, s := mustSite(t, m)
	other, err := m.Sites.CreateSite(ctx, orgID, site.SiteInput{Name: ptr("Other"), URL: ptr("https://other.example")})
	if err != nil {
		t.Fatal(err)
	}
	token, exp, err := m.Verifiers.Issue(ctx, s, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(token, verifier.TokenPrefix) || !exp.Equal(c.now().Add(10*time.Minute)) {
		t.Fatalf("token %q expires %v", token, exp)
	}
	if !m.Verifiers.Valid(ctx, token, s.ProjectKey) {
		t.Fatal("a fresh credential is not valid for its site")
	}
	if m.Verifiers.Valid(ctx, token, other.ProjectKey) {
		t.Error("a credential is valid for another site")
	}
	for _, forged := range []string{"", "cdv_", token + "x", strings.TrimPrefix(token, verifier.TokenPrefix), verifier.TokenHash(token)} {
		if m.Verifiers.Valid(ctx, forged, s.ProjectKey) {
			t.Errorf("%q is valid", forged)
		}
	}
	// Only the system issues them.
	member := core.WithActor(ctx, &core.Actor{Kind: core.ActorKey, OrgID: orgID, Role: core.RoleOwner})
	if _, _, err := m.Verifiers.Issue(member, s, 0); core.ErrorCode(err) != core.CodeForbidden {
		t.Errorf("an owner's key issued one: %v", err)
	}
	c.add(10*time.Minute - time.Second)
	if !m.Verifiers.Valid(ctx, token, s.ProjectKey) {
		t.Fatal("expired early")
	}
	c.add(time.Second)
	if m.Verifiers.Valid(ctx, token, s.ProjectKey) {
		t.Error("valid at its expiry")
	}
	// The default life, and the most a credential may live.
	_, exp, _ = m.Verifiers.Issue(ctx, s, 0)
	if got := exp.Sub(c.now()); got != verifier.DefaultTTL {
		t.Errorf("default life %v", got)
	}
	_, exp, _ = m.Verifiers.Issue(ctx, s, 24*time.Hour)
	if got := exp.Sub(c.now()); got != verifier.MaxTTL {
		t.Errorf("longest life %v", got)
	}
}

// TestVerifierDecisionNotStored: a decision posted with a valid credential is answered as a
// visitor's (a receipt with a record hash) and stored nowhere; without one, or with another
// site's, it is stored.
func TestVerifierDecisionNotStored(t *testing.T) {
	m, _, _ := newCore(t)
	orgID, s := mustSite(t, m)
	other, _ := m.Sites.CreateSite(ctx, orgID, site.SiteInput{Name: ptr("Other"), URL: ptr("https://other.example")})
	token, _, err := m.Verifiers.Issue(ctx, s, 0)
	if err != nil {
		t.Fatal(err)
	}
	otherToken, _, _ := m.Verifiers.Issue(ctx, other, 0)
	post := func(tok string) *consent.ConsentRecord {
		t.Helper()
		r, err := m.PublicBanner.RecordConsent(ctx, s.ProjectKey, consent.ConsentInput{Categories: map[string]bool{}, ConsentVersion: 1,
			Action: ptr("reject_all"), VerifierToken: tok})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	count := func() int {
		t.Helper()
		_, n, err := m.ConsentLog.ConsentRecords(ctx, orgID, consent.ConsentQuery{SiteID: s.ID, Page: 1, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for range 3 {
		if r := post(token); r.RecordHash == "" || r.Receipt() == nil {
			t.Fatalf("no receipt: %+v", r)
		}
	}
	if n := count(); n != 0 {
		t.Fatalf("%d records after the verifier's decisions", n)
	}
	post("")
	post(otherToken)
	post("cdv_forged")
	if n := count(); n != 3 {
		t.Fatalf("%d records after three visitors' decisions", n)
	}
}
