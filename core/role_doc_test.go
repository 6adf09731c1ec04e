package core_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
)

// TestTeamsDocMatrix: the permission matrix in docs/teams.md is core's table of roles (the
// served OpenAPI document's copy is generated from it and checked by TestRoleMatrix).
func TestTeamsDocMatrix(t *testing.T) {
	b, err := os.ReadFile("../docs/teams.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "## The matrix\n")
	if !ok {
		t.Fatal("docs/teams.md has no \"## The matrix\" section")
	}
	var perms []core.Permission
	for i, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "|") {
			if i > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		if cells[0] == "permission" {
			if roles := cells[2:]; !slices.Equal(roles, core.RoleNames()) {
				t.Fatalf("docs/teams.md matrix columns %v, core's roles %v", roles, core.RoleNames())
			}
			continue
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		p := core.Permission(strings.Trim(cells[0], "`"))
		perms = append(perms, p)
		for j, r := range core.Roles() {
			if want := map[bool]string{true: "yes", false: "no"}[r.Allows(p)]; cells[2+j] != want {
				t.Errorf("docs/teams.md: %s for %s says %q, core says %q", p, r, cells[2+j], want)
			}
		}
	}
	if !slices.Equal(perms, core.Permissions()) {
		t.Errorf("docs/teams.md matrix rows %v, core's permissions %v", perms, core.Permissions())
	}
}
