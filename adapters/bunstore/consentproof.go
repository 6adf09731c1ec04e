package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
	corebanner "github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/usecases"
)

// consentSnapshot is a stored snapshot of what visitors were shown.
type consentSnapshot struct {
	bun.BaseModel `bun:"table:consent_snapshots,alias:consent_snapshots"`
	SiteID        string    `bun:"site_id,pk"`
	Hash          string    `bun:"hash,pk"`
	Content       string    `bun:"content"`
	CreatedAt     time.Time `bun:"created_at"`
}

// batchLinks returns the batches the records name, by seq.
func (s *Store) batchLinks(ctx context.Context, siteID string, ms []consentRecord) (map[int64]consentBatch, error) {
	seqs := make([]int64, 0, 8)
	seen := map[int64]bool{}
	for _, m := range ms {
		if m.BatchSeq != nil && *m.BatchSeq > 0 && !seen[*m.BatchSeq] {
			seen[*m.BatchSeq] = true
			seqs = append(seqs, *m.BatchSeq)
		}
	}
	out := make(map[int64]consentBatch, len(seqs))
	if len(seqs) == 0 {
		return out, nil
	}
	var bs []consentBatch
	if err := s.db.NewSelect().Model(&bs).Where("site_id = ?", siteID).Where("seq IN (?)", bun.List(seqs)).Scan(ctx); err != nil {
		return nil, translate(err, "consent batch")
	}
	for _, b := range bs {
		out[b.Seq] = b
	}
	return out, nil
}

// SaveConsentSnapshot implements core.ConsentStore.
func (s *Store) SaveConsentSnapshot(ctx context.Context, x *corebanner.ConsentSnapshot) error {
	if err := findIDs("site", x.SiteID); err != nil {
		return err
	}
	if err := storable("consent snapshot", x); err != nil {
		return err
	}
	m := &consentSnapshot{SiteID: x.SiteID, Hash: x.Hash, Content: string(x.Content), CreatedAt: x.CreatedAt}
	_, err := s.db.NewInsert().Model(m).On("CONFLICT (site_id, hash) DO NOTHING").Exec(ctx)
	return translateConsent(err)
}

// ConsentSnapshot implements core.ConsentStore.
func (s *Store) ConsentSnapshot(ctx context.Context, siteID, hash string) (*corebanner.ConsentSnapshot, error) {
	if err := findIDs("snapshot", siteID); err != nil {
		return nil, err
	}
	var m consentSnapshot
	if err := s.db.NewSelect().Model(&m).Where("site_id = ? AND hash = ?", siteID, hash).Scan(ctx); err != nil {
		return nil, translate(err, "snapshot")
	}
	return &corebanner.ConsentSnapshot{SiteID: m.SiteID, Hash: m.Hash, Content: []byte(m.Content), CreatedAt: m.CreatedAt.UTC()}, nil
}

// EraseConsentVisitor implements core.ConsentStore.
func (s *Store) EraseConsentVisitor(ctx context.Context, siteID, visitorID string) (int, error) {
	if !isID(siteID) {
		return 0, nil
	}
	res, err := s.db.NewUpdate().Model((*consentRecord)(nil)).Set("visitor_id = ''").Set("visitor_salt = ''").
		Where("site_id = ? AND visitor_id = ?", siteID, visitorID).Exec(ctx)
	if err != nil {
		return 0, translate(err, "consent record")
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// ConsentChain implements core.ConsentChainStore.
func (s *Store) ConsentChain(ctx context.Context, siteID string) (consent.ConsentChain, error) {
	if err := findIDs("site", siteID); err != nil {
		return consent.ConsentChain{}, err
	}
	var m consentChain
	err := s.db.NewSelect().Model(&m).Where("site_id = ?", siteID).Scan(ctx)
	if err == nil {
		return consent.ConsentChain{HeadSeq: m.HeadSeq, HeadHash: m.HeadHash, AnchorSeq: m.AnchorSeq, AnchorHash: m.AnchorHash}, nil
	}
	if err = translate(err, "site"); !core.IsNotFound(err) {
		return consent.ConsentChain{}, err
	}
	n, err := s.db.NewSelect().Model((*site)(nil)).Where("id = ?", siteID).Count(ctx)
	if err != nil {
		return consent.ConsentChain{}, translate(err, "site")
	}
	if n == 0 {
		return consent.ConsentChain{}, core.Errorf(core.CodeNotFound, "site not found")
	}
	return consent.ConsentChain{HeadHash: core.GenesisHash, AnchorHash: core.GenesisHash}, nil
}

// ConsentBatches implements core.ConsentChainStore.
func (s *Store) ConsentBatches(ctx context.Context, siteID string, afterSeq, maxSeq int64, limit int) ([]*consent.ConsentBatch, error) {
	var ms []consentBatch
	err := s.db.NewSelect().Model(&ms).Where("site_id = ? AND seq > ? AND seq <= ?", siteID, afterSeq, maxSeq).
		Order("seq").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, translate(err, "consent batch")
	}
	out := make([]*consent.ConsentBatch, len(ms))
	for i, m := range ms {
		out[i] = &consent.ConsentBatch{SiteID: m.SiteID, Seq: m.Seq, Hash: m.Hash, PrevHash: m.PrevHash, Records: m.Records, NewestAt: m.NewestAt.UTC()}
	}
	return out, nil
}

// EachChainRecord implements core.ConsentChainStore with one query that the database sorts:
// there is no index on (batch_seq, batch_index), because verification is rare and every
// index slows every insert. Rows are scanned one at a time.
func (s *Store) EachChainRecord(ctx context.Context, siteID string, afterSeq, toSeq int64, fn func(*consent.ConsentRecord) error) error {
	if !isID(siteID) {
		return nil
	}
	rows, err := s.db.NewSelect().Model((*consentRecord)(nil)).
		Where("site_id = ? AND batch_seq > ? AND batch_seq <= ?", siteID, afterSeq, toSeq).
		Order("batch_seq", "batch_index", "id").Rows(ctx)
	if err != nil {
		return translate(err, "consent record")
	}
	defer rows.Close()
	for rows.Next() {
		var m consentRecord
		if err := s.root.ScanRow(ctx, rows, &m); err != nil {
			return translate(err, "consent record")
		}
		if err := fn(m.core()); err != nil {
			return err
		}
	}
	return translate(rows.Err(), "consent record")
}

// StrayConsentRecords implements core.ConsentChainStore.
func (s *Store) StrayConsentRecords(ctx context.Context, siteID string, limit int) ([]*consent.ConsentRecord, int, error) {
	var ms []consentRecord
	err := s.db.NewSelect().Model(&ms).Where("site_id = ?", siteID).
		Where("batch_seq IS NULL OR (batch_seq <> 0 AND NOT EXISTS (SELECT 1 FROM consent_batches b WHERE b.site_id = consent_record.site_id AND b.seq = consent_record.batch_seq))").
		Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, 0, translate(err, "consent record")
	}
	legacy, err := s.db.NewSelect().Model((*consentRecord)(nil)).Where("site_id = ? AND batch_seq = 0", siteID).Count(ctx)
	if err != nil {
		return nil, 0, translate(err, "consent record")
	}
	out := make([]*consent.ConsentRecord, len(ms))
	for i := range ms {
		out[i] = ms[i].core()
	}
	return out, int(legacy), nil
}

// RemoveConsentBatches implements core.ConsentStore, in one transaction: the oldest batches
// whose newest record is before the cutoff (stopping at the first that is not), their
// records, and legacy records older than the cutoff go; the last batch removed becomes the
// anchor; the listing's counters lose what was removed (shard 0), the statistics keep it.
func (s *Store) RemoveConsentBatches(ctx context.Context, siteID string, before time.Time, limit int) (int, error) {
	if !isID(siteID) {
		return 0, nil
	}
	removed := 0
	err := s.InTx(ctx, func(tx usecases.Store) error {
		db := tx.(*Store).db
		var chain consentChain
		if err := db.NewSelect().Model(&chain).Where("site_id = ?", siteID).Scan(ctx); err != nil {
			if core.IsNotFound(translate(err, "chain")) {
				chain = consentChain{SiteID: siteID, AnchorHash: core.GenesisHash, HeadHash: core.GenesisHash}
			} else {
				return translate(err, "chain")
			}
		}
		var bs []consentBatch
		if err := db.NewSelect().Model(&bs).Where("site_id = ? AND seq > ?", siteID, chain.AnchorSeq).
			Order("seq").Limit(int64(limit)).Scan(ctx); err != nil {
			return translate(err, "consent batch")
		}
		last := -1
		for i, b := range bs {
			if !b.NewestAt.Before(before) {
				break
			}
			last = i
		}
		var gone []time.Time
		// Every record of a removed batch is no newer than the batch's newest record, which is
		// before the cutoff: the created_at bound lets the listing index find them.
		where := "site_id = ? AND created_at < ? AND batch_seq = 0"
		args := []any{siteID, before.UTC()}
		if last >= 0 {
			where = "site_id = ? AND created_at < ? AND (batch_seq = 0 OR (batch_seq > ? AND batch_seq <= ?))"
			args = append(args, chain.AnchorSeq, bs[last].Seq)
		}
		if err := db.NewSelect().Model((*consentRecord)(nil)).Column("created_at").Where(where, args...).Scan(ctx, &gone); err != nil {
			return translate(err, "consent record")
		}
		if len(gone) == 0 && last < 0 {
			return nil
		}
		if _, err := db.NewDelete().Model((*consentRecord)(nil)).Where(where, args...).Exec(ctx); err != nil {
			return translate(err, "consent record")
		}
		if last >= 0 {
			if _, err := db.NewDelete().Model((*consentBatch)(nil)).Where("site_id = ? AND seq <= ?", siteID, bs[last].Seq).Exec(ctx); err != nil {
				return translate(err, "consent batch")
			}
			if _, err := db.NewUpdate().Model((*consentChain)(nil)).Set("anchor_seq = ?", bs[last].Seq).Set("anchor_hash = ?", bs[last].Hash).
				Where("site_id = ?", siteID).Exec(ctx); err != nil {
				return translate(err, "chain")
			}
		}
		counts := map[time.Time]int64{}
		for _, t := range gone {
			counts[bucketOf(t)]--
		}
		cs := make([]consentCount, 0, len(counts))
		for b, n := range counts {
			cs = append(cs, consentCount{SiteID: siteID, Bucket: b, Shard: 0, N: n})
		}
		if len(cs) > 0 {
			if _, err := db.NewInsert().Model(&cs).On("CONFLICT (site_id, bucket, shard) DO UPDATE").
				Set("n = consent_counts.n + EXCLUDED.n").Exec(ctx); err != nil {
				return translate(err, "consent counts")
			}
		}
		removed = len(gone)
		return nil
	})
	return removed, err
}

// ConsentRegionCounts implements core.ConsentStore: one GROUP BY over the site's records in
// the range, along the (site_id, created_at) index.
func (s *Store) ConsentRegionCounts(ctx context.Context, siteID string, from, to time.Time) (map[string]int64, error) {
	out := map[string]int64{}
	if !isID(siteID) {
		return out, nil
	}
	var rows []struct {
		Place string `bun:"place"`
		N     int64  `bun:"n"`
	}
	err := s.db.NewSelect().Model((*consentRecord)(nil)).
		ColumnExpr("CASE WHEN COALESCE(region, '') <> '' THEN region ELSE COALESCE(ip_country, '') END AS place, CAST(COUNT(*) AS BIGINT) AS n").
		Where("site_id = ? AND created_at >= ? AND created_at < ?", siteID, from.UTC(), to.UTC()).
		GroupExpr("1").Scan(ctx, &rows)
	if err != nil {
		return nil, translate(err, "consent stats")
	}
	for _, r := range rows {
		out[r.Place] += r.N
	}
	return out, nil
}
