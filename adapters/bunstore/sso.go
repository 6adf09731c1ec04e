package bunstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

var _ identity.SSOStore = (*Store)(nil)

type ssoRow struct {
	bun.BaseModel  `bun:"table:sso_providers"`
	OrganizationID string    `bun:"organization_id,pk"`
	Issuer         string    `bun:"issuer"`
	ClientID       string    `bun:"client_id"`
	ClientSecret   string    `bun:"client_secret"`
	AllowedDomains string    `bun:"allowed_domains"`
	DefaultRole    string    `bun:"default_role"`
	CreatedAt      time.Time `bun:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at"`
}

// PutSSOConfig implements core.SSOStore.
func (s *Store) PutSSOConfig(ctx context.Context, c *identity.SSOConfig) error {
	if err := findIDs("organization", c.OrganizationID); err != nil {
		return err
	}
	if err := storable("single sign-on", c); err != nil {
		return err
	}
	domains, err := json.Marshal(c.AllowedDomains)
	if err != nil {
		return err
	}
	_, err = s.db.NewInsert().Model(&ssoRow{OrganizationID: c.OrganizationID, Issuer: c.Issuer, ClientID: c.ClientID,
		ClientSecret: c.ClientSecret, AllowedDomains: string(domains), DefaultRole: string(c.DefaultRole), CreatedAt: c.CreatedAt,
		UpdatedAt: c.UpdatedAt}).
		On("CONFLICT (organization_id) DO UPDATE").
		Set("issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id, client_secret = EXCLUDED.client_secret").
		Set("allowed_domains = EXCLUDED.allowed_domains, default_role = EXCLUDED.default_role, updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return translate(err, "organization")
}

// SSOConfig implements core.SSOStore.
func (s *Store) SSOConfig(ctx context.Context, orgID string) (*identity.SSOConfig, error) {
	if err := findIDs("single sign-on", orgID); err != nil {
		return nil, err
	}
	var r ssoRow
	if err := s.db.NewSelect().Model(&r).Where("organization_id = ?", orgID).Scan(ctx); err != nil {
		return nil, translate(err, "single sign-on")
	}
	c := &identity.SSOConfig{OrganizationID: r.OrganizationID, Issuer: r.Issuer, ClientID: r.ClientID, ClientSecret: r.ClientSecret,
		AllowedDomains: []string{}, DefaultRole: core.Role(r.DefaultRole), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if err := json.Unmarshal([]byte(r.AllowedDomains), &c.AllowedDomains); err != nil {
		return nil, core.Wrap(core.CodeInternal, err, "single sign-on: allowed domains are not readable")
	}
	return c, nil
}

// DeleteSSOConfig implements core.SSOStore.
func (s *Store) DeleteSSOConfig(ctx context.Context, orgID string) error {
	if err := findIDs("single sign-on", orgID); err != nil {
		return err
	}
	res, err := s.db.NewDelete().Model((*ssoRow)(nil)).Where("organization_id = ?", orgID).Exec(ctx)
	return mustAffect(res, err, "single sign-on")
}

// CountSSOConfigs implements core.SSOStore.
func (s *Store) CountSSOConfigs(ctx context.Context) (int, error) {
	n, err := s.db.NewSelect().Model((*ssoRow)(nil)).Count(ctx)
	return int(n), translate(err, "single sign-on")
}
