package identity

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// Organization is an account that owns sites and API keys.
type Organization struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// APIKey is a bearer credential of an organization. Only a hash of the key is stored, with
// its first characters (Prefix) so that an operator can tell keys apart.
type APIKey struct {
	ID             string    `json:"id"`
	OrganizationID string    `json:"organizationId"`
	Name           string    `json:"name"`
	Prefix         string    `json:"prefix"`
	Hash           string    `json:"-"`
	CreatedAt      time.Time `json:"createdAt"`
	// LastUsedAt is when the key last authenticated a request, to the minute
	// (APIKeyTouchInterval); nil when never.
	LastUsedAt *time.Time `json:"lastUsedAt"`
	// ExpiresAt is when a rotated key stops working; nil for a key that does not expire.
	ExpiresAt *time.Time `json:"expiresAt"`
	// Role is what the key may do; keys made before roles existed are owners.
	Role core.Role `json:"role"`
	// SiteIDs, when not nil, are the only sites the key may act on.
	SiteIDs []string `json:"siteIds"`
}

// Actor is the caller a request authenticated with this key makes.
func (k *APIKey) Actor() *core.Actor {
	name := k.Prefix + "…"
	if k.Name != "" {
		name = k.Name + " (" + name + ")"
	}
	return &core.Actor{Kind: core.ActorKey, ID: k.ID, Name: name, OrgID: k.OrganizationID, Role: k.Role, SiteIDs: k.SiteIDs}
}

// APIKeyInput describes a key to create. Role defaults to admin for keys made through the
// API or the console; nil SiteIDs allows every site of the organization.
type APIKeyInput struct {
	Name    string
	Role    core.Role
	SiteIDs []string
	// Key is the key itself when the operator chose it (the bootstrap key); "" makes one.
	Key string
}

// MaxAPIKeySites is how many sites a key may be limited to.
const MaxAPIKeySites = 100

// Valid reports whether the key still authenticates at now.
func (k *APIKey) Valid(now time.Time) bool { return k.ExpiresAt == nil || now.Before(*k.ExpiresAt) }

// OrgStore persists organizations and API keys.
type OrgStore interface {
	// CreateOrganization stores a new organization.
	CreateOrganization(ctx context.Context, o *Organization) error
	// CountOrganizations counts all organizations.
	CountOrganizations(ctx context.Context) (int, error)
	// CreateAPIKey stores a new key; conflict when its hash exists.
	CreateAPIKey(ctx context.Context, k *APIKey) error
	// APIKeyByHash finds a key by its hash; not_found when there is none.
	APIKeyByHash(ctx context.Context, hash string) (*APIKey, error)
	// Organization finds an organization; not_found when there is none.
	Organization(ctx context.Context, id string) (*Organization, error)
	// Organizations lists every organization, oldest first.
	Organizations(ctx context.Context) ([]*Organization, error)
	// APIKeys lists an organization's keys, oldest first (none for an unknown organization).
	APIKeys(ctx context.Context, orgID string) ([]*APIKey, error)
	// APIKey finds a key of the organization; not_found when there is none.
	APIKey(ctx context.Context, orgID, id string) (*APIKey, error)
	// DeleteAPIKey deletes a key of the organization; not_found when there is none.
	DeleteAPIKey(ctx context.Context, orgID, id string) error
	// ExpireAPIKey sets when a key of the organization stops working; not_found when there
	// is none.
	ExpireAPIKey(ctx context.Context, orgID, id string, at time.Time) error
	// TouchAPIKey records that a key was used at at; not_found when there is none.
	TouchAPIKey(ctx context.Context, id string, at time.Time) error
}

// API key rules.
const (
	// MaxAPIKeyName is the longest label of a key.
	MaxAPIKeyName = 100
	// MinAPIKeyLength is the shortest key an operator may choose (the bootstrap key).
	MinAPIKeyLength = 16
	// APIKeyTouchInterval is how stale a key's lastUsedAt may be: a key authenticating many
	// requests is written at most once per interval.
	APIKeyTouchInterval = time.Minute
	// DefaultRotateGrace is how long a rotated key keeps working when no grace is given.
	DefaultRotateGrace = 24 * time.Hour
	// MaxRotateGrace is the longest grace period of a rotated key.
	MaxRotateGrace = 30 * 24 * time.Hour
)

// apiKeyPrefix is the part of a key shown in listings: "cd_" and 8 of a generated key's 52
// random characters (40 bits, not enough to guess the rest), 4 characters of a chosen one.
func apiKeyPrefix(key string) string {
	if strings.HasPrefix(key, APIKeyPrefix) && len(key) >= 40 {
		return key[:len(APIKeyPrefix)+8]
	}
	return key[:min(4, len(key)/4)]
}

// HashAPIKey returns the stored form of an API key. Keys carry 260 bits of randomness, so a
// plain SHA-256 is enough and lets a key be found by its hash.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// APIKeyPrefix starts every API key, so that leaked keys are easy to recognise.
const APIKeyPrefix = "cd_"

// NewAPIKey returns a fresh random API key.
func NewAPIKey() string { return APIKeyPrefix + strings.ToLower(rand.Text()+rand.Text()) }

// CreateOrganization creates an organization.
func (orgs *Orgs) CreateOrganization(ctx context.Context, name string) (*Organization, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return nil, err
	}
	o, err := orgs.newOrganization(name)
	if err != nil {
		return nil, err
	}
	return o, orgs.Store.CreateOrganization(ctx, o)
}

func (orgs *Orgs) newOrganization(name string) (*Organization, error) {
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > core.MaxSiteName {
		return nil, core.FieldErrorf("name", "must be 1 to %d characters", core.MaxSiteName)
	}
	if err := core.CheckText("name", name); err != nil {
		return nil, err
	}
	return &Organization{ID: orgs.NewID(), Name: name, CreatedAt: orgs.Clock.Now()}, nil
}

// Organizations lists every organization, oldest first (for the operator's CLI).
func (orgs *Orgs) Organizations(ctx context.Context) ([]*Organization, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return nil, err
	}
	return orgs.Store.Organizations(ctx)
}

// FindOrganization finds an organization by ID or, failing that, by name; not_found when
// none matches, conflict when several share the name.
func (orgs *Orgs) FindOrganization(ctx context.Context, ref string) (*Organization, error) {
	if o, err := orgs.Store.Organization(ctx, ref); err == nil || !core.IsNotFound(err) {
		return o, err
	}
	all, err := orgs.Store.Organizations(ctx)
	if err != nil {
		return nil, err
	}
	var found *Organization
	for _, o := range all {
		if o.Name != ref {
			continue
		}
		if found != nil {
			return nil, core.Errorf(core.CodeConflict, "several organizations are named %q: use the ID", ref)
		}
		found = o
	}
	if found == nil {
		return nil, core.Errorf(core.CodeNotFound, "organization %q not found", ref)
	}
	return found, nil
}

// CreateAPIKey creates an owner key for the organization, for the operator's CLI. key is used
// when not empty (the bootstrap key), otherwise a random one is made; it is returned once and
// stored as a hash.
func (orgs *Orgs) CreateAPIKey(ctx context.Context, orgID, name, key string) (*APIKey, string, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return nil, "", err
	}
	return orgs.IssueAPIKey(ctx, orgID, APIKeyInput{Name: name, Role: core.RoleOwner, Key: key})
}

// IssueAPIKey creates a key with a role (admin when empty) and optionally limited to some
// sites of the organization. The caller needs the keys permission, and the owner-keys one
// for an owner key; a caller cannot give more than its own role.
func (orgs *Orgs) IssueAPIKey(ctx context.Context, orgID string, in APIKeyInput) (*APIKey, string, error) {
	if in.Role == "" {
		in.Role = core.RoleAdmin
	}
	if !core.ValidRole(in.Role) {
		return nil, "", core.FieldErrorf("role", "must be one of owner, admin, editor, privacy, viewer")
	}
	if err := authorizeKeyRole(ctx, orgID, in.Role); err != nil {
		return nil, "", err
	}
	if in.SiteIDs != nil {
		if len(in.SiteIDs) == 0 {
			// slices.Sorted makes an empty list nil: a key for every site
			return nil, "", core.FieldErrorf("siteIds", "at least one site (leave siteIds out for every site)")
		}
		if len(in.SiteIDs) > MaxAPIKeySites {
			return nil, "", core.FieldErrorf("siteIds", "at most %d sites", MaxAPIKeySites)
		}
		in.SiteIDs = slices.Compact(slices.Sorted(slices.Values(in.SiteIDs)))
	}
	var k *APIKey
	var key string
	err := orgs.Store.InTx(ctx, func(tx Store) error {
		for _, id := range in.SiteIDs {
			if _, err := tx.Site(ctx, orgID, id); core.IsNotFound(err) {
				return core.FieldErrorf("siteIds", "site %s not found", id)
			} else if err != nil {
				return err
			}
		}
		var err error
		if k, key, err = orgs.createAPIKey(ctx, tx, orgID, in); err != nil {
			return err
		}
		return orgs.Audit.Record(ctx, tx, orgID, "", core.AuditKeyCreate, k.ID, nil, k)
	})
	if err != nil {
		return nil, "", err
	}
	return k, key, nil
}

// authorizeKeyRole checks that the caller may manage keys of role r.
func authorizeKeyRole(ctx context.Context, orgID string, r core.Role) error {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return err
	}
	if r == core.RoleOwner {
		return core.Authorize(ctx, core.PermOwnerKeys, orgID, "")
	}
	return nil
}

func (orgs *Orgs) createAPIKey(ctx context.Context, tx Store, orgID string, in APIKeyInput) (*APIKey, string, error) {
	if _, err := tx.Organization(ctx, orgID); err != nil {
		return nil, "", err
	}
	name, key := strings.TrimSpace(in.Name), in.Key
	if len([]rune(name)) > MaxAPIKeyName {
		return nil, "", core.FieldErrorf("name", "must be at most %d characters", MaxAPIKeyName)
	}
	if err := core.CheckText("name", name); err != nil {
		return nil, "", err
	}
	if key == "" {
		key = NewAPIKey()
	} else if len(key) < MinAPIKeyLength {
		return nil, "", core.Errorf(core.CodeInvalid, "api key: must be at least %d characters", MinAPIKeyLength)
	}
	k := &APIKey{ID: orgs.NewID(), OrganizationID: orgID, Name: name, Prefix: apiKeyPrefix(key), Hash: HashAPIKey(key),
		CreatedAt: orgs.Clock.Now(), Role: in.Role, SiteIDs: in.SiteIDs}
	if err := tx.CreateAPIKey(ctx, k); err != nil {
		return nil, "", err
	}
	return k, key, nil
}

// Bootstrap prepares an empty database: when it has no organization, it creates organization
// "default" and an API key for it (key, or a random one when key is empty) in one transaction
// and returns the key; otherwise it returns "". The caller must show a random key before
// anything else can fail, since it is stored only as a hash.
func (orgs *Orgs) Bootstrap(ctx context.Context, key string) (string, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return "", err
	}
	var plain string
	err := orgs.Store.InTx(ctx, func(tx Store) error {
		n, err := tx.CountOrganizations(ctx)
		if err != nil || n > 0 {
			return err
		}
		org, err := orgs.newOrganization("default")
		if err != nil {
			return err
		}
		if err := tx.CreateOrganization(ctx, org); err != nil {
			return err
		}
		_, plain, err = orgs.createAPIKey(ctx, tx, org.ID, APIKeyInput{Name: "bootstrap", Role: core.RoleOwner, Key: key})
		return err
	})
	if err != nil {
		return "", err
	}
	return plain, nil
}

// Authenticate returns the organization owning key; unauthorized when there is none.
func (orgs *Orgs) Authenticate(ctx context.Context, key string) (string, error) {
	a, err := orgs.AuthenticateKey(ctx, key)
	if err != nil {
		return "", err
	}
	return a.OrgID, nil
}

// AuthenticateKey returns the caller that key makes (its organization, role and sites);
// unauthorized when the key does not exist or has expired.
func (orgs *Orgs) AuthenticateKey(ctx context.Context, key string) (*core.Actor, error) {
	if key == "" {
		return nil, core.Errorf(core.CodeUnauthorized, "missing API key: send Authorization: Bearer <key>")
	}
	k, err := orgs.Store.APIKeyByHash(ctx, HashAPIKey(key))
	if core.IsNotFound(err) {
		return nil, core.Errorf(core.CodeUnauthorized, "invalid API key")
	}
	if err != nil {
		return nil, err
	}
	now := orgs.Clock.Now()
	if !k.Valid(now) {
		return nil, core.Errorf(core.CodeUnauthorized, "API key expired: it was rotated, use its successor")
	}
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= APIKeyTouchInterval {
		// A failed write must not refuse a valid key: the next request tries again.
		if err := orgs.Store.TouchAPIKey(ctx, k.ID, now); err != nil {
			orgs.Log.WarnContext(ctx, "could not record an API key's last use", "key_id", k.ID, "error", err)
		}
	}
	return k.Actor(), nil
}

// SessionKeyActor returns the caller that a console session opened with API key keyID of
// organization orgID acts as (the key's role and sites); unauthorized when the key was
// revoked or rotated past its grace period. The session is the credential: like
// AuthenticateKey, it needs no caller.
func (orgs *Orgs) SessionKeyActor(ctx context.Context, orgID, keyID string) (*core.Actor, error) {
	keys, err := orgs.Store.APIKeys(ctx, orgID)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.ID == keyID && keyID != "" {
			if !k.Valid(orgs.Clock.Now()) {
				return nil, core.Errorf(core.CodeUnauthorized, "API key expired: it was rotated, use its successor")
			}
			return k.Actor(), nil
		}
	}
	return nil, core.Errorf(core.CodeUnauthorized, "invalid API key")
}

// APIKeys lists the organization's keys, oldest first, without their secrets.
func (orgs *Orgs) APIKeys(ctx context.Context, orgID string) ([]*APIKey, error) {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return nil, err
	}
	return orgs.Store.APIKeys(ctx, orgID)
}

// RevokeAPIKey deletes a key of the organization: it is refused from the next request on.
func (orgs *Orgs) RevokeAPIKey(ctx context.Context, orgID, id string) error {
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return err
	}
	return orgs.Store.InTx(ctx, func(tx Store) error {
		k, err := tx.APIKey(ctx, orgID, id)
		if err != nil {
			return err
		}
		if err := authorizeKeyRole(ctx, orgID, k.Role); err != nil {
			return err
		}
		if err := tx.DeleteAPIKey(ctx, orgID, id); err != nil {
			return err
		}
		return orgs.Audit.Record(ctx, tx, orgID, "", core.AuditKeyRevoke, id, k, nil)
	})
}

// RotateAPIKey replaces a key of the organization: it creates a key with the same name and lets
// the old one work for grace more (DefaultRotateGrace when nil; 0 ends it at once), never
// longer than it already would. It returns the new key (shown once) and the old one.
func (orgs *Orgs) RotateAPIKey(ctx context.Context, orgID, id string, grace *time.Duration) (newKey *APIKey, plain string, old *APIKey, err error) {
	g := DefaultRotateGrace
	if grace != nil {
		g = *grace
	}
	if g < 0 || g > MaxRotateGrace {
		return nil, "", nil, core.FieldErrorf("graceSeconds", "must be 0 to %d", int(MaxRotateGrace/time.Second))
	}
	if err := core.Authorize(ctx, core.PermKeys, orgID, ""); err != nil {
		return nil, "", nil, err
	}
	err = orgs.Store.InTx(ctx, func(tx Store) error {
		var err error
		if old, err = tx.APIKey(ctx, orgID, id); err != nil {
			return err
		}
		if err := authorizeKeyRole(ctx, orgID, old.Role); err != nil {
			return err
		}
		until := orgs.Clock.Now().Add(g)
		if old.ExpiresAt != nil && old.ExpiresAt.Before(until) {
			until = *old.ExpiresAt
		}
		if err := tx.ExpireAPIKey(ctx, orgID, id, until); err != nil {
			return err
		}
		old.ExpiresAt = &until
		if newKey, plain, err = orgs.createAPIKey(ctx, tx, orgID, APIKeyInput{Name: old.Name, Role: old.Role, SiteIDs: old.SiteIDs}); err != nil {
			return err
		}
		return orgs.Audit.Record(ctx, tx, orgID, "", core.AuditKeyRotate, old.ID, map[string]any{"expiresAt": nil},
			map[string]any{"expiresAt": until, "successor": newKey.ID})
	})
	if err != nil {
		return nil, "", nil, err
	}
	return newKey, plain, old, nil
}

// Orgs are the use cases of organizations and their API keys.
type Orgs struct {
	Store Store
	Clock core.Clock
	NewID func() string
	Log   *slog.Logger
	Audit core.Auditor
}
