package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// TestDestructiveActionsAskFirst: removing single sign-on, resetting a member's second factor
// and removing a member are links to a page that asks, naming who or what, with the form that
// does it; the members page itself has no form that does them in one click. (Revoking a key
// and deleting a site, a category, a service, a webhook endpoint or a visitor's records ask
// the same way.)
func TestDestructiveActionsAskFirst(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	c, _ := w.session(t)
	key, err := w.uc.Orgs.AuthenticateKey(systemCtx, unitKey)
	if err != nil {
		t.Fatal(err)
	}
	org := key.OrgID
	sys := core.WithActor(context.Background(), core.System("test"))
	u, err := w.uc.Users.CreateMember(sys, org, "ed@example.com", "Ed", "a long enough password", core.RoleEditor)
	if err != nil {
		t.Fatal(err)
	}
	ua, _ := w.uc.Users.UserActor(systemCtx, u.ID, org)
	asEd := core.WithActor(systemCtx, ua)
	setup, _ := w.uc.Users.NewTOTP(asEd, u.ID, "")
	code, _ := identity.TOTPCode(setup.Secret, w.clock.now())
	if _, err := w.uc.Users.EnableTOTP(asEd, u.ID, setup.Secret, code); err != nil {
		t.Fatal(err)
	}
	secret := "s3cret-value"
	if _, err := w.uc.Users.PutSSOConfig(core.WithActor(systemCtx, key), org, identity.SSOInput{Issuer: "https://id.acme.example", ClientID: "c",
		ClientSecret: &secret, AllowedDomains: []string{"acme.example"}, DefaultRole: core.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	_, members := get(t, c, w.srv.URL+"/members")
	for _, action := range []string{"/members/" + u.ID + "/totp-reset", "/members/" + u.ID + "/remove", "/members/sso/delete"} {
		if strings.Contains(members, `action="`+action+`"`) {
			t.Errorf("the members page does %s in one click", action)
		}
		if !strings.Contains(members, `href="`+action+`"`) {
			t.Errorf("the members page has no link to ask before %s", action)
		}
	}
	for path, question := range map[string]string{
		"/members/" + u.ID + "/totp-reset": "Reset the two-step sign-in of ed@example.com?",
		"/members/" + u.ID + "/remove":     "Remove ed@example.com from the organization?",
		"/members/sso/delete":              "Remove single sign-on through https://id.acme.example?",
	} {
		res, html := get(t, c, w.srv.URL+path)
		if res.StatusCode != http.StatusOK || !strings.Contains(html, question) || !strings.Contains(html, `action="`+path+`"`) ||
			!strings.Contains(html, `href="/members"`) {
			t.Fatalf("GET %s: %d, want the question %q with its form and a way back:\n%.2000s", path, res.StatusCode, question, html)
		}
		if path == "/members/sso/delete" {
			if res, _ := post(t, c, w.srv.URL+path, url.Values{"csrf": {token(t, html)}}); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("confirming %s: %d", path, res.StatusCode)
			}
		}
	}
	if _, err := w.uc.Users.SSOConfig(core.WithActor(systemCtx, key), org); !core.IsNotFound(err) {
		t.Fatalf("single sign-on after confirming its removal: %v", err)
	}
}
