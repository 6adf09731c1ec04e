package coretest

import (
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
)

// testAPIKeys: keys are listed per organization with their prefix and times, found, expired,
// touched and deleted only within their organization.
func testAPIKeys(t *testing.T, s usecases.Store) {
	a := &identity.Organization{ID: id(), Name: "a", CreatedAt: now()}
	b := &identity.Organization{ID: id(), Name: "b", CreatedAt: now()}
	must(t, s.CreateOrganization(ctx, a))
	must(t, s.CreateOrganization(ctx, b))
	k1 := &identity.APIKey{ID: id(), OrganizationID: a.ID, Name: "ci", Prefix: "cd_abcdefgh", Hash: identity.HashAPIKey("k1-k1-k1-k1-k1-k1"), CreatedAt: now()}
	k2 := &identity.APIKey{ID: id(), OrganizationID: a.ID, Name: "deploy", Prefix: "cd_ijklmnop", Hash: identity.HashAPIKey("k2-k2-k2-k2-k2-k2"), CreatedAt: now().Add(time.Second)}
	kb := &identity.APIKey{ID: id(), OrganizationID: b.ID, Name: "other", Hash: identity.HashAPIKey("kb-kb-kb-kb-kb-kb"), CreatedAt: now(),
		Role: core.RoleEditor, SiteIDs: []string{"00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000002"}}
	k1.Role, k2.Role, k2.SiteIDs = core.RoleOwner, core.RoleViewer, []string{}
	for _, k := range []*identity.APIKey{k2, k1, kb} {
		must(t, s.CreateAPIKey(ctx, k))
	}
	list, err := s.APIKeys(ctx, a.ID)
	must(t, err)
	if len(list) != 2 || list[0].ID != k1.ID || list[1].ID != k2.ID {
		t.Fatalf("APIKeys(a): %+v, want k1 then k2", list)
	}
	if list[0].Prefix != "cd_abcdefgh" || list[0].Name != "ci" || !list[0].CreatedAt.Equal(k1.CreatedAt) ||
		list[0].LastUsedAt != nil || list[0].ExpiresAt != nil {
		t.Fatalf("APIKeys(a)[0] round trip: %+v", list[0])
	}
	if list[0].Role != core.RoleOwner || list[0].SiteIDs != nil || list[1].Role != core.RoleViewer ||
		list[1].SiteIDs == nil || len(list[1].SiteIDs) != 0 {
		t.Fatalf("roles and sites round trip: %+v %+v", list[0], list[1])
	}
	if got, err := s.APIKeyByHash(ctx, kb.Hash); err != nil || got.Role != core.RoleEditor || len(got.SiteIDs) != 2 ||
		got.SiteIDs[0] != kb.SiteIDs[0] || got.SiteIDs[1] != kb.SiteIDs[1] {
		t.Fatalf("APIKeyByHash(kb): %+v %v, want editor limited to two sites", got, err)
	}
	if list, err := s.APIKeys(ctx, id()); err != nil || len(list) != 0 {
		t.Fatalf("APIKeys(unknown org): %v %v", list, err)
	}

	_, err = s.APIKey(ctx, b.ID, k1.ID)
	wantCode(t, err, core.CodeNotFound)
	wantCode(t, s.DeleteAPIKey(ctx, b.ID, k1.ID), core.CodeNotFound)
	wantCode(t, s.ExpireAPIKey(ctx, b.ID, k1.ID, now()), core.CodeNotFound)
	wantCode(t, s.TouchAPIKey(ctx, id(), now()), core.CodeNotFound)

	used, until := now().Add(time.Minute), now().Add(time.Hour)
	must(t, s.TouchAPIKey(ctx, k1.ID, used))
	must(t, s.ExpireAPIKey(ctx, a.ID, k1.ID, until))
	got, err := s.APIKey(ctx, a.ID, k1.ID)
	must(t, err)
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(used) || got.ExpiresAt == nil || !got.ExpiresAt.Equal(until) {
		t.Fatalf("after touch and expire: %+v", got)
	}
	byHash, err := s.APIKeyByHash(ctx, k1.Hash)
	must(t, err)
	if byHash.ExpiresAt == nil || !byHash.ExpiresAt.Equal(until) || byHash.LastUsedAt == nil {
		t.Fatalf("APIKeyByHash after touch and expire: %+v", byHash)
	}

	must(t, s.DeleteAPIKey(ctx, a.ID, k1.ID))
	_, err = s.APIKeyByHash(ctx, k1.Hash)
	wantCode(t, err, core.CodeNotFound)
	wantCode(t, s.DeleteAPIKey(ctx, a.ID, k1.ID), core.CodeNotFound)
	if list, _ := s.APIKeys(ctx, a.ID); len(list) != 1 || list[0].ID != k2.ID {
		t.Fatalf("after delete: %+v", list)
	}
}
