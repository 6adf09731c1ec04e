package httpapi_test

import (
	"testing"

	"github.com/consentd/consentd/core"
)

// TestRetentionNeedsRetentionPermission: PATCH /sites/{id} with consentRetentionDays answers
// 403 forbidden to an editor key (alone or with another field) and leaves the site as it was;
// owner, admin and privacy keys may set it (privacy alone only).
func TestRetentionNeedsRetentionPermission(t *testing.T) {
	t.Parallel()
	e := newRoleEnv(t)
	path := "/api/v1/sites/" + e.siteA
	retention := func() any { return e.want(e.do("GET", path, nil), 200).obj(t)["consentRetentionDays"] }
	for _, body := range []map[string]any{
		{"consentRetentionDays": 1},
		{"consentRetentionDays": nil},
		{"consentRetentionDays": 1, "name": "Renamed"},
	} {
		e.want(e.do("PATCH", path, body, e.keys[core.RoleEditor]), 403, "forbidden")
		if got := retention(); got != nil {
			t.Fatalf("editor's refused %v left consentRetentionDays %v", body, got)
		}
	}
	e.want(e.do("PATCH", path, map[string]any{"name": "Editor's"}, e.keys[core.RoleEditor]), 200)
	for i, r := range []core.Role{core.RoleOwner, core.RoleAdmin, core.RolePrivacy} {
		days := 30 + i
		if got := e.want(e.do("PATCH", path, map[string]any{"consentRetentionDays": days}, e.keys[r]), 200).obj(t)["consentRetentionDays"]; got != float64(days) {
			t.Errorf("%s set consentRetentionDays %d: answer %v", r, days, got)
		}
	}
	e.want(e.do("PATCH", path, map[string]any{"consentRetentionDays": 5, "name": "Privacy's"}, e.keys[core.RolePrivacy]), 403, "forbidden")
	e.want(e.do("PATCH", path, map[string]any{"consentRetentionDays": 1}, e.keys[core.RoleViewer]), 403, "forbidden")
	if got := retention(); got != float64(32) {
		t.Errorf("consentRetentionDays %v after the refusals, want privacy's 32", got)
	}
}
