package memstore

import (
	"context"
	"time"

	"github.com/consentd/consentd/core/verifier"
)

// CreateVerifierCredential implements verifier.Store.
func (s *Store) CreateVerifierCredential(_ context.Context, c *verifier.Credential) error {
	defer s.lock()()
	if _, ok := s.d.sites[c.SiteID]; !ok {
		return notFound("site")
	}
	if _, ok := s.d.verifiers[c.TokenHash]; ok {
		return conflict("verifier credential")
	}
	if s.d.verifiers == nil {
		s.d.verifiers = map[string]verifier.Credential{}
	}
	v := *c
	v.ExpiresAt = v.ExpiresAt.UTC()
	s.d.verifiers[c.TokenHash] = v
	return nil
}

// VerifierCredential implements verifier.Store.
func (s *Store) VerifierCredential(_ context.Context, tokenHash string) (*verifier.Credential, error) {
	defer s.lock()()
	v, ok := s.d.verifiers[tokenHash]
	if !ok {
		return nil, notFound("verifier credential")
	}
	if _, ok := s.d.sites[v.SiteID]; !ok {
		return nil, notFound("verifier credential")
	}
	return &v, nil
}

// DeleteVerifierCredentialsBefore implements verifier.Store.
func (s *Store) DeleteVerifierCredentialsBefore(_ context.Context, t time.Time) error {
	defer s.lock()()
	for k, v := range s.d.verifiers {
		if v.ExpiresAt.Before(t) {
			delete(s.d.verifiers, k)
		}
	}
	return nil
}
