package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// TestTOTPSignIn: with an authenticator on, the password gives the code step and no
// session; wrong codes count toward the sign-in failure limit (the sixth attempt waits, even
// with the right code); a code signs in once.
func TestTOTPSignIn(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	ctx := systemCtx
	org, err := w.uc.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	u, err := w.uc.Users.CreateMember(core.WithActor(ctx, core.System("test")), org.ID, "ana@example.com", "Ana", "a long enough password", core.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	ua, _ := w.uc.Users.UserActor(ctx, u.ID, org.ID)
	asAna := core.WithActor(ctx, ua)
	setup, err := w.uc.Users.NewTOTP(asAna, u.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	code := func(at time.Time) string {
		c, err := identity.TOTPCode(setup.Secret, at)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if _, err := w.uc.Users.EnableTOTP(asAna, u.ID, setup.Secret, code(w.clock.now())); err != nil {
		t.Fatal(err)
	}
	c := w.client(t)
	password := func() (*http.Response, string) {
		_, html := get(t, c, w.srv.URL+"/sign-in")
		return post(t, c, w.srv.URL+"/sign-in", url.Values{"csrf": {token(t, html)}, "email": {"ana@example.com"}, "password": {"a long enough password"}})
	}
	codeStep := func(html, code string) (*http.Response, string) {
		return post(t, c, w.srv.URL+"/sign-in", url.Values{"csrf": {token(t, html)}, "step": {"code"}, "code": {code}})
	}
	res, html := password()
	if res.StatusCode != http.StatusOK || !strings.Contains(html, "Enter your code") {
		t.Fatalf("password step: %d %.300s", res.StatusCode, html)
	}
	if res, _ := get(t, c, w.srv.URL+"/sites"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/sign-in") {
		t.Fatalf("a session before the code: %d", res.StatusCode)
	}
	for i := range 5 {
		res, html = codeStep(html, "00000"+string(rune('0'+i)))
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(html, "Wrong code") {
			t.Fatalf("wrong code %d: %d", i, res.StatusCode)
		}
	}
	w.clock.advance(30 * time.Second)
	res, _ = codeStep(html, code(w.clock.now()))
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("sixth attempt: %d", res.StatusCode)
	}
	w.clock.advance(16 * time.Minute)
	// The code step expired meanwhile: the password again, then the code.
	_, html = password()
	right := code(w.clock.now())
	if res, _ := codeStep(html, right); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/sites" {
		t.Fatalf("right code: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _ := get(t, c, w.srv.URL+"/sites"); res.StatusCode != http.StatusOK {
		t.Fatalf("no session after the code: %d", res.StatusCode)
	}
	// The same code again, in another browser: refused.
	c = w.client(t)
	_, html = password()
	if res, body := codeStep(html, right); res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "used already") {
		t.Fatalf("replayed code: %d", res.StatusCode)
	}
}
