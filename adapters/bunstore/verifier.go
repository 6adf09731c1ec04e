package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core/verifier"
)

type verifierCredential struct {
	bun.BaseModel `bun:"table:verifier_credentials"`
	TokenHash     string    `bun:"token_hash,pk"`
	SiteID        string    `bun:"site_id"`
	ProjectKey    string    `bun:"project_key"`
	ExpiresAt     time.Time `bun:"expires_at"`
}

// CreateVerifierCredential implements verifier.Store.
func (s *Store) CreateVerifierCredential(ctx context.Context, c *verifier.Credential) error {
	_, err := s.db.NewInsert().Model(&verifierCredential{TokenHash: c.TokenHash, SiteID: c.SiteID, ProjectKey: c.ProjectKey,
		ExpiresAt: c.ExpiresAt.UTC()}).Exec(ctx)
	return translate(err, "verifier credential")
}

// VerifierCredential implements verifier.Store.
func (s *Store) VerifierCredential(ctx context.Context, tokenHash string) (*verifier.Credential, error) {
	var m verifierCredential
	if err := s.db.NewSelect().Model(&m).Where("token_hash = ?", tokenHash).Scan(ctx); err != nil {
		return nil, translate(err, "verifier credential")
	}
	return &verifier.Credential{TokenHash: m.TokenHash, SiteID: m.SiteID, ProjectKey: m.ProjectKey, ExpiresAt: m.ExpiresAt.UTC()}, nil
}

// DeleteVerifierCredentialsBefore implements verifier.Store.
func (s *Store) DeleteVerifierCredentialsBefore(ctx context.Context, t time.Time) error {
	_, err := s.db.NewDelete().Model((*verifierCredential)(nil)).Where("expires_at < ?", t.UTC()).Exec(ctx)
	return translate(err, "verifier credential")
}
