// Package verifier is the verifier's credential: what lets a verification's browser be a
// visitor from a place it chooses, and keeps the decisions it makes out of the proof of consent.
//
// A verification scan must see each regional rule of a site as a visitor that rule covers,
// wherever the scanner runs. The server therefore lets a request name the visitor's place
// (Header, LocationHeader) only with a credential it issued itself for that verification: one
// site, a few minutes. A request with any other value is an ordinary visitor's, its location
// resolved as always (a forged header changes nothing). Decisions posted with a valid
// credential are answered as any other (the runtime behaves as it does for a visitor) but
// stored nowhere: not in the consent log, its chain, the statistics, the exports nor the
// webhooks. They belong in the scan's own results.
package verifier

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// The request headers a verifier's browser sends to consentd's public endpoints.
const (
	// Header carries the credential.
	Header = "Consentd-Verifier"
	// LocationHeader is the place the visitor is from, counted only with a valid credential: an
	// ISO 3166-1 country ("FR"), an ISO 3166-2 subdivision ("US-CA"), or RegionUnknown.
	LocationHeader = "Consentd-Verifier-Location"
	// TokenPrefix starts every credential, so that one is recognised in a log or a header.
	TokenPrefix = "cdv_"
)

// DefaultTTL is how long a credential is valid when its issuer names no time: longer than a
// verification may run, short enough that a leaked one is soon worthless.
const DefaultTTL = 30 * time.Minute

// MaxTTL bounds a credential's life.
const MaxTTL = 2 * time.Hour

// Credential is an issued credential, as stored: the hash of its token, never the token.
type Credential struct {
	TokenHash  string
	SiteID     string
	ProjectKey string
	ExpiresAt  time.Time
}

// Store is the verifier's port.
type Store interface {
	// CreateVerifierCredential stores c.
	CreateVerifierCredential(ctx context.Context, c *Credential) error
	// VerifierCredential returns the credential with this token hash, not_found without one.
	VerifierCredential(ctx context.Context, tokenHash string) (*Credential, error)
	// DeleteVerifierCredentialsBefore deletes the credentials that expired before t.
	DeleteVerifierCredentialsBefore(ctx context.Context, t time.Time) error
}

// Verifiers issues and checks credentials.
type Verifiers struct {
	Store Store
	Clock core.Clock
}

// TokenHash is the stored form of a token.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Issue makes a credential for one verification of site, valid for ttl (DefaultTTL when zero,
// at most MaxTTL). Only the system (the scan worker) issues them. It returns the token, which
// exists nowhere else, and its expiry.
func (v *Verifiers) Issue(ctx context.Context, site *core.Site, ttl time.Duration) (string, time.Time, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return "", time.Time{}, err
	}
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	ttl = min(ttl, MaxTTL)
	now := v.Clock.Now()
	// Expired credentials are worthless: they go when a new one is made.
	if err := v.Store.DeleteVerifierCredentialsBefore(ctx, now); err != nil {
		return "", time.Time{}, err
	}
	token := TokenPrefix + rand.Text()
	c := &Credential{TokenHash: TokenHash(token), SiteID: site.ID, ProjectKey: site.ProjectKey, ExpiresAt: now.Add(ttl)}
	if err := v.Store.CreateVerifierCredential(ctx, c); err != nil {
		return "", time.Time{}, err
	}
	return token, c.ExpiresAt, nil
}

// Valid reports whether token is a credential issued for the site of projectKey that has not
// expired. Anything else (no token, a forged or expired one, another site's) is false: the
// request is then an ordinary visitor's.
func (v *Verifiers) Valid(ctx context.Context, token, projectKey string) bool {
	token = strings.TrimSpace(token)
	if !strings.HasPrefix(token, TokenPrefix) || len(token) > 100 || projectKey == "" {
		return false
	}
	c, err := v.Store.VerifierCredential(ctx, TokenHash(token))
	if err != nil {
		return false
	}
	return c.ProjectKey == projectKey && v.Clock.Now().Before(c.ExpiresAt)
}

// Place is the location a LocationHeader value names; ok is false for a value that names no
// place (then the request's location is resolved as always).
func Place(value string) (loc core.Location, ok bool) {
	value = strings.TrimSpace(value)
	if value == core.RegionUnknown {
		return core.Location{}, true
	}
	if strings.Contains(value, "-") {
		loc = core.LocationOf("", value)
		return loc, loc.Region != ""
	}
	loc = core.LocationOf(value, "")
	return loc, loc.Country != ""
}
