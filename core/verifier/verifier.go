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
	"github.com/consentd/consentd/core/banner"
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

// Store is the verifier's port: its credentials, and what issuing one to a caller reads and
// writes with them.
type Store interface {
	CredentialStore
	// Site finds a site of the organization; not_found otherwise.
	Site(ctx context.Context, orgID, id string) (*core.Site, error)
	// Banner returns a site's banner.
	Banner(ctx context.Context, siteID string) (*banner.Banner, error)
	core.AuditWriter
	// InTx runs fn in a transaction: fn's writes through tx commit together when it returns
	// nil and are rolled back otherwise.
	InTx(ctx context.Context, fn func(tx Store) error) error
}

// CredentialStore keeps the credentials; adapters implement it (verifier_credentials).
type CredentialStore interface {
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
	Audit core.Auditor
}

// Issued is a credential issued to a caller's own verification, with the places it may visit
// from: one per regional rule of the site (banner.VerificationPlaces).
type Issued struct {
	Credential string           `json:"credential" doc:"The verifier's credential: send it as Consentd-Verifier, with Consentd-Verifier-Location naming one of the places, to this site's public endpoints. Shown once."`
	ExpiresAt  time.Time        `json:"expiresAt"`
	Places     []core.RulePlace `json:"places" doc:"One place per regional rule of the site, each a place that rule covers; one place (location \"\") for a banner without regional rules."`
}

// IssueForSite issues a credential to a caller who may configure the site (consentd verify
// with an API key), valid DefaultTTL, and audits it.
func (v *Verifiers) IssueForSite(ctx context.Context, orgID, siteID string) (*Issued, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	site, err := v.Store.Site(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	b, err := v.Store.Banner(ctx, siteID)
	if err != nil {
		return nil, err
	}
	var token string
	var exp time.Time
	err = v.Store.InTx(ctx, func(tx Store) error {
		in := &Verifiers{Store: tx, Clock: v.Clock}
		if token, exp, err = in.issue(ctx, site, DefaultTTL); err != nil {
			return err
		}
		return v.Audit.Record(ctx, tx, orgID, siteID, core.AuditVerifierIssue, site.ID, nil, map[string]any{"expiresAt": exp})
	})
	if err != nil {
		return nil, err
	}
	return &Issued{Credential: token, ExpiresAt: exp, Places: b.VerificationPlaces()}, nil
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
	return v.issue(ctx, site, ttl)
}

func (v *Verifiers) issue(ctx context.Context, site *core.Site, ttl time.Duration) (string, time.Time, error) {
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
