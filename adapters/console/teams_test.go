package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	sitepkg "github.com/consentd/consentd/core/site"
)

// TestRolesInConsole: a session opened with an editor key changes a site but has no API
// keys page (no link, 403 with the role's words) and no audit log; the owner's audit log
// shows the change with the editor key's name and the old and new values.
func TestRolesInConsole(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	ctx := systemCtx
	owner, err := w.uc.Orgs.AuthenticateKey(ctx, unitKey)
	if err != nil {
		t.Fatal(err)
	}
	as := core.WithActor(ctx, owner)
	site, err := w.uc.Sites.CreateSite(as, owner.OrgID, sitepkg.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
	if err != nil {
		t.Fatal(err)
	}
	_, editorKey, err := w.uc.Orgs.IssueAPIKey(as, owner.OrgID, identity.APIKeyInput{Name: "colleague", Role: core.RoleEditor})
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
	for _, want := range []string{"colleague (cd_", "site.update", "<del>Shop</del> → <ins>Shop EU</ins>", "The log holds",
		"Verified from the first entry: retention has removed none."} {
		if !strings.Contains(html, want) {
			t.Fatalf("owner's audit page lacks %q: %.3000s", want, html)
		}
	}
}

func ptr[T any](v T) *T { return &v }

var inviteLink = regexp.MustCompile(`id="invite-link"[^>]*>(http[^<]+)</pre>`)

// TestInviteJoinRemove: an owner invites a colleague as editor; the colleague joins through
// the link, is signed in, signs in again with the password, changes a site; removing them
// ends their session at once.
func TestInviteJoinRemove(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	ctx := systemCtx
	owner, _ := w.uc.Orgs.AuthenticateKey(ctx, unitKey)
	site, err := w.uc.Sites.CreateSite(core.WithActor(ctx, owner), owner.OrgID, sitepkg.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
	if err != nil {
		t.Fatal(err)
	}
	oc, tok := w.session(t)
	res, html := post(t, oc, w.srv.URL+"/members/invite", url.Values{"csrf": {tok}, "email": {"ed@example.com"}, "role": {"editor"}})
	m := inviteLink.FindStringSubmatch(html)
	if res.StatusCode != http.StatusCreated || m == nil {
		t.Fatalf("invite: %d %.2000s", res.StatusCode, html)
	}
	link := strings.Replace(m[1], "http://"+strings.TrimPrefix(w.srv.URL, "http://"), w.srv.URL, 1)
	ec := w.client(t)
	w.acceptInvitation(t, ec, link, "Ed", "a long enough password")
	// Signing in again with the password.
	ec2 := w.client(t)
	_, html = get(t, ec2, w.srv.URL+"/sign-in")
	if res, _ := post(t, ec2, w.srv.URL+"/sign-in", url.Values{"csrf": {token(t, html)}, "email": {"ed@example.com"}, "password": {"a long enough password"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("password sign-in: %d", res.StatusCode)
	}
	_, html = get(t, ec2, w.srv.URL+"/sites/"+site.ID)
	if res, _ := post(t, ec2, w.srv.URL+"/sites/"+site.ID, url.Values{"csrf": {token(t, html)}, "name": {"Shop EU"}, "url": {"https://shop.example"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("editor edits: %d", res.StatusCode)
	}
	_, html = get(t, oc, w.srv.URL+"/audit")
	if !strings.Contains(html, "<td>Ed <span") || !strings.Contains(html, "<del>Shop</del> → <ins>Shop EU</ins>") {
		t.Fatalf("audit does not show Ed's change: %.3000s", html)
	}
	ms, _ := w.uc.Users.Members(core.WithActor(ctx, owner), owner.OrgID)
	var edID string
	for _, x := range ms {
		if x.Email == "ed@example.com" {
			edID = x.UserID
		}
	}
	_, html = get(t, oc, w.srv.URL+"/members")
	if res, _ := post(t, oc, w.srv.URL+"/members/"+edID+"/remove", url.Values{"csrf": {token(t, html)}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove: %d", res.StatusCode)
	}
	for _, c := range []*http.Client{ec, ec2} {
		if res, _ := get(t, c, w.srv.URL+"/sites"); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("removed member's session still works: %d", res.StatusCode)
		}
	}
}

// acceptInvitation is a new person's way through an invitation link: the form (name and
// password), the sign-in it sends them to (with that password), back to the link, Join.
func (w *unitWorld) acceptInvitation(t *testing.T, c *http.Client, link, name, password string) {
	t.Helper()
	_, html := get(t, c, link)
	res, body := post(t, c, link, url.Values{"csrf": {token(t, html)}, "name": {name}, "password": {password}})
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/sign-in?") {
		t.Fatalf("invitation form: %d %s %.2000s", res.StatusCode, loc, body)
	}
	q := mustURL(t, loc).Query()
	_, html = get(t, c, w.srv.URL+loc)
	res, body = post(t, c, w.srv.URL+"/sign-in", url.Values{"csrf": {token(t, html)}, "email": {q.Get("email")}, "password": {password}, "next": {q.Get("next")}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != mustURL(t, link).Path {
		t.Fatalf("sign-in after the invitation form: %d %s %.2000s", res.StatusCode, res.Header.Get("Location"), body)
	}
	_, html = get(t, c, link)
	if !strings.Contains(html, `name="step" value="join"`) {
		t.Fatalf("no Join button for the invitee signed in: %.2000s", html)
	}
	res, body = post(t, c, link, url.Values{"csrf": {token(t, html)}, "step": {"join"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/sites" {
		t.Fatalf("join: %d %s %.2000s", res.StatusCode, res.Header.Get("Location"), body)
	}
}
