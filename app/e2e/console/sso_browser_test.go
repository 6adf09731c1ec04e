package console_test

import (
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/consentd/consentd/adapters/oidcsso/oidctest"
	"github.com/consentd/consentd/app"
)

// TestSSOSettingsJourney: in headless Chromium, an owner sets the organization's own single
// sign-on on the members page (an http issuer refused first: the operator did not allow it
// here... then allowed), the sign-in page offers single sign-on, and a colleague signs in
// through the provider by the organization's name and lands on the sites as a new member.
// Pages are checked with axe-core and photographed.
func TestSSOSettingsJourney(t *testing.T) {
	t.Parallel()
	idp := oidctest.Start(t)
	cfg := idp.Config()

	srv := startServer(t, func(c *app.Config) { c.SSOAllowPrivate = true })
	ctx := tab(t)
	base := srv.base

	// Without a provider the sign-in page offers no single sign-on.
	navigate(t, ctx, base+"/sign-in")
	var offered bool
	eval(t, ctx, "!!document.querySelector('form[action=\"/sso/start\"]')", &offered)
	if offered {
		t.Fatal("the sign-in page offers single sign-on before any organization has it")
	}
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	navigate(t, ctx, base+"/members")
	mustContain(t, ctx, "Single sign-on", "Register this redirect URI at the provider: "+base+"/sso/callback")
	checkPage(t, ctx, base, "s01-sso-settings-empty")

	// A domain that is not one is refused, with what was typed kept.
	fill(t, ctx, map[string]string{"#sso-issuer": cfg.Issuer, "#sso-client": cfg.ClientID, "#sso-secret": cfg.ClientSecret,
		"#sso-domains": "not a domain"})
	submit(t, ctx, "document.querySelector('form[action=\"/members/sso\"] button').click()")
	mustContain(t, ctx, "is not an email domain")
	var kept string
	eval(t, ctx, "document.querySelector('#sso-issuer').value", &kept)
	if kept != cfg.Issuer {
		t.Fatalf("the issuer typed was not kept: %q", kept)
	}
	checkPage(t, ctx, base, "s02-sso-settings-error")

	fill(t, ctx, map[string]string{"#sso-secret": cfg.ClientSecret, "#sso-domains": "example.com, acme.example"})
	eval(t, ctx, "document.querySelector('#sso-role').value = 'editor'", nil)
	submit(t, ctx, "document.querySelector('form[action=\"/members/sso\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/members'")
	mustContain(t, ctx, "Single sign-on saved and checked", "Sign-in link for your people")
	var secretShown bool
	eval(t, ctx, "document.body.innerHTML.indexOf("+jsString(cfg.ClientSecret)+") >= 0", &secretShown)
	if secretShown {
		t.Fatal("the members page shows the client secret")
	}
	checkPage(t, ctx, base, "s03-sso-settings-saved")
	submit(t, ctx, "document.querySelector('form.signout button').click()")
	waitFor(t, ctx, "location.pathname === '/sign-in'")

	// A colleague signs in through the provider, finding the organization by its name.
	mustContain(t, ctx, "With single sign-on")
	checkPage(t, ctx, base, "s04-signin-with-sso")
	idp.QueueUser(&mockoidc.MockUser{Subject: "kc-7", Email: "eli@acme.example", EmailVerified: true})
	fill(t, ctx, map[string]string{"#sso-org": "default"})
	submit(t, ctx, "document.querySelector('form[action=\"/sso/start\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	navigate(t, ctx, base+"/members")
	mustContain(t, ctx, "eli@acme.example", "editor")
}
