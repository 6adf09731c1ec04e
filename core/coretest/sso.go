package coretest

import (
	"slices"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
)

// testSSO: an organization has at most one single sign-on provider; putting it again
// replaces every field but its creation time; it goes away by itself; another organization's
// is separate; an unknown organization is not_found.
func testSSO(t *testing.T, s usecases.Store) {
	a := &identity.Organization{ID: id(), Name: "a", CreatedAt: now()}
	b := &identity.Organization{ID: id(), Name: "b", CreatedAt: now()}
	must(t, s.CreateOrganization(ctx, a))
	must(t, s.CreateOrganization(ctx, b))
	if n, err := s.CountSSOConfigs(ctx); err != nil || n != 0 {
		t.Fatalf("CountSSOConfigs of none: %d %v", n, err)
	}
	_, err := s.SSOConfig(ctx, a.ID)
	wantCode(t, err, core.CodeNotFound)
	t0 := now()
	c := &identity.SSOConfig{OrganizationID: a.ID, Issuer: "https://idp.example/realms/a", ClientID: "consentd", ClientSecret: "s3cret",
		AllowedDomains: []string{"a.example", "b.example"}, DefaultRole: core.RoleEditor, CreatedAt: t0, UpdatedAt: t0}
	must(t, s.PutSSOConfig(ctx, c))
	got, err := s.SSOConfig(ctx, a.ID)
	must(t, err)
	if got.Issuer != c.Issuer || got.ClientID != "consentd" || got.ClientSecret != "s3cret" || !slices.Equal(got.AllowedDomains, c.AllowedDomains) ||
		got.DefaultRole != core.RoleEditor || !got.CreatedAt.Equal(t0) || !got.UpdatedAt.Equal(t0) {
		t.Fatalf("SSOConfig: %+v", got)
	}
	t1 := t0.Add(time.Hour)
	must(t, s.PutSSOConfig(ctx, &identity.SSOConfig{OrganizationID: a.ID, Issuer: "https://login.example", ClientID: "c2", ClientSecret: "other",
		AllowedDomains: []string{"c.example"}, DefaultRole: core.RoleViewer, CreatedAt: t1, UpdatedAt: t1}))
	got, err = s.SSOConfig(ctx, a.ID)
	must(t, err)
	if got.Issuer != "https://login.example" || got.ClientID != "c2" || got.ClientSecret != "other" || !slices.Equal(got.AllowedDomains, []string{"c.example"}) ||
		got.DefaultRole != core.RoleViewer || !got.CreatedAt.Equal(t0) || !got.UpdatedAt.Equal(t1) {
		t.Fatalf("SSOConfig after a replacement: %+v", got)
	}
	_, err = s.SSOConfig(ctx, b.ID)
	wantCode(t, err, core.CodeNotFound)
	wantCode(t, s.PutSSOConfig(ctx, &identity.SSOConfig{OrganizationID: id(), Issuer: "https://x.example", ClientID: "x", ClientSecret: "x",
		AllowedDomains: []string{"x.example"}, DefaultRole: core.RoleViewer, CreatedAt: t0, UpdatedAt: t0}), core.CodeNotFound)
	must(t, s.PutSSOConfig(ctx, &identity.SSOConfig{OrganizationID: b.ID, Issuer: "https://b.example", ClientID: "b", ClientSecret: "b",
		AllowedDomains: []string{"b.example"}, DefaultRole: core.RoleAdmin, CreatedAt: t0, UpdatedAt: t0}))
	if n, err := s.CountSSOConfigs(ctx); err != nil || n != 2 {
		t.Fatalf("CountSSOConfigs: %d %v", n, err)
	}
	must(t, s.DeleteSSOConfig(ctx, a.ID))
	wantCode(t, s.DeleteSSOConfig(ctx, a.ID), core.CodeNotFound)
	_, err = s.SSOConfig(ctx, a.ID)
	wantCode(t, err, core.CodeNotFound)
	if got, err := s.SSOConfig(ctx, b.ID); err != nil || got.ClientID != "b" {
		t.Fatalf("the other organization's provider: %+v %v", got, err)
	}
	// In a transaction that fails, a put is rolled back.
	err = s.InTx(ctx, func(tx usecases.Store) error {
		must(t, tx.PutSSOConfig(ctx, &identity.SSOConfig{OrganizationID: a.ID, Issuer: "https://y.example", ClientID: "y", ClientSecret: "y",
			AllowedDomains: []string{"y.example"}, DefaultRole: core.RoleViewer, CreatedAt: t0, UpdatedAt: t0}))
		return core.Errorf(core.CodeInvalid, "roll back")
	})
	wantCode(t, err, core.CodeInvalid)
	_, err = s.SSOConfig(ctx, a.ID)
	wantCode(t, err, core.CodeNotFound)
}
