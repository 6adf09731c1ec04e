package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core/tcf"
)

type vendorList struct {
	bun.BaseModel `bun:"table:tcf_vendor_lists"`
	Version       int       `bun:"version,pk"`
	Language      string    `bun:"language,pk"`
	LastUpdated   time.Time `bun:"last_updated"`
	FetchedAt     time.Time `bun:"fetched_at"`
	Body          string    `bun:"body"`
}

type gvlFetch struct {
	bun.BaseModel `bun:"table:tcf_gvl_fetches"`
	Resource      string    `bun:"resource,pk"`
	ETag          string    `bun:"etag"`
	LastModified  string    `bun:"last_modified"`
	ExpiresAt     time.Time `bun:"expires_at"`
	CheckedAt     time.Time `bun:"checked_at"`
}

// SaveGVL implements core.GVLStore.
func (s *Store) SaveGVL(ctx context.Context, v *tcf.StoredGVL) error {
	_, err := s.db.NewInsert().Model(&vendorList{Version: v.Version, Language: v.Language, LastUpdated: v.LastUpdated.UTC(),
		FetchedAt: v.FetchedAt.UTC(), Body: string(v.Body)}).On("CONFLICT (version, language) DO NOTHING").Exec(ctx)
	return translate(err, "vendor list version")
}

// StoredGVL implements core.GVLStore.
func (s *Store) StoredGVL(ctx context.Context, version int, lang string) (*tcf.StoredGVL, error) {
	var v vendorList
	err := s.db.NewSelect().Model(&v).Where("version = ? AND language = ?", version, lang).Scan(ctx)
	if err != nil {
		return nil, translate(err, "vendor list version")
	}
	return &tcf.StoredGVL{Version: v.Version, Language: v.Language, LastUpdated: v.LastUpdated.UTC(), FetchedAt: v.FetchedAt.UTC(),
		Body: []byte(v.Body)}, nil
}

// LatestGVLVersion implements core.GVLStore.
func (s *Store) LatestGVLVersion(ctx context.Context, lang string) (int, error) {
	var version int
	err := s.db.NewSelect().Model((*vendorList)(nil)).Column("version").Where("language = ?", lang).
		Order("version DESC").Limit(1).Scan(ctx, &version)
	if err != nil {
		return 0, translate(err, "vendor list")
	}
	return version, nil
}

// GVLFetchState implements core.GVLStore.
func (s *Store) GVLFetchState(ctx context.Context, resource string) (*tcf.GVLFetch, error) {
	var f gvlFetch
	if err := s.db.NewSelect().Model(&f).Where("resource = ?", resource).Scan(ctx); err != nil {
		return nil, translate(err, "vendor list fetch")
	}
	return &tcf.GVLFetch{ETag: f.ETag, LastModified: f.LastModified, Expires: f.ExpiresAt.UTC(), CheckedAt: f.CheckedAt.UTC()}, nil
}

// SaveGVLFetchState implements core.GVLStore.
func (s *Store) SaveGVLFetchState(ctx context.Context, resource string, f *tcf.GVLFetch) error {
	_, err := s.db.NewInsert().Model(&gvlFetch{Resource: resource, ETag: f.ETag, LastModified: f.LastModified,
		ExpiresAt: f.Expires.UTC(), CheckedAt: f.CheckedAt.UTC()}).
		On("CONFLICT (resource) DO UPDATE").
		Set("etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified, expires_at = EXCLUDED.expires_at, checked_at = EXCLUDED.checked_at").
		Exec(ctx)
	return translate(err, "vendor list fetch")
}
