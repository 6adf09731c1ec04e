// Package oidcsso is consentd's single sign-on adapter: an organization's OpenID Connect
// provider (Keycloak, Entra ID, Google Workspace, Authentik...) through
// github.com/coreos/go-oidc/v3 and golang.org/x/oauth2. It sends the browser to the
// provider and turns the code that comes back into a verified core.ExternalIdentity; core
// decides who may join (core.Users.SignInExternal).
package oidcsso

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/crawler/netguard"
)

// Config is one organization's provider.
type Config struct {
	// OrgID is the organization whose members sign in through it.
	OrgID string
	// Issuer is the provider's issuer URL (its discovery document is at
	// Issuer/.well-known/openid-configuration); ClientID and ClientSecret are consentd's
	// registration there; RedirectURL is the console's /sso/callback.
	Issuer, ClientID, ClientSecret, RedirectURL string
	// Policy says who may join, with which role.
	AllowedDomains []string
	DefaultRole    core.Role
	// client makes the provider's requests (discovery, keys, token); nil for the default.
	client *http.Client
}

// Provider is a discovered OpenID provider.
type Provider struct {
	cfg      Config
	oauth    oauth2.Config
	verifier *oidc.IDTokenVerifier
}

// New discovers the provider (one request to its discovery document).
func New(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.client != nil {
		ctx = oidc.ClientContext(ctx, cfg.client)
	}
	p, err := oidc.NewProvider(ctx, cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("oidc provider %s: %w", cfg.Issuer, err)
	}
	return &Provider{cfg: cfg, verifier: p.Verifier(&oidc.Config{ClientID: cfg.ClientID}),
		oauth: oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: cfg.RedirectURL,
			Endpoint: p.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}}, nil
}

// OrgID is the organization the provider signs people in to.
func (p *Provider) OrgID() string { return p.cfg.OrgID }

// Policy is who may join through the provider.
func (p *Provider) Policy() identity.SSOPolicy {
	return identity.SSOPolicy{OrgID: p.cfg.OrgID, AllowedDomains: p.cfg.AllowedDomains, DefaultRole: p.cfg.DefaultRole}
}

// AuthCodeURL is where to send the browser, with the state and nonce the callback checks.
func (p *Provider) AuthCodeURL(state, nonce string) string {
	return p.oauth.AuthCodeURL(state, oidc.Nonce(nonce))
}

// Exchange trades the callback's code for tokens and returns the identity of the ID token,
// after checking its signature, issuer, audience, expiry and nonce; unauthorized otherwise.
func (p *Provider) Exchange(ctx context.Context, code, nonce string) (identity.ExternalIdentity, error) {
	var id identity.ExternalIdentity
	if p.cfg.client != nil {
		ctx = oidc.ClientContext(ctx, p.cfg.client)
	}
	tok, err := p.oauth.Exchange(ctx, code)
	if err != nil {
		return id, core.Wrap(core.CodeUnauthorized, err, "the identity provider refused the sign-in")
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok {
		return id, core.Errorf(core.CodeUnauthorized, "the identity provider sent no ID token")
	}
	idt, err := p.verifier.Verify(ctx, raw)
	if err != nil {
		return id, core.Wrap(core.CodeUnauthorized, err, "the identity provider's ID token is not valid")
	}
	if idt.Nonce != nonce {
		return id, core.Wrap(core.CodeUnauthorized, errors.New("nonce mismatch"), "the identity provider's ID token is not for this sign-in")
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
		Name          string `json:"name"`
	}
	if err := idt.Claims(&claims); err != nil {
		return id, core.Wrap(core.CodeUnauthorized, err, "the identity provider's ID token is not readable")
	}
	return identity.ExternalIdentity{Issuer: idt.Issuer, Subject: idt.Subject, Email: claims.Email,
		EmailVerified: claims.EmailVerified, Name: claims.Name}, nil
}

// Providers finds an organization's provider at sign-in: the organization's own, set by its
// owner and kept in the store, discovered on first use and kept while its settings do not
// change; else the deployment's provider when the operator configured it for that
// organization. Calls to organizations' providers go through a client that refuses loopback
// and private addresses unless the operator allowed them (an owner chooses the issuer URL;
// the server must not become their way into its own network).
type Providers struct {
	lookup   func(ctx context.Context, orgID string) (*identity.SSOConfig, error)
	fallback *Provider
	client   *http.Client

	mu    sync.Mutex
	cache map[string]*Provider
}

// NewProviders returns the resolver: lookup reads an organization's own provider (not_found
// when it has none), fallback is the deployment's provider (nil when none), allowPrivate lets
// organizations' providers be on loopback and private addresses.
func NewProviders(lookup func(ctx context.Context, orgID string) (*identity.SSOConfig, error), fallback *Provider, allowPrivate bool) *Providers {
	dial := netguard.DefaultHooks(10*time.Second).Dialer(allowPrivate, nil)
	tr := &http.Transport{DialContext: dial, Proxy: nil, TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: 15 * time.Second,
		MaxIdleConnsPerHost: 2, IdleConnTimeout: 90 * time.Second}
	return &Providers{lookup: lookup, fallback: fallback, cache: map[string]*Provider{},
		client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// Provider returns the organization's provider, with redirectURL (the console's
// /sso/callback) for an organization's own; not_found when it has none, unauthorized when its
// provider cannot be reached or discovered.
func (ps *Providers) Provider(ctx context.Context, orgID, redirectURL string) (*Provider, error) {
	c, err := ps.lookup(ctx, orgID)
	if core.IsNotFound(err) {
		if ps.fallback != nil && ps.fallback.cfg.OrgID == orgID {
			return ps.fallback, nil
		}
		return nil, core.Errorf(core.CodeNotFound, "this organization has no single sign-on")
	}
	if err != nil {
		return nil, err
	}
	cfg := Config{OrgID: c.OrganizationID, Issuer: c.Issuer, ClientID: c.ClientID, ClientSecret: c.ClientSecret, RedirectURL: redirectURL,
		AllowedDomains: c.AllowedDomains, DefaultRole: c.DefaultRole, client: ps.client}
	ps.mu.Lock()
	p := ps.cache[orgID]
	ps.mu.Unlock()
	if p != nil && p.cfg.same(cfg) {
		return p, nil
	}
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if p, err = New(dctx, cfg); err != nil {
		return nil, core.Wrap(core.CodeUnauthorized, err, "the organization's identity provider could not be reached: ask its owner to check the issuer URL")
	}
	ps.mu.Lock()
	ps.cache[orgID] = p
	ps.mu.Unlock()
	return p, nil
}

// same reports whether two configurations make the same provider.
func (c Config) same(o Config) bool {
	return c.OrgID == o.OrgID && c.Issuer == o.Issuer && c.ClientID == o.ClientID && c.ClientSecret == o.ClientSecret &&
		c.RedirectURL == o.RedirectURL && slices.Equal(c.AllowedDomains, o.AllowedDomains) && c.DefaultRole == o.DefaultRole
}
