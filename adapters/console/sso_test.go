package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/consentd/consentd/adapters/console"
	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/adapters/oidcsso"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// TestSSO signs people in through an OpenID provider started inside the test (mockoidc):
// the first sign-in of an allowed domain creates the member with the default role and opens
// a session; a disallowed email domain is refused; an ID token whose signature was tampered
// with on its way is refused; nobody is created by a refused sign-in.
func TestSSO(t *testing.T) {
	idp, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	tamper := false
	if err := idp.AddMiddleware(func(next http.Handler) http.Handler {
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
	}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := idp.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idp.Shutdown() })

	cat, err := library.Load("")
	if err != nil {
		t.Fatal(err)
	}
	store := memstore.New()
	uc, err := core.New(core.Deps{Store: store, Catalog: cat, Now: time.Now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
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
	if h, err = console.New(console.Config{UseCases: console.FromCore(uc), ClientAddr: httpapi.ClientIP(nil), ErrorStatus: httpapi.ErrorStatus, SSO: []console.SSOProvider{p}}); err != nil {
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
