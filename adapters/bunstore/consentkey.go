package bunstore

import (
	"context"
	"database/sql"

	"github.com/consentd/consentd/core/consent"
)

// ConsentRecordByKey implements core.ConsentStore: the (site_id, idempotency_key) index.
func (s *Store) ConsentRecordByKey(ctx context.Context, siteID, key string) (*consent.ConsentRecord, error) {
	if !isID(siteID) || key == "" {
		return nil, translate(sql.ErrNoRows, "consent record")
	}
	var m consentRecord
	if err := s.db.NewSelect().Model(&m).Where("site_id = ?", siteID).Where("idempotency_key = ?", key).
		Limit(1).Scan(ctx); err != nil {
		return nil, translate(err, "consent record")
	}
	return m.core(), nil
}

func keyOrNil(k string) *string {
	if k == "" {
		return nil
	}
	return &k
}
