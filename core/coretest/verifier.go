package coretest

import (
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/core/verifier"
)

// testVerifierCredentials: a credential is found by its token hash as stored, expired ones go,
// and a deleted site takes its credentials with it.
func testVerifierCredentials(t *testing.T, s usecases.Store) {
	f := seed(t, s)
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	fresh := &verifier.Credential{TokenHash: "h-fresh", SiteID: f.site.ID, ProjectKey: f.site.ProjectKey, ExpiresAt: at.Add(time.Hour)}
	old := &verifier.Credential{TokenHash: "h-old", SiteID: f.site.ID, ProjectKey: f.site.ProjectKey, ExpiresAt: at.Add(-time.Minute)}
	must(t, s.CreateVerifierCredential(ctx, fresh))
	must(t, s.CreateVerifierCredential(ctx, old))
	got, err := s.VerifierCredential(ctx, "h-fresh")
	must(t, err)
	if *got != *fresh {
		t.Fatalf("VerifierCredential = %+v, want %+v", got, fresh)
	}
	if _, err := s.VerifierCredential(ctx, "h-none"); !core.IsNotFound(err) {
		t.Fatalf("unknown hash: %v, want not_found", err)
	}
	must(t, s.DeleteVerifierCredentialsBefore(ctx, at))
	if _, err := s.VerifierCredential(ctx, "h-old"); !core.IsNotFound(err) {
		t.Fatalf("expired credential kept: %v", err)
	}
	must(t, s.DeleteSite(ctx, f.site.ID))
	if _, err := s.VerifierCredential(ctx, "h-fresh"); !core.IsNotFound(err) {
		t.Fatalf("credential of a deleted site: %v", err)
	}
}
