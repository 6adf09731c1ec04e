package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/console"
	"github.com/consentd/consentd/adapters/oidcsso"
	"github.com/consentd/consentd/adapters/oidcsso/oidctest"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/site"
)

// TestSavedSSOSaysWhatWasChecked: saving single sign-on says members can sign in only after
// the issuer's discovery document was fetched and understood; an issuer that cannot be
// reached, or that answers something else than a discovery document, is saved with a warning
// that names the document and says nobody can sign in yet.
func TestSavedSSOSaysWhatWasChecked(t *testing.T) {
	t.Parallel()
	idp := oidctest.Start(t)
	uc, _ := ssoCore(t)
	if _, err := uc.Orgs.Bootstrap(systemCtx, unitKey); err != nil {
		t.Fatal(err)
	}
	h, err := console.New(console.Config{UseCases: console.FromCore(uc),
		SSO: ssoProviders{oidcsso.NewProviders(uc.Users.SSOSignInConfig, nil, true), uc.Users, false}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	w := &unitWorld{srv: srv, uc: uc}
	c, _ := w.session(t)
	notDiscovery := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>a web page, not an OpenID provider</html>"))
	}))
	t.Cleanup(notDiscovery.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // nothing listens there any more

	save := func(t *testing.T, issuer string) string {
		t.Helper()
		_, html := get(t, c, srv.URL+"/members")
		res, body := post(t, c, srv.URL+"/members/sso", url.Values{"csrf": {token(t, html)}, "issuer": {issuer},
			"clientId": {idp.Config().ClientID}, "clientSecret": {idp.Config().ClientSecret}, "allowedDomains": {"acme.example"}, "defaultRole": {"viewer"}})
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("saving SSO with %s: %d %.500s", issuer, res.StatusCode, body)
		}
		_, html = get(t, c, srv.URL+"/members")
		return html
	}
	for _, issuer := range []string{closed.URL, notDiscovery.URL} {
		html := save(t, issuer)
		for _, want := range []string{`class="flash warn" role="alert"`, "Single sign-on saved, but it does not work yet",
			issuer + "/.well-known/openid-configuration", "Nobody can sign in through it"} {
			if !strings.Contains(html, want) {
				t.Fatalf("saving SSO with the issuer %s: the page lacks %q:\n%.3000s", issuer, want, html)
			}
		}
		if strings.Contains(html, "can now sign in") {
			t.Fatalf("saving SSO with the issuer %s says sign-in works", issuer)
		}
	}
	html := save(t, idp.Config().Issuer)
	if !strings.Contains(html, "Single sign-on saved and checked") || !strings.Contains(html, "(acme.example) can now sign in") || strings.Contains(html, "flash warn") {
		t.Fatalf("saving SSO with a working issuer:\n%.3000s", html)
	}
}

// TestDigestWithoutMailSaysSo: on a server without mail settings, the overview says beside the
// digest's recipients that no email will be sent until CONSENTD_SMTP_URL is set, and saving
// recipients warns the same instead of a plain "saved".
func TestDigestWithoutMailSaysSo(t *testing.T) {
	t.Parallel()
	w := newUnitWorld(t)
	c, _ := w.session(t)
	key, err := w.uc.Orgs.AuthenticateKey(systemCtx, unitKey)
	if err != nil {
		t.Fatal(err)
	}
	s, err := w.uc.Sites.CreateSite(core.WithActor(context.Background(), key), key.OrgID, site.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
	if err != nil {
		t.Fatal(err)
	}
	_, html := get(t, c, w.srv.URL+"/sites/"+s.ID)
	if !strings.Contains(html, `id="digest-nomail"`) || !strings.Contains(html, "No email will be sent") || !strings.Contains(html, "CONSENTD_SMTP_URL") {
		t.Fatalf("the overview does not say the digest is not emailed:\n%.3000s", html)
	}
	res, body := post(t, c, w.srv.URL+"/sites/"+s.ID+"/watch", url.Values{"csrf": {token(t, html)}, "scanSchedule": {"weekly"},
		"verifySchedule": {"off"}, "digestEmails": {"ops@shop.example"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("saving the digest: %d %.500s", res.StatusCode, body)
	}
	_, html = get(t, c, w.srv.URL+"/sites/"+s.ID)
	if !strings.Contains(html, `class="flash warn" role="alert"`) || !strings.Contains(html, "No digest email will be sent") ||
		!strings.Contains(html, "CONSENTD_SMTP_URL is not set") || strings.Contains(html, "Schedules and digest saved.") {
		t.Fatalf("saving a digest without mail settings:\n%.3000s", html)
	}
}
