package bunstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

type organization struct {
	bun.BaseModel `bun:"table:organizations"`
	ID            string    `bun:"id,pk"`
	Name          string    `bun:"name"`
	CreatedAt     time.Time `bun:"created_at"`
}

type apiKey struct {
	bun.BaseModel  `bun:"table:api_keys"`
	ID             string     `bun:"id,pk"`
	OrganizationID string     `bun:"organization_id"`
	Name           string     `bun:"name"`
	Prefix         string     `bun:"prefix"`
	Hash           string     `bun:"hash"`
	CreatedAt      time.Time  `bun:"created_at"`
	LastUsedAt     *time.Time `bun:"last_used_at"`
	ExpiresAt      *time.Time `bun:"expires_at"`
	Role           string     `bun:"role"`
	SiteIDs        *string    `bun:"site_ids"`
}

func (k *apiKey) core() *identity.APIKey {
	out := &identity.APIKey{ID: k.ID, OrganizationID: k.OrganizationID, Name: k.Name, Prefix: k.Prefix, Hash: k.Hash,
		CreatedAt: k.CreatedAt.UTC(), LastUsedAt: utcPtr(k.LastUsedAt), ExpiresAt: utcPtr(k.ExpiresAt), Role: core.Role(k.Role)}
	if k.SiteIDs != nil {
		out.SiteIDs = []string{}
		// A value this package wrote; an unreadable one limits the key to no site at all.
		_ = json.Unmarshal([]byte(*k.SiteIDs), &out.SiteIDs)
	}
	return out
}

// siteIDsColumn is the stored form of a key's sites: NULL for every site.
func siteIDsColumn(ids []string) *string {
	if ids == nil {
		return nil
	}
	b, _ := json.Marshal(ids) // a []string always marshals
	s := string(b)
	return &s
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// CreateOrganization implements core.OrgStore.
func (s *Store) CreateOrganization(ctx context.Context, o *identity.Organization) error {
	if err := newID("organization", o.ID); err != nil {
		return err
	}
	if err := storable("organization", o); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(&organization{ID: o.ID, Name: o.Name, CreatedAt: o.CreatedAt}).Exec(ctx)
	return translate(err, "organization")
}

// CountOrganizations implements core.OrgStore.
func (s *Store) CountOrganizations(ctx context.Context) (int, error) {
	n, err := s.db.NewSelect().Model((*organization)(nil)).Count(ctx)
	return int(n), translate(err, "organization")
}

// Organization implements core.OrgStore.
func (s *Store) Organization(ctx context.Context, id string) (*identity.Organization, error) {
	if err := findIDs("organization", id); err != nil {
		return nil, err
	}
	var o organization
	if err := s.db.NewSelect().Model(&o).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, translate(err, "organization")
	}
	return &identity.Organization{ID: o.ID, Name: o.Name, CreatedAt: o.CreatedAt.UTC()}, nil
}

// Organizations implements core.OrgStore.
func (s *Store) Organizations(ctx context.Context) ([]*identity.Organization, error) {
	var os []organization
	if err := s.db.NewSelect().Model(&os).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, translate(err, "organization")
	}
	out := make([]*identity.Organization, len(os))
	for i, o := range os {
		out[i] = &identity.Organization{ID: o.ID, Name: o.Name, CreatedAt: o.CreatedAt.UTC()}
	}
	return out, nil
}

// CreateAPIKey implements core.OrgStore.
func (s *Store) CreateAPIKey(ctx context.Context, k *identity.APIKey) error {
	if err := newID("api key", k.ID); err != nil {
		return err
	}
	if err := findIDs("organization", k.OrganizationID); err != nil {
		return core.Wrap(core.CodeNotFound, err, "api key refers to a row that does not exist")
	}
	if err := storable("api key", k); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(&apiKey{ID: k.ID, OrganizationID: k.OrganizationID, Name: k.Name, Prefix: k.Prefix,
		Hash: k.Hash, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, ExpiresAt: k.ExpiresAt,
		Role: string(k.Role), SiteIDs: siteIDsColumn(k.SiteIDs)}).Exec(ctx)
	return translate(err, "api key")
}

// APIKeyByHash implements core.OrgStore.
func (s *Store) APIKeyByHash(ctx context.Context, hash string) (*identity.APIKey, error) {
	if err := findKey("api key", hash); err != nil {
		return nil, err
	}
	var k apiKey
	if err := s.db.NewSelect().Model(&k).Where("hash = ?", hash).Scan(ctx); err != nil {
		return nil, translate(err, "api key")
	}
	return k.core(), nil
}

// APIKeys implements core.OrgStore.
func (s *Store) APIKeys(ctx context.Context, orgID string) ([]*identity.APIKey, error) {
	out := []*identity.APIKey{}
	if !isID(orgID) {
		return out, nil
	}
	var ks []apiKey
	if err := s.db.NewSelect().Model(&ks).Where("organization_id = ?", orgID).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, translate(err, "api key")
	}
	for i := range ks {
		out = append(out, ks[i].core())
	}
	return out, nil
}

// APIKey implements core.OrgStore.
func (s *Store) APIKey(ctx context.Context, orgID, id string) (*identity.APIKey, error) {
	if err := findIDs("api key", orgID, id); err != nil {
		return nil, err
	}
	var k apiKey
	if err := s.db.NewSelect().Model(&k).Where("id = ? AND organization_id = ?", id, orgID).Scan(ctx); err != nil {
		return nil, translate(err, "api key")
	}
	return k.core(), nil
}

// DeleteAPIKey implements core.OrgStore.
func (s *Store) DeleteAPIKey(ctx context.Context, orgID, id string) error {
	if err := findIDs("api key", orgID, id); err != nil {
		return err
	}
	res, err := s.db.NewDelete().Model((*apiKey)(nil)).Where("id = ? AND organization_id = ?", id, orgID).Exec(ctx)
	return mustAffect(res, err, "api key")
}

// ExpireAPIKey implements core.OrgStore.
func (s *Store) ExpireAPIKey(ctx context.Context, orgID, id string, at time.Time) error {
	if err := findIDs("api key", orgID, id); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model((*apiKey)(nil)).Set("expires_at = ?", at).
		Where("id = ? AND organization_id = ?", id, orgID).Exec(ctx)
	return mustAffect(res, err, "api key")
}

// TouchAPIKey implements core.OrgStore.
func (s *Store) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	if err := findIDs("api key", id); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model((*apiKey)(nil)).Set("last_used_at = ?", at).Where("id = ?", id).Exec(ctx)
	return mustAffect(res, err, "api key")
}
