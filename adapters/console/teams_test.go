package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
)

// TestRolesInConsole: a session opened with an editor key changes a site but has no API
// keys page (no link, 403 with the role's words) and no audit log; the owner's audit log
// shows the change with the editor key's name and the old and new values.
func TestRolesInConsole(t *testing.T) {
	w := newUnitWorld(t)
	ctx := context.Background()
	owner, err := w.uc.Orgs.AuthenticateKey(ctx, unitKey)
	if err != nil {
		t.Fatal(err)
	}
	as := core.WithActor(ctx, owner)
	site, err := w.uc.Sites.CreateSite(as, owner.OrgID, core.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
	if err != nil {
		t.Fatal(err)
	}
	_, editorKey, err := w.uc.Orgs.IssueAPIKey(as, owner.OrgID, core.APIKeyInput{Name: "colleague", Role: core.RoleEditor})
	if err != nil {
		t.Fatal(err)
	}
	c := w.client(t)
	if res, _ := w.signIn(t, c, editorKey); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("editor sign-in: %d", res.StatusCode)
	}
	_, html := get(t, c, w.srv.URL+"/sites/"+site.ID+"/banner")
	if strings.Contains(html, `href="/keys"`) || strings.Contains(html, `href="/audit"`) {
		t.Fatal("an editor's pages link to the API keys or the audit log")
	}
	form := url.Values{"csrf": {token(t, html)}, "name": {"Shop EU"}, "url": {"https://shop.example"}}
	if res, body := post(t, c, w.srv.URL+"/sites/"+site.ID, form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("editor renames the site: %d %.500s", res.StatusCode, body)
	}
	for _, p := range []string{"/keys", "/audit"} {
		if res, body := get(t, c, w.srv.URL+p); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "editor role") {
			t.Fatalf("editor GET %s: %d, want 403 naming the role", p, res.StatusCode)
		}
	}
	if res, _ := post(t, c, w.srv.URL+"/sites/"+site.ID+"/delete", url.Values{"csrf": {token(t, html)}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("editor deletes the site: %d, want 403", res.StatusCode)
	}

	oc, _ := w.session(t)
	_, html = get(t, oc, w.srv.URL+"/audit?verify=1")
	for _, want := range []string{"colleague (cd_", "site.update", "<del>Shop</del> → <ins>Shop EU</ins>", "The log holds"} {
		if !strings.Contains(html, want) {
			t.Fatalf("owner's audit page lacks %q: %.3000s", want, html)
		}
	}
}

func ptr[T any](v T) *T { return &v }
