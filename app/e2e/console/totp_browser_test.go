package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core/identity"
)

// TestTOTPJourney: in headless Chromium against the real server, a member sets up an
// authenticator from the sessions page (a wrong code is refused, the current one turns it
// on), signs out, and signs in again: the password alone leads to the code step, a wrong
// code is refused there, the right one opens the session. Pages are checked and photographed.
func TestTOTPJourney(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	ctx := tab(t)
	base := srv.base

	navigate(t, ctx, base+"/sign-in")
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	navigate(t, ctx, base+"/members")
	fill(t, ctx, map[string]string{"#invite-email": "ana@example.com"})
	submit(t, ctx, "document.querySelector('form[action=\"/members/invite\"] button').click()")
	var link string
	eval(t, ctx, "document.querySelector('#invite-link').textContent", &link)
	submit(t, ctx, "document.querySelector('form.signout button').click()")
	joinInBrowser(t, ctx, link, "Ana", "a long enough password")

	// The sessions page offers the setup; the setup page shows the QR code, secret and URI.
	navigate(t, ctx, base+"/sessions")
	mustContain(t, ctx, "Two-step sign-in", "Off: your password alone signs you in.")
	submit(t, ctx, "document.querySelector('a[href=\"/account/totp\"]').click()")
	mustContain(t, ctx, "Add consentd to your authenticator app", "Confirm with a code")
	var secret, uri string
	eval(t, ctx, "document.querySelector('#totp-secret').textContent", &secret)
	eval(t, ctx, "document.querySelector('#totp-uri').textContent", &uri)
	if len(secret) < 16 || !strings.HasPrefix(uri, "otpauth://totp/consentd:ana@example.com?") || !strings.Contains(uri, "secret="+secret) {
		t.Fatalf("secret %q, uri %q", secret, uri)
	}
	var qr bool
	eval(t, ctx, "(function(){ var i = document.querySelector('main img'); return !!i && i.naturalWidth > 0 && i.src.indexOf('data:image/png;base64,') === 0; })()", &qr)
	if !qr {
		t.Fatal("no QR code on the setup page")
	}
	checkPage(t, ctx, base, "x01-totp-enable")
	code := func(at time.Time) string {
		c, err := identity.TOTPCode(secret, at)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	fill(t, ctx, map[string]string{"#code": code(time.Now().Add(-5 * time.Minute))})
	submit(t, ctx, "document.querySelector('form[action=\"/account/totp\"] button').click()")
	mustContain(t, ctx, "not the current code of this secret")
	var again string
	eval(t, ctx, "document.querySelector('#totp-secret').textContent", &again)
	if again != secret {
		t.Fatalf("the page shown again changed the secret: %q, was %q", again, secret)
	}
	checkPage(t, ctx, base, "x02-totp-enable-wrong-code")
	fill(t, ctx, map[string]string{"#code": code(time.Now())})
	submit(t, ctx, "document.querySelector('form[action=\"/account/totp\"] button').click()")
	// The recovery codes are shown this once.
	mustContain(t, ctx, "Two-step sign-in is on", "Your recovery codes", "10 unused recovery codes left")
	var recovery []string
	eval(t, ctx, "document.querySelector('#recovery-codes').textContent.trim().split('\\n')", &recovery)
	if len(recovery) != identity.RecoveryCodeCount || len(recovery[0]) != 11 {
		t.Fatalf("recovery codes shown: %q", recovery)
	}
	checkPage(t, ctx, base, "x02b-totp-recovery-codes")
	navigate(t, ctx, base+"/sessions")
	mustContain(t, ctx, "On: after your password")
	submit(t, ctx, "document.querySelector('form.signout button').click()")
	waitFor(t, ctx, "location.pathname === '/sign-in'")

	// The password leads to the code step, without a session.
	fill(t, ctx, map[string]string{"#email": "ana@example.com", "#password": "a long enough password"})
	submit(t, ctx, "document.querySelector('#password').form.querySelector('button').click()")
	mustContain(t, ctx, "Enter your code", "Authenticator code")
	checkPage(t, ctx, base, "x03-totp-code-step")
	navigate(t, ctx, base+"/sites")
	waitFor(t, ctx, "location.pathname === '/sign-in'")
	navigate(t, ctx, base+"/sign-in")
	fill(t, ctx, map[string]string{"#email": "ana@example.com", "#password": "a long enough password"})
	submit(t, ctx, "document.querySelector('#password').form.querySelector('button').click()")
	fill(t, ctx, map[string]string{"#code": code(time.Now().Add(-5 * time.Minute))})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	mustContain(t, ctx, "Wrong code: type the code")
	checkPage(t, ctx, base, "x04-totp-code-wrong")
	// The next step's code (the enabling one was used) opens the session.
	fill(t, ctx, map[string]string{"#code": code(time.Now().Add(30 * time.Second))})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	navigate(t, ctx, base+"/sessions")
	mustContain(t, ctx, "On: after your password")

	// A recovery code signs in in place of the authenticator's code, once.
	submit(t, ctx, "document.querySelector('form.signout button').click()")
	waitFor(t, ctx, "location.pathname === '/sign-in'")
	fill(t, ctx, map[string]string{"#email": "ana@example.com", "#password": "a long enough password"})
	submit(t, ctx, "document.querySelector('#password').form.querySelector('button').click()")
	fill(t, ctx, map[string]string{"#code": recovery[0]})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/account/totp'")
	mustContain(t, ctx, "You signed in with a recovery code", "9 unused recovery codes left")
	checkPage(t, ctx, base, "x05-totp-recovered")
	submit(t, ctx, "document.querySelector('form.signout button').click()")
	waitFor(t, ctx, "location.pathname === '/sign-in'")

	// The owner resets Ana's two-step sign-in; her password alone then signs her in.
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	navigate(t, ctx, base+"/members")
	checkPage(t, ctx, base, "x06-members-totp-on")
	submit(t, ctx, "document.querySelector('a[aria-label=\"Reset two-step sign-in of ana@example.com…\"]').click()")
	mustContain(t, ctx, "Reset the two-step sign-in of ana@example.com?")
	checkPage(t, ctx, base, "x06a-confirm-totp-reset")
	submit(t, ctx, "document.querySelector('main form button.danger').click()")
	mustContain(t, ctx, "Two-step sign-in reset")
	var resetShown bool
	eval(t, ctx, "!!document.querySelector('[aria-label^=\"Reset two-step\"]')", &resetShown)
	if resetShown {
		t.Fatal("the reset button is still shown after the reset")
	}
	submit(t, ctx, "document.querySelector('form.signout button').click()")
	waitFor(t, ctx, "location.pathname === '/sign-in'")
	fill(t, ctx, map[string]string{"#email": "ana@example.com", "#password": "a long enough password"})
	submit(t, ctx, "document.querySelector('#password').form.querySelector('button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
}
