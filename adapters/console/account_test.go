package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
)

// TestAccountPage: a member's account page shows their profile, organizations, two-step
// sign-in (with the way to set it up) and sessions; the password changes only with the
// current one, and the new one then signs in.
func TestAccountPage(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	org, err := w.uc.Orgs.CreateOrganization(systemCtx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.uc.Users.CreateMember(core.WithActor(systemCtx, core.System("test")), org.ID, "ana@example.com", "Ana Analyst", "the first password", core.RoleEditor); err != nil {
		t.Fatal(err)
	}
	signIn := func(password string) (*http.Client, int) {
		c := w.client(t)
		_, html := get(t, c, w.srv.URL+"/sign-in")
		res, _ := post(t, c, w.srv.URL+"/sign-in", url.Values{"csrf": {token(t, html)}, "email": {"ana@example.com"}, "password": {password}})
		return c, res.StatusCode
	}
	c, status := signIn("the first password")
	if status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", status)
	}
	res, html := get(t, c, w.srv.URL+"/account")
	for _, want := range []string{"Your account", "Ana Analyst", "ana@example.com", "acme (editor)", "Set up two-step sign-in", `href="/account/totp"`,
		"You are signed in 1 place", `action="/account/password"`, `aria-current="page">Account<`} {
		if res.StatusCode != http.StatusOK || !strings.Contains(html, want) {
			t.Fatalf("account page lacks %q (%d):\n%.3000s", want, res.StatusCode, html)
		}
	}
	res, body := post(t, c, w.srv.URL+"/account/password", url.Values{"csrf": {token(t, html)}, "currentPassword": {"not it at all"}, "password": {"the second password"}})
	if res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "is not your current password") {
		t.Fatalf("a wrong current password: %d %.1500s", res.StatusCode, body)
	}
	if res, _ := post(t, c, w.srv.URL+"/account/password", url.Values{"csrf": {token(t, html)}, "currentPassword": {"the first password"}, "password": {"the second password"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("changing the password: %d", res.StatusCode)
	}
	if _, html := get(t, c, w.srv.URL+"/account"); !strings.Contains(html, "Password changed") {
		t.Fatalf("no notice after changing the password:\n%.1500s", html)
	}
	if _, status := signIn("the first password"); status == http.StatusSeeOther {
		t.Fatal("the old password still signs in")
	}
	if _, status := signIn("the second password"); status != http.StatusSeeOther {
		t.Fatalf("the new password does not sign in: %d", status)
	}
}
