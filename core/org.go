package core

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// Organization is an account that owns sites and API keys.
type Organization struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// APIKey is a bearer credential of an organization. Only a hash of the key is stored.
type APIKey struct {
	ID             string    `json:"id"`
	OrganizationID string    `json:"organizationId"`
	Name           string    `json:"name"`
	Hash           string    `json:"-"`
	CreatedAt      time.Time `json:"createdAt"`
}

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

func newProjectKey() string { return "pk_" + strings.ToLower(rand.Text()) }

// CreateOrganization creates an organization.
func (m *Orgs) CreateOrganization(ctx context.Context, name string) (*Organization, error) {
	o, err := m.newOrganization(name)
	if err != nil {
		return nil, err
	}
	return o, m.store.CreateOrganization(ctx, o)
}

func (m *Orgs) newOrganization(name string) (*Organization, error) {
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > MaxSiteName {
		return nil, Errorf(CodeInvalid, "name: must be 1 to %d characters", MaxSiteName)
	}
	if err := CheckText("name", name); err != nil {
		return nil, err
	}
	return &Organization{ID: m.newID(), Name: name, CreatedAt: m.now()}, nil
}

// Organizations lists every organization, oldest first (for the operator's CLI).
func (m *Orgs) Organizations(ctx context.Context) ([]*Organization, error) {
	return m.store.Organizations(ctx)
}

// FindOrganization finds an organization by ID or, failing that, by name; not_found when
// none matches, conflict when several share the name.
func (m *Orgs) FindOrganization(ctx context.Context, ref string) (*Organization, error) {
	if o, err := m.store.Organization(ctx, ref); err == nil || !IsNotFound(err) {
		return o, err
	}
	all, err := m.store.Organizations(ctx)
	if err != nil {
		return nil, err
	}
	var found *Organization
	for _, o := range all {
		if o.Name != ref {
			continue
		}
		if found != nil {
			return nil, Errorf(CodeConflict, "several organizations are named %q: use the ID", ref)
		}
		found = o
	}
	if found == nil {
		return nil, Errorf(CodeNotFound, "organization %q not found", ref)
	}
	return found, nil
}

// CreateAPIKey creates an API key for the organization. key is used when not empty (the
// bootstrap key), otherwise a random one is made; it is returned once and stored as a hash.
func (m *Orgs) CreateAPIKey(ctx context.Context, orgID, name, key string) (*APIKey, string, error) {
	var k *APIKey
	err := m.store.InTx(ctx, func(tx Store) error {
		var err error
		k, key, err = m.createAPIKey(ctx, tx, orgID, name, key)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return k, key, nil
}

func (m *Orgs) createAPIKey(ctx context.Context, tx Store, orgID, name, key string) (*APIKey, string, error) {
	if _, err := tx.Organization(ctx, orgID); err != nil {
		return nil, "", err
	}
	if err := CheckText("name", name); err != nil {
		return nil, "", err
	}
	if key == "" {
		key = NewAPIKey()
	} else if len(key) < 16 {
		return nil, "", Errorf(CodeInvalid, "api key: must be at least 16 characters")
	}
	k := &APIKey{ID: m.newID(), OrganizationID: orgID, Name: name, Hash: HashAPIKey(key), CreatedAt: m.now()}
	if err := tx.CreateAPIKey(ctx, k); err != nil {
		return nil, "", err
	}
	return k, key, nil
}

// Bootstrap prepares an empty database: when it has no organization, it creates organization
// "default" and an API key for it (key, or a random one when key is empty) in one transaction
// and returns the key; otherwise it returns "". The caller must show a random key before
// anything else can fail, since it is stored only as a hash.
func (m *Orgs) Bootstrap(ctx context.Context, key string) (string, error) {
	var plain string
	err := m.store.InTx(ctx, func(tx Store) error {
		n, err := tx.CountOrganizations(ctx)
		if err != nil || n > 0 {
			return err
		}
		org, err := m.newOrganization("default")
		if err != nil {
			return err
		}
		if err := tx.CreateOrganization(ctx, org); err != nil {
			return err
		}
		_, plain, err = m.createAPIKey(ctx, tx, org.ID, "bootstrap", key)
		return err
	})
	if err != nil {
		return "", err
	}
	return plain, nil
}

// Authenticate returns the organization owning key; unauthorized when there is none.
func (m *Orgs) Authenticate(ctx context.Context, key string) (string, error) {
	if key == "" {
		return "", Errorf(CodeUnauthorized, "missing API key: send Authorization: Bearer <key>")
	}
	k, err := m.store.APIKeyByHash(ctx, HashAPIKey(key))
	if IsNotFound(err) {
		return "", Errorf(CodeUnauthorized, "invalid API key")
	}
	if err != nil {
		return "", err
	}
	return k.OrganizationID, nil
}
