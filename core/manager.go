package core

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// Manager holds the use cases of consentd. Every site-scoped method takes the organization of
// the caller and answers not_found for another organization's site.
type Manager struct {
	Store   Store
	Queue   ScanQueue
	Crawler SiteCrawler
	Catalog Catalog
	// Now is the clock; NewID returns a new unique identifier (a UUID).
	Now   func() time.Time
	NewID func() string

	consentCache ttlCache[consentView]
	configCache  ttlCache[*PublicConfig]
}

func (m *Manager) now() time.Time { return m.Now().UTC().Truncate(time.Microsecond) }

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
func (m *Manager) CreateOrganization(ctx context.Context, name string) (*Organization, error) {
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > MaxSiteName {
		return nil, Errorf(CodeInvalid, "name: must be 1 to %d characters", MaxSiteName)
	}
	o := &Organization{ID: m.NewID(), Name: name, CreatedAt: m.now()}
	return o, m.Store.CreateOrganization(ctx, o)
}

// CreateAPIKey creates an API key for the organization. key is used when not empty (the
// bootstrap key), otherwise a random one is made; it is returned once and stored as a hash.
func (m *Manager) CreateAPIKey(ctx context.Context, orgID, name, key string) (*APIKey, string, error) {
	if _, err := m.Store.Organization(ctx, orgID); err != nil {
		return nil, "", err
	}
	if key == "" {
		key = NewAPIKey()
	} else if len(key) < 16 {
		return nil, "", Errorf(CodeInvalid, "api key: must be at least 16 characters")
	}
	k := &APIKey{ID: m.NewID(), OrganizationID: orgID, Name: name, Hash: HashAPIKey(key), CreatedAt: m.now()}
	if err := m.Store.CreateAPIKey(ctx, k); err != nil {
		return nil, "", err
	}
	return k, key, nil
}

// Bootstrap prepares an empty database: when it has no organization, it creates organization
// "default" and an API key for it (key, or a random one when key is empty) and returns the
// key; otherwise it returns "".
func (m *Manager) Bootstrap(ctx context.Context, key string) (string, error) {
	n, err := m.Store.CountOrganizations(ctx)
	if err != nil || n > 0 {
		return "", err
	}
	org, err := m.CreateOrganization(ctx, "default")
	if err != nil {
		return "", err
	}
	_, plain, err := m.CreateAPIKey(ctx, org.ID, "bootstrap", key)
	return plain, err
}

// Authenticate returns the organization owning key; unauthorized when there is none.
func (m *Manager) Authenticate(ctx context.Context, key string) (string, error) {
	if key == "" {
		return "", Errorf(CodeUnauthorized, "missing API key: send Authorization: Bearer <key>")
	}
	k, err := m.Store.APIKeyByHash(ctx, HashAPIKey(key))
	if IsNotFound(err) {
		return "", Errorf(CodeUnauthorized, "invalid API key")
	}
	if err != nil {
		return "", err
	}
	return k.OrganizationID, nil
}

// CreateSite creates a site with its banner and the default categories, in one transaction.
func (m *Manager) CreateSite(ctx context.Context, orgID string, in SiteInput) (*Site, error) {
	if err := in.validate(true); err != nil {
		return nil, err
	}
	now := m.now()
	s := &Site{
		ID: m.NewID(), OrganizationID: orgID, Name: strings.TrimSpace(*in.Name), URL: *in.URL,
		ProjectKey: newProjectKey(), CreatedAt: now, UpdatedAt: now,
	}
	err := m.Store.InTx(ctx, func(tx Store) error {
		if err := tx.CreateSite(ctx, s); err != nil {
			return err
		}
		if err := tx.CreateBanner(ctx, newBanner(m.NewID(), s.ID, now)); err != nil {
			return err
		}
		for _, d := range defaultCategories {
			c := d
			c.ID, c.SiteID, c.IsDefault, c.CreatedAt, c.UpdatedAt = m.NewID(), s.ID, true, now, now
			c.NameTranslations, c.DescriptionTranslations = map[string]string{}, map[string]string{}
			if err := tx.CreateCategory(ctx, &c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Sites lists the organization's sites.
func (m *Manager) Sites(ctx context.Context, orgID string) ([]*Site, error) {
	return m.Store.Sites(ctx, orgID)
}

// Site returns a site of the organization.
func (m *Manager) Site(ctx context.Context, orgID, id string) (*Site, error) {
	return m.Store.Site(ctx, orgID, id)
}

// UpdateSite changes a site's name or URL.
func (m *Manager) UpdateSite(ctx context.Context, orgID, id string, in SiteInput) (*Site, error) {
	if err := in.validate(false); err != nil {
		return nil, err
	}
	var s *Site
	err := m.Store.InTx(ctx, func(tx Store) error {
		var err error
		if s, err = tx.Site(ctx, orgID, id); err != nil {
			return err
		}
		if in.Name != nil {
			s.Name = strings.TrimSpace(*in.Name)
		}
		if in.URL != nil {
			s.URL = *in.URL
		}
		s.UpdatedAt = m.now()
		return tx.UpdateSite(ctx, s)
	})
	return s, err
}

// DeleteSite removes a site and everything that belongs to it.
func (m *Manager) DeleteSite(ctx context.Context, orgID, id string) error {
	if _, err := m.Store.Site(ctx, orgID, id); err != nil {
		return err
	}
	defer m.forgetSite(id)
	return m.Store.DeleteSite(ctx, id)
}
