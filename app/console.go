package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/consentd/consentd/adapters/console"
	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/adapters/oidcsso"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
)

// withConsole serves the web console at "/" beside api when cfg.Console is set: the API keeps
// /api/, /healthz, /readyz and /metrics, the console has every other path.
// The console's setup snippet, trusted proxies and runtime are the API's (apiCfg's): the two
// adapters write snippets, statuses and CSV rows with the same shared leaf.
func withConsole(cfg Config, uc *usecases.UseCases, apiCfg httpapi.Config, api http.Handler) (http.Handler, error) {
	if !cfg.Console {
		return api, nil
	}
	sso, err := ssoProviders(cfg, uc)
	if err != nil {
		return nil, err
	}
	con, err := console.New(console.Config{
		UseCases: console.FromCore(uc), Logger: cfg.Logger, Now: cfg.Now, PublicURL: apiCfg.PublicURL,
		RuntimeVersion: apiCfg.RuntimeVersion, SnippetLoader: apiCfg.RuntimeScript != nil,
		TrustedProxies: apiCfg.TrustedProxies, SSO: sso,
	})
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/api" || strings.HasPrefix(p, "/api/") || p == "/healthz" || p == "/readyz" || p == "/metrics" {
			api.ServeHTTP(w, r)
			return
		}
		con.ServeHTTP(w, r)
	}), nil
}

// SSOConfig is one organization's OpenID provider.
type SSOConfig struct {
	// Org is the organization's ID or name; Issuer, ClientID and ClientSecret the provider
	// and consentd's registration there (redirect URI: PublicURL + "/sso/callback").
	Org, Issuer, ClientID, ClientSecret string
	// Domains are the email domains that may join; Role is their role on the first sign-in.
	Domains []string
	Role    string
}

// ssoProviders finds organizations' providers: their own, from the store, else the
// deployment's from the settings (discovered here, once, at start).
func ssoProviders(cfg Config, uc *usecases.UseCases) (console.SSOProviders, error) {
	var fallback *oidcsso.Provider
	if s := cfg.SSO; s.Issuer != "" {
		if cfg.PublicURL == "" {
			return nil, errors.New("single sign-on needs the public URL (CONSENTD_PUBLIC_URL) for its redirect URI")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		org, err := uc.Orgs.FindOrganization(ctx, s.Org)
		if err != nil {
			return nil, fmt.Errorf("single sign-on organization %q: %w", s.Org, err)
		}
		role := core.Role(s.Role)
		if role == "" {
			role = core.RoleViewer
		}
		fallback, err = oidcsso.New(ctx, oidcsso.Config{OrgID: org.ID, Issuer: s.Issuer, ClientID: s.ClientID, ClientSecret: s.ClientSecret,
			RedirectURL: strings.TrimSuffix(cfg.PublicURL, "/") + "/sso/callback", AllowedDomains: s.Domains, DefaultRole: role})
		if err != nil {
			return nil, err
		}
	}
	return consoleSSO{oidcsso.NewProviders(uc.Users.SSOSignInConfig, fallback, cfg.SSOAllowPrivate), fallback != nil, uc.Users}, nil
}

// consoleSSO is oidcsso.Providers as the console asks for them.
type consoleSSO struct {
	providers   *oidcsso.Providers
	hasFallback bool
	users       *identity.Users
}

func (s consoleSSO) Provider(ctx context.Context, orgID, redirectURL string) (console.SSOProvider, error) {
	p, err := s.providers.Provider(ctx, orgID, redirectURL)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (s consoleSSO) Offered(ctx context.Context) (bool, error) {
	if s.hasFallback {
		return true, nil
	}
	return s.users.SSOConfigured(ctx)
}
