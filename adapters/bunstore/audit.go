package bunstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
)

var _ identity.AuditStore = (*Store)(nil)

type auditRow struct {
	bun.BaseModel  `bun:"table:audit_log"`
	ID             string    `bun:"id,pk"`
	OrganizationID string    `bun:"organization_id"`
	Seq            int64     `bun:"seq"`
	SiteID         *string   `bun:"site_id"`
	ActorKind      string    `bun:"actor_kind"`
	ActorID        string    `bun:"actor_id"`
	ActorName      string    `bun:"actor_name"`
	Action         string    `bun:"action"`
	Target         string    `bun:"target"`
	Changes        string    `bun:"changes"`
	CreatedAt      time.Time `bun:"created_at"`
	PrevHash       string    `bun:"prev_hash"`
	Hash           string    `bun:"hash"`
}

type auditHead struct {
	bun.BaseModel  `bun:"table:audit_heads"`
	OrganizationID string `bun:"organization_id,pk"`
	Seq            int64  `bun:"seq"`
	Hash           string `bun:"hash"`
	AnchorSeq      int64  `bun:"anchor_seq"`
	AnchorHash     string `bun:"anchor_hash"`
}

func (r *auditRow) core() *core.AuditEntry {
	e := &core.AuditEntry{ID: r.ID, OrganizationID: r.OrganizationID, Seq: r.Seq, ActorKind: r.ActorKind, ActorID: r.ActorID,
		ActorName: r.ActorName, Action: r.Action, Target: r.Target, CreatedAt: r.CreatedAt.UTC(), PrevHash: r.PrevHash, Hash: r.Hash}
	if r.SiteID != nil {
		e.SiteID = *r.SiteID
	}
	// A row whose changes no longer parse keeps them as they are, so that verification
	// reports the entry instead of failing to read it.
	if err := json.Unmarshal([]byte(r.Changes), &e.Changes); err != nil {
		e.Changes = []core.Change{{Field: "(unreadable)", Old: json.RawMessage("null"), New: json.RawMessage(mustQuote(r.Changes))}}
	}
	return e
}

func mustQuote(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// AuditHead implements core.AuditStore. In a transaction it creates the organization's head
// row when missing and locks it (FOR UPDATE on Postgres; SQLite's transactions hold the
// write lock from their start).
func (s *Store) AuditHead(ctx context.Context, orgID string) (int64, string, error) {
	if err := findIDs("organization", orgID); err != nil {
		return 0, "", err
	}
	if s.tx != nil {
		_, err := s.db.NewInsert().Model(&auditHead{OrganizationID: orgID, Hash: core.GenesisHash}).
			On("CONFLICT (organization_id) DO NOTHING").Exec(ctx)
		if err != nil {
			return 0, "", translate(err, "organization")
		}
	}
	var h auditHead
	q := s.db.NewSelect().Model(&h).Where("organization_id = ?", orgID)
	if s.tx != nil && s.Dialect() == "postgres" {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); errors.Is(err, sql.ErrNoRows) {
		return 0, core.GenesisHash, nil
	} else if err != nil {
		return 0, "", translate(err, "audit log")
	}
	return h.Seq, h.Hash, nil
}

// AppendAudit implements core.AuditStore.
func (s *Store) AppendAudit(ctx context.Context, e *core.AuditEntry) error {
	if err := newID("audit entry", e.ID); err != nil {
		return err
	}
	if err := findIDs("organization", e.OrganizationID); err != nil {
		return core.Wrap(core.CodeNotFound, err, "audit entry refers to a row that does not exist")
	}
	if err := storable("audit entry", e); err != nil {
		return err
	}
	changes, err := json.Marshal(e.Changes)
	if err != nil {
		return core.Wrap(core.CodeInvalid, err, "audit entry: changes are not JSON")
	}
	row := &auditRow{ID: e.ID, OrganizationID: e.OrganizationID, Seq: e.Seq, ActorKind: e.ActorKind, ActorID: e.ActorID,
		ActorName: e.ActorName, Action: e.Action, Target: e.Target, Changes: string(changes), CreatedAt: e.CreatedAt,
		PrevHash: e.PrevHash, Hash: e.Hash}
	if isID(e.SiteID) {
		row.SiteID = &e.SiteID
	}
	return s.InTx(ctx, func(tx usecases.Store) error {
		db := tx.(*Store).db
		if _, err := db.NewInsert().Model(row).Exec(ctx); err != nil {
			return translate(err, "audit entry")
		}
		_, err := db.NewInsert().Model(&auditHead{OrganizationID: e.OrganizationID, Seq: e.Seq, Hash: e.Hash}).
			On("CONFLICT (organization_id) DO UPDATE").Set("seq = EXCLUDED.seq, hash = EXCLUDED.hash").Exec(ctx)
		return translate(err, "audit log")
	})
}

// AuditEntries implements core.AuditStore.
func (s *Store) AuditEntries(ctx context.Context, q identity.AuditQuery) ([]*core.AuditEntry, error) {
	out := []*core.AuditEntry{}
	if !isID(q.OrgID) || (q.SiteID != "" && !isID(q.SiteID)) {
		return out, nil
	}
	var rows []auditRow
	sel := s.db.NewSelect().Model(&rows).Where("organization_id = ?", q.OrgID)
	if q.BeforeSeq != 0 {
		sel = sel.Where("seq < ?", q.BeforeSeq)
	}
	if q.From != nil {
		sel = sel.Where("created_at > ?", *q.From)
	}
	if q.To != nil {
		sel = sel.Where("created_at < ?", *q.To)
	}
	if q.SiteID != "" {
		sel = sel.Where("site_id = ?", q.SiteID)
	}
	if q.Actor != "" {
		sel = sel.Where("actor_id = ?", q.Actor)
	}
	if q.Action != "" {
		sel = sel.Where("action = ?", q.Action)
	}
	if err := sel.OrderExpr("seq DESC").Limit(int64(q.Limit)).Scan(ctx); err != nil {
		return nil, translate(err, "audit log")
	}
	for i := range rows {
		out = append(out, rows[i].core())
	}
	return out, nil
}

// auditPage is how many entries verification reads per query.
const auditPage = 500

// EachAuditEntry implements core.AuditStore.
func (s *Store) EachAuditEntry(ctx context.Context, orgID string, fn func(*core.AuditEntry) error) error {
	if !isID(orgID) {
		return nil
	}
	after := int64(-1 << 62)
	for {
		var rows []auditRow
		err := s.db.NewSelect().Model(&rows).Where("organization_id = ? AND seq > ?", orgID, after).
			OrderExpr("seq ASC").Limit(auditPage).Scan(ctx)
		if err != nil {
			return translate(err, "audit log")
		}
		for i := range rows {
			if err := fn(rows[i].core()); err != nil {
				return err
			}
		}
		if len(rows) < auditPage {
			return nil
		}
		after = rows[len(rows)-1].Seq
	}
}

// AuditAnchor implements core.AuditStore.
func (s *Store) AuditAnchor(ctx context.Context, orgID string) (int64, string, error) {
	if !isID(orgID) {
		return 0, core.GenesisHash, nil
	}
	var h auditHead
	err := s.db.NewSelect().Model(&h).Where("organization_id = ?", orgID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) || err == nil && h.AnchorSeq == 0 {
		return 0, core.GenesisHash, nil
	} else if err != nil {
		return 0, "", translate(err, "audit log")
	}
	return h.AnchorSeq, h.AnchorHash, nil
}

// RemoveAuditEntries implements core.AuditStore, in one transaction that holds the
// organization's head as an append does.
func (s *Store) RemoveAuditEntries(ctx context.Context, orgID string, through int64) (int, error) {
	if !isID(orgID) {
		return 0, nil
	}
	removed := 0
	err := s.InTx(ctx, func(tx usecases.Store) error {
		if _, _, err := tx.AuditHead(ctx, orgID); err != nil {
			return err
		}
		db := tx.(*Store).db
		var last auditRow
		err := db.NewSelect().Model(&last).Column("seq", "hash").Where("organization_id = ? AND seq <= ?", orgID, through).
			OrderExpr("seq DESC").Limit(1).Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		} else if err != nil {
			return translate(err, "audit log")
		}
		res, err := db.NewDelete().Model((*auditRow)(nil)).Where("organization_id = ? AND seq <= ?", orgID, last.Seq).Exec(ctx)
		if err != nil {
			return translate(err, "audit entry")
		}
		n, err := res.RowsAffected()
		if err != nil {
			return translate(err, "audit entry")
		}
		if _, err := db.NewUpdate().Model((*auditHead)(nil)).Set("anchor_seq = ?", last.Seq).Set("anchor_hash = ?", last.Hash).
			Where("organization_id = ?", orgID).Exec(ctx); err != nil {
			return translate(err, "audit log")
		}
		removed = int(n)
		return nil
	})
	return removed, err
}
