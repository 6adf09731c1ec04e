package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/consentd/consentd/adapters/console"
	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/adapters/oidcsso"
	"github.com/consentd/consentd/adapters/oidcsso/oidctest"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/library"
)

// TestSSO signs people in through an OpenID provider started inside the test (mockoidc):
// the first sign-in of an allowed domain creates the member with the default role and opens
// a session; a disallowed email domain is refused; an ID token whose signature was tampered
// with on its way is refused; nobody is created by a refused sign-in.
func TestSSO(t *testing.T) {
	t.Parallel()
	tamper := false
	idp := oidctest.Start(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !tamper || r.URL.Path != "/oidc/token" {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var body map[string]any
			json.Unmarshal(rec.Body.Bytes(), &body) //nolint:errcheck // the mock's own JSON
			tok := body["id_token"].(string)
			// Change one character of the payload (the claims), keeping the signature.
			parts := strings.Split(tok, ".")
			p := []byte(parts[1])
			p[10] ^= 1
			parts[1] = string(p)
			body["id_token"] = strings.Join(parts, ".")
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(body) //nolint:errcheck // test server
		})
	})

	uc, store := ssoCore(t)
	ctx := systemCtx
	org, _ := uc.Orgs.CreateOrganization(ctx, "acme")
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	cfg := idp.Config()
	p, err := oidcsso.New(ctx, oidcsso.Config{OrgID: org.ID, Issuer: cfg.Issuer, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
		RedirectURL: srv.URL + "/sso/callback", AllowedDomains: []string{"acme.example"}, DefaultRole: core.RoleEditor})
	if err != nil {
		t.Fatal(err)
	}
	providers := ssoProviders{oidcsso.NewProviders(uc.Users.SSOSignInConfig, p, true), uc.Users, true}
	if h, err = console.New(console.Config{UseCases: console.FromCore(uc), SSO: providers}); err != nil {
		t.Fatal(err)
	}
	signIn := func(user *mockoidc.MockUser) (*http.Client, int, string) {
		t.Helper()
		idp.QueueUser(user)
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		res, err := c.Get(srv.URL + "/sso/" + org.ID + "/start")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return c, res.StatusCode, string(b)
	}
	members := func() int {
		ms, err := store.Members(ctx, org.ID)
		if err != nil {
			t.Fatal(err)
		}
		return len(ms)
	}

	// The sign-in page offers single sign-on (the deployment has a provider).
	if res, err := http.Get(srv.URL + "/sign-in"); err != nil || !strings.Contains(readAll(t, res), `action="/sso/start"`) {
		t.Fatalf("the sign-in page does not offer single sign-on: %v", err)
	}

	// First sign-in: the member is created with the default role, and signed in.
	c, status, body := signIn(&mockoidc.MockUser{Subject: "kc-1", Email: "ana@acme.example", EmailVerified: true})
	if status != http.StatusOK || !bytes.Contains([]byte(body), []byte("Signed in")) {
		t.Fatalf("first sign-in: %d %.500s", status, body)
	}
	ms, _ := store.Members(ctx, org.ID)
	if len(ms) != 1 || ms[0].Email != "ana@acme.example" || ms[0].Role != core.RoleEditor {
		t.Fatalf("members after the first sign-in: %+v", ms)
	}
	if u, err := store.UserBySubject(ctx, cfg.Issuer, "kc-1"); err != nil || u.PasswordHash != "" {
		t.Fatalf("the new user: %+v %v", u, err)
	}
	res, err := c.Get(srv.URL + "/sites")
	if err != nil || res.StatusCode != http.StatusOK || res.Request.URL.Path != "/sites" {
		t.Fatalf("the SSO session does not open the sites: %v %v", res.Request.URL, err)
	}
	res.Body.Close()
	// A second sign-in finds the same member.
	if _, status, _ := signIn(&mockoidc.MockUser{Subject: "kc-1", Email: "ana@acme.example", EmailVerified: true}); status != http.StatusOK || members() != 1 {
		t.Fatalf("second sign-in: %d, %d members", status, members())
	}

	// A disallowed email domain is refused.
	_, status, body = signIn(&mockoidc.MockUser{Subject: "kc-2", Email: "eve@elsewhere.example", EmailVerified: true})
	if status != http.StatusUnauthorized || !strings.Contains(body, "elsewhere.example may not sign in") || members() != 1 {
		t.Fatalf("disallowed domain: %d, %d members: %.500s", status, members(), body)
	}
	// An unverified email is refused.
	if _, status, _ = signIn(&mockoidc.MockUser{Subject: "kc-3", Email: "bo@acme.example"}); status != http.StatusUnauthorized || members() != 1 {
		t.Fatalf("unverified email: %d, %d members", status, members())
	}
	// A tampered ID token is refused.
	tamper = true
	_, status, body = signIn(&mockoidc.MockUser{Subject: "kc-4", Email: "cy@acme.example", EmailVerified: true})
	if status != http.StatusUnauthorized || !strings.Contains(body, "ID token is not valid") || members() != 1 {
		t.Fatalf("tampered token: %d, %d members: %.500s", status, members(), body)
	}
}

// ssoProviders is app's adapter of oidcsso.Providers to the console.
type ssoProviders struct {
	p           *oidcsso.Providers
	users       *identity.Users
	hasFallback bool
}

func (s ssoProviders) Provider(ctx context.Context, orgID, redirectURL string) (console.SSOProvider, error) {
	p, err := s.p.Provider(ctx, orgID, redirectURL)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (s ssoProviders) Offered(ctx context.Context) (bool, error) {
	if s.hasFallback {
		return true, nil
	}
	return s.users.SSOConfigured(ctx)
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOrgSSO: an organization's owner sets its own provider (stored, not in the settings);
// people find it on the sign-in page by the organization's name and join with its default
// role; a replaced client secret takes effect at once (the provider is not kept stale); the
// deployment's provider still serves its organization; and an organization's provider on a
// private address is refused unless the operator allowed it.
func TestOrgSSO(t *testing.T) {
	t.Parallel()
	idp := oidctest.Start(t)
	uc, store := ssoCore(t)
	ctx := systemCtx
	acme, _ := uc.Orgs.CreateOrganization(ctx, "acme")
	beta, _ := uc.Orgs.CreateOrganization(ctx, "beta")
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	cfg := idp.Config()
	deployment, err := oidcsso.New(ctx, oidcsso.Config{OrgID: acme.ID, Issuer: cfg.Issuer, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
		RedirectURL: srv.URL + "/sso/callback", AllowedDomains: []string{"acme.example"}, DefaultRole: core.RoleEditor})
	if err != nil {
		t.Fatal(err)
	}
	newConsole := func(allowPrivate bool) http.Handler {
		c, err := console.New(console.Config{UseCases: console.FromCore(uc),
			SSO: ssoProviders{oidcsso.NewProviders(uc.Users.SSOSignInConfig, deployment, allowPrivate), uc.Users, true}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	h = newConsole(true)
	// signIn queues user at the provider (nil for a sign-in that must not reach it).
	signIn := func(user *mockoidc.MockUser, path string) (int, string) {
		t.Helper()
		if user != nil {
			idp.QueueUser(user)
		}
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		res, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, res)
		// The organization's name leads to a page that moves on to its provider.
		if m := regexp.MustCompile(`http-equiv="refresh" content="0; url=([^"]+)"`).FindStringSubmatch(body); m != nil {
			if res, err = c.Get(srv.URL + m[1]); err != nil {
				t.Fatal(err)
			}
			body = readAll(t, res)
		}
		return res.StatusCode, body
	}
	role := func(org, email string) core.Role {
		ms, _ := store.Members(ctx, org)
		for _, m := range ms {
			if m.Email == email {
				return m.Role
			}
		}
		return ""
	}

	// No provider of its own: beta has no single sign-on; asking by name says so.
	if status, body := signIn(nil, "/sso/start?org=beta"); status != http.StatusNotFound ||
		!strings.Contains(body, "No organization of that name has single sign-on") {
		t.Fatalf("beta without a provider: %d %.300s", status, body)
	}
	// Beta's owner sets its provider (an API key's owner, as the API would).
	key, _, err := uc.Orgs.CreateAPIKey(ctx, beta.ID, "owner", "")
	if err != nil {
		t.Fatal(err)
	}
	owner := core.WithActor(ctx, key.Actor())
	secret := cfg.ClientSecret
	if _, err := uc.Users.PutSSOConfig(owner, beta.ID, identity.SSOInput{Issuer: cfg.Issuer, ClientID: cfg.ClientID, ClientSecret: &secret,
		AllowedDomains: []string{"Beta.Example"}, DefaultRole: core.RolePrivacy}); err != nil {
		t.Fatal(err)
	}
	// Found by the organization's name on the sign-in page, the person joins beta as privacy.
	if status, body := signIn(&mockoidc.MockUser{Subject: "b-1", Email: "bea@beta.example", EmailVerified: true}, "/sso/start?org=beta"); status != http.StatusOK ||
		!strings.Contains(body, "Signed in") || role(beta.ID, "bea@beta.example") != core.RolePrivacy {
		t.Fatalf("first sign-in through beta's provider: %d, role %q: %.300s", status, role(beta.ID, "bea@beta.example"), body)
	}
	// Found by the domain of the work email typed on the sign-in page.
	if status, body := signIn(&mockoidc.MockUser{Subject: "b-3", Email: "bob@beta.example", EmailVerified: true}, "/sso/start?org="+url.QueryEscape(" Bob@Beta.example ")); status != http.StatusOK ||
		!strings.Contains(body, "Signed in") || role(beta.ID, "bob@beta.example") != core.RolePrivacy {
		t.Fatalf("sign-in by work email: %d, role %q: %.300s", status, role(beta.ID, "bob@beta.example"), body)
	}
	// A domain no organization's single sign-on admits is answered on the sign-in page.
	if status, body := signIn(nil, "/sso/start?org="+url.QueryEscape("x@nowhere.example")); status != http.StatusNotFound ||
		!strings.Contains(body, "No organization signs in people of this email") {
		t.Fatalf("sign-in by an unknown domain: %d %.300s", status, body)
	}
	// Beta's domains are beta's: acme's people are refused there.
	if status, _ := signIn(&mockoidc.MockUser{Subject: "a-9", Email: "al@acme.example", EmailVerified: true}, "/sso/"+beta.ID+"/start"); status != http.StatusUnauthorized ||
		role(beta.ID, "al@acme.example") != "" {
		t.Fatalf("an acme address through beta's provider: %d", status)
	}
	// The deployment's provider still signs acme's people in.
	if status, _ := signIn(&mockoidc.MockUser{Subject: "a-1", Email: "al@acme.example", EmailVerified: true}, "/sso/start?org=acme"); status != http.StatusOK ||
		role(acme.ID, "al@acme.example") != core.RoleEditor {
		t.Fatalf("the deployment's provider: %d", status)
	}
	// A wrong client secret, saved by the owner, is used at once: the sign-in fails.
	wrong := "not-the-secret"
	if _, err := uc.Users.PutSSOConfig(owner, beta.ID, identity.SSOInput{Issuer: cfg.Issuer, ClientID: cfg.ClientID, ClientSecret: &wrong,
		AllowedDomains: []string{"beta.example"}, DefaultRole: core.RolePrivacy}); err != nil {
		t.Fatal(err)
	}
	if status, body := signIn(&mockoidc.MockUser{Subject: "b-2", Email: "bo@beta.example", EmailVerified: true}, "/sso/"+beta.ID+"/start"); status != http.StatusUnauthorized ||
		role(beta.ID, "bo@beta.example") != "" {
		t.Fatalf("a wrong client secret: %d %.300s", status, body)
	}
	// Removing beta's provider ends its single sign-on.
	if err := uc.Users.DeleteSSOConfig(owner, beta.ID); err != nil {
		t.Fatal(err)
	}
	if status, _ := signIn(nil, "/sso/"+beta.ID+"/start"); status != http.StatusNotFound {
		t.Fatalf("after removal: %d", status)
	}
	// An organization's provider on a loopback address, without the operator's permission,
	// is never contacted.
	if _, err := uc.Users.PutSSOConfig(owner, beta.ID, identity.SSOInput{Issuer: cfg.Issuer, ClientID: cfg.ClientID, ClientSecret: &secret,
		AllowedDomains: []string{"beta.example"}, DefaultRole: core.RolePrivacy}); err != nil {
		t.Fatal(err)
	}
	h = newConsole(false)
	if status, body := signIn(nil, "/sso/"+beta.ID+"/start"); status != http.StatusUnauthorized ||
		!strings.Contains(body, "could not be reached") {
		t.Fatalf("a provider on a loopback address: %d %.300s", status, body)
	}
	// The audit log has the provider's changes, never its secret.
	page, err := uc.AuditLog.AuditEntries(owner, beta.ID, identity.AuditQuery{}, "")
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range page.Entries {
		if strings.HasPrefix(e.Action, "sso.") {
			actions = append(actions, e.Action)
		}
		for _, c := range e.Changes {
			if strings.Contains(string(c.New)+string(c.Old), secret) || strings.Contains(string(c.New)+string(c.Old), wrong) {
				t.Fatalf("a secret in the audit log: %+v", c)
			}
		}
	}
	if strings.Join(actions, ",") != "sso.update,sso.delete,sso.update,sso.update" {
		t.Fatalf("audit actions: %v", actions)
	}
}

// ssoCore returns core on a memory store with the library, allowing an identity provider on
// a private address (the test's).
func ssoCore(t *testing.T) (*usecases.UseCases, *memstore.Store) {
	t.Helper()
	cat, err := library.Load("")
	if err != nil {
		t.Fatal(err)
	}
	store := memstore.New()
	uc, err := usecases.New(usecases.Deps{Store: store, Catalog: cat, Now: time.Now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() },
		SSOAllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	return uc, store
}
