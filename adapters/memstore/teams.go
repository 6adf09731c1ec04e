package memstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/consentd/consentd/core"
)

// teamsData is the audit log (and, later, members and sessions).
type teamsData struct {
	audit []core.AuditEntry
}

func (t teamsData) clone() teamsData {
	return teamsData{audit: slices.Clone(t.audit)}
}

// AuditHead implements core.AuditStore.
func (s *Store) AuditHead(_ context.Context, orgID string) (int64, string, error) {
	defer s.lock()()
	seq, hash := int64(0), core.GenesisHash
	for _, e := range s.d.teams.audit {
		if e.OrganizationID == orgID && e.Seq > seq {
			seq, hash = e.Seq, e.Hash
		}
	}
	return seq, hash, nil
}

// AppendAudit implements core.AuditStore.
func (s *Store) AppendAudit(_ context.Context, e *core.AuditEntry) error {
	defer s.lock()()
	for _, x := range s.d.teams.audit {
		if x.OrganizationID == e.OrganizationID && x.Seq == e.Seq || x.ID == e.ID {
			return conflict("audit entry")
		}
	}
	c := *e
	c.Changes = slices.Clone(e.Changes)
	s.d.teams.audit = append(s.d.teams.audit, c)
	return nil
}

// AuditEntries implements core.AuditStore.
func (s *Store) AuditEntries(_ context.Context, q core.AuditQuery) ([]*core.AuditEntry, error) {
	defer s.lock()()
	out := []*core.AuditEntry{}
	for _, e := range s.d.teams.audit {
		switch {
		case e.OrganizationID != q.OrgID,
			q.BeforeSeq != 0 && e.Seq >= q.BeforeSeq,
			q.From != nil && !e.CreatedAt.After(*q.From),
			q.To != nil && !e.CreatedAt.Before(*q.To),
			q.SiteID != "" && e.SiteID != q.SiteID,
			q.Actor != "" && e.ActorID != q.Actor,
			q.Action != "" && e.Action != q.Action:
			continue
		}
		c := e
		out = append(out, &c)
	}
	slices.SortFunc(out, func(a, b *core.AuditEntry) int { return cmp.Compare(b.Seq, a.Seq) })
	if len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// EachAuditEntry implements core.AuditStore.
func (s *Store) EachAuditEntry(_ context.Context, orgID string, fn func(*core.AuditEntry) error) error {
	unlock := s.lock()
	var es []core.AuditEntry
	for _, e := range s.d.teams.audit {
		if e.OrganizationID == orgID {
			es = append(es, e)
		}
	}
	unlock()
	slices.SortFunc(es, func(a, b core.AuditEntry) int { return cmp.Compare(a.Seq, b.Seq) })
	for i := range es {
		if err := fn(&es[i]); err != nil {
			return err
		}
	}
	return nil
}
