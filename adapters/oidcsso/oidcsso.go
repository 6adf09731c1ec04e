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

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/consentd/consentd/core"
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
}

// Provider is a discovered OpenID provider.
type Provider struct {
	cfg      Config
	oauth    oauth2.Config
	verifier *oidc.IDTokenVerifier
}

// New discovers the provider (one request to its discovery document).
func New(ctx context.Context, cfg Config) (*Provider, error) {
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
func (p *Provider) Policy() core.SSOPolicy {
	return core.SSOPolicy{OrgID: p.cfg.OrgID, AllowedDomains: p.cfg.AllowedDomains, DefaultRole: p.cfg.DefaultRole}
}

// AuthCodeURL is where to send the browser, with the state and nonce the callback checks.
func (p *Provider) AuthCodeURL(state, nonce string) string {
	return p.oauth.AuthCodeURL(state, oidc.Nonce(nonce))
}

// Exchange trades the callback's code for tokens and returns the identity of the ID token,
// after checking its signature, issuer, audience, expiry and nonce; unauthorized otherwise.
func (p *Provider) Exchange(ctx context.Context, code, nonce string) (core.ExternalIdentity, error) {
	var id core.ExternalIdentity
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
	return core.ExternalIdentity{Issuer: idt.Issuer, Subject: idt.Subject, Email: claims.Email,
		EmailVerified: claims.EmailVerified, Name: claims.Name}, nil
}
