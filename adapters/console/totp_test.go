package console_test

import (
	"net/http"
	"net/url"
	"regexp"
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

// TestTOTPSetupSecretIsStable: the set-up page shows the same secret at every load (a reload
// after scanning the QR code must not break the set-up) until it is confirmed or the member
// starts over; a code of that secret then turns two-step sign-in on, and another member in the
// same browser never gets it.
func TestTOTPSetupSecretIsStable(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	sys := core.WithActor(systemCtx, core.System("test"))
	org, err := w.uc.Orgs.CreateOrganization(systemCtx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"ana@example.com", "ben@example.com"} {
		if _, err := w.uc.Users.CreateMember(sys, org.ID, e, "Someone", "a long enough password", core.RoleOwner); err != nil {
			t.Fatal(err)
		}
	}
	c := w.client(t)
	signedIn := false
	signIn := func(email string) {
		if signedIn { // sign out first, in the same browser
			_, html := get(t, c, w.srv.URL+"/sites")
			post(t, c, w.srv.URL+"/sign-out", url.Values{"csrf": {token(t, html)}})
		}
		signedIn = true
		_, html := get(t, c, w.srv.URL+"/sign-in")
		if res, body := post(t, c, w.srv.URL+"/sign-in", url.Values{"csrf": {token(t, html)}, "email": {email}, "password": {"a long enough password"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in as %s: %d %.300s", email, res.StatusCode, body)
		}
	}
	secretRe := regexp.MustCompile(`id="totp-secret" class="break">([A-Z2-7]+)<`)
	secret := func() (string, string) {
		t.Helper()
		_, html := get(t, c, w.srv.URL+"/account/totp")
		m := secretRe.FindStringSubmatch(html)
		if m == nil {
			t.Fatalf("no secret on the set-up page:\n%.2000s", html)
		}
		return m[1], html
	}
	signIn("ana@example.com")
	first, _ := secret()
	for range 3 {
		if again, _ := secret(); again != first {
			t.Fatalf("the set-up secret changed on reload: %s, then %s", first, again)
		}
	}
	if res, _ := get(t, c, w.srv.URL+"/account/totp?new=1"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("start over: %d", res.StatusCode)
	}
	second, html := secret()
	if second == first {
		t.Fatal("starting over kept the secret")
	}
	if again, _ := secret(); again != second {
		t.Fatalf("the new secret changed on reload: %s, then %s", second, again)
	}
	// Ben, signed in in the same browser, gets a secret of his own, never Ana's; back to Ana,
	// her set-up starts again with a secret that is not Ben's (one set-up per browser).
	signIn("ben@example.com")
	bens, _ := secret()
	if bens == second {
		t.Fatal("another member got the set-up secret in progress")
	}
	signIn("ana@example.com")
	third, html := secret()
	if third == bens {
		t.Fatal("Ana got Ben's set-up secret")
	}
	if again, _ := secret(); again != third {
		t.Fatalf("the set-up secret changed on reload: %s, then %s", third, again)
	}
	w.clock.advance(31 * time.Second)
	code, err := identity.TOTPCode(third, w.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	res, body := post(t, c, w.srv.URL+"/account/totp", url.Values{"csrf": {token(t, html)}, "secret": {third}, "code": {code}})
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "Two-step sign-in is on") {
		t.Fatalf("confirming the set-up: %d %.500s", res.StatusCode, body)
	}
	if !strings.Contains(res.Header.Get("Set-Cookie"), "consentd_totp_setup=;") {
		t.Fatalf("the set-up in progress was not forgotten once confirmed: %q", res.Header.Values("Set-Cookie"))
	}
}
