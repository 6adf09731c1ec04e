package core_test

import (
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/site"
)

// TestRetentionPermission: how long a site's proof is kept is the proof owners' decision
// (owner, admin, privacy). An editor may configure the site but not set consentRetentionDays,
// alone or with other fields, on update or creation; privacy may set it alone but may not
// change the site's other settings with it; nothing changes on a refusal.
func TestRetentionPermission(t *testing.T) {
	m, _, _ := newCore(t)
	sys := core.WithActor(ctx, core.System("test"))
	org, err := m.Orgs.CreateOrganization(sys, "acme")
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Sites.CreateSite(sys, org.ID, site.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
	if err != nil {
		t.Fatal(err)
	}
	as := map[core.Role]func() *core.Actor{}
	for _, r := range core.Roles() {
		_, key, err := m.Orgs.IssueAPIKey(sys, org.ID, identity.APIKeyInput{Name: string(r), Role: r})
		if err != nil {
			t.Fatal(err)
		}
		a, err := m.Orgs.AuthenticateKey(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		as[r] = func() *core.Actor { return a }
	}
	days := func(n int) banner.Optional[int] { return banner.Optional[int]{Set: true, Value: n} }
	cases := []struct {
		role core.Role
		in   site.SiteInput
		want core.Code // "" allowed
	}{
		{core.RoleOwner, site.SiteInput{ConsentRetentionDays: days(30)}, ""},
		{core.RoleAdmin, site.SiteInput{ConsentRetentionDays: days(31), Name: ptr("Shop 2")}, ""},
		{core.RolePrivacy, site.SiteInput{ConsentRetentionDays: days(32)}, ""},
		{core.RolePrivacy, site.SiteInput{ConsentRetentionDays: banner.Optional[int]{Set: true, Null: true}}, ""},
		{core.RolePrivacy, site.SiteInput{ConsentRetentionDays: days(33), Name: ptr("Renamed")}, core.CodeForbidden},
		{core.RolePrivacy, site.SiteInput{Name: ptr("Renamed")}, core.CodeForbidden},
		{core.RoleEditor, site.SiteInput{ConsentRetentionDays: days(1)}, core.CodeForbidden},
		{core.RoleEditor, site.SiteInput{ConsentRetentionDays: banner.Optional[int]{Set: true, Null: true}}, core.CodeForbidden},
		{core.RoleEditor, site.SiteInput{ConsentRetentionDays: days(1), Name: ptr("Renamed")}, core.CodeForbidden},
		{core.RoleEditor, site.SiteInput{Name: ptr("Editor's name")}, ""},
		{core.RoleViewer, site.SiteInput{ConsentRetentionDays: days(1)}, core.CodeForbidden},
	}
	for _, tc := range cases {
		before, err := m.Sites.Site(sys, org.ID, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Sites.UpdateSite(core.WithActor(ctx, as[tc.role]()), org.ID, s.ID, tc.in)
		if got := core.ErrorCode(err); got != tc.want {
			t.Errorf("%s updating %+v: %q (%v), want %q", tc.role, tc.in, got, err, tc.want)
		}
		after, _ := m.Sites.Site(sys, org.ID, s.ID)
		if tc.want != "" && (after.Name != before.Name || !equalDays(after.ConsentRetentionDays, before.ConsentRetentionDays)) {
			t.Errorf("%s: a refused update changed the site: %+v -> %+v", tc.role, before, after)
		}
		if tc.want == "" && tc.in.ConsentRetentionDays.Set && !tc.in.ConsentRetentionDays.Null &&
			(after.ConsentRetentionDays == nil || *after.ConsentRetentionDays != tc.in.ConsentRetentionDays.Value) {
			t.Errorf("%s: retention %v after setting %d", tc.role, after.ConsentRetentionDays, tc.in.ConsentRetentionDays.Value)
		}
	}
	if got := core.RolesAllowing(core.PermRetention); len(got) != 3 || got[0] != core.RoleOwner || got[1] != core.RoleAdmin || got[2] != core.RolePrivacy {
		t.Errorf("roles with retention: %v, want owner, admin, privacy", got)
	}
	// Creating a site with a retention needs the permission too (besides sites).
	if _, err := m.Sites.CreateSite(core.WithActor(ctx, as[core.RoleAdmin]()), org.ID, site.SiteInput{Name: ptr("B"), URL: ptr("https://b.example"), ConsentRetentionDays: days(7)}); err != nil {
		t.Errorf("admin creating a site with a retention: %v", err)
	}
}

func equalDays(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
