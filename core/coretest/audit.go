package coretest

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/usecases"
)

// appendAudit chains an entry after the organization's head in a transaction, as core does.
func appendAudit(t *testing.T, s usecases.Store, org, site, action, actor string, at time.Time) *core.AuditEntry {
	t.Helper()
	var e *core.AuditEntry
	must(t, s.InTx(ctx, func(tx usecases.Store) error {
		seq, prev, err := tx.AuditHead(ctx, org)
		if err != nil {
			return err
		}
		e = &core.AuditEntry{ID: id(), OrganizationID: org, Seq: seq + 1, SiteID: site, ActorKind: core.ActorKey, ActorID: actor,
			ActorName: "ci (cd_abcdefgh…)", Action: action, Target: "t",
			Changes:   []core.Change{{Field: "template", Old: json.RawMessage(`"floating"`), New: json.RawMessage(`{"a":[1,"<é>"]}`)}},
			CreatedAt: at, PrevHash: prev}
		e.Hash = core.AuditHash(e)
		return tx.AppendAudit(ctx, e)
	}))
	return e
}

// testAudit: entries chain per organization, round-trip exactly (their hash still
// verifies), list newest first with every filter, and appends are serialized.
func testAudit(t *testing.T, s usecases.Store) {
	a := &identity.Organization{ID: id(), Name: "a", CreatedAt: now()}
	b := &identity.Organization{ID: id(), Name: "b", CreatedAt: now()}
	must(t, s.CreateOrganization(ctx, a))
	must(t, s.CreateOrganization(ctx, b))
	if seq, hash, err := s.AuditHead(ctx, a.ID); err != nil || seq != 0 || hash != core.GenesisHash {
		t.Fatalf("empty head: %d %q %v", seq, hash, err)
	}
	site, actor := id(), id()
	t0 := now()
	e1 := appendAudit(t, s, a.ID, site, core.AuditBannerUpdate, actor, t0)
	e2 := appendAudit(t, s, a.ID, "", core.AuditKeyCreate, id(), t0.Add(time.Second))
	e3 := appendAudit(t, s, a.ID, site, core.AuditSiteUpdate, actor, t0.Add(2*time.Second))
	eb := appendAudit(t, s, b.ID, "", core.AuditKeyCreate, actor, t0)
	if e1.Seq != 1 || e2.Seq != 2 || e3.Seq != 3 || eb.Seq != 1 || e2.PrevHash != e1.Hash {
		t.Fatalf("seqs %d %d %d %d", e1.Seq, e2.Seq, e3.Seq, eb.Seq)
	}
	if seq, hash, err := s.AuditHead(ctx, a.ID); err != nil || seq != 3 || hash != e3.Hash {
		t.Fatalf("head: %d %q %v", seq, hash, err)
	}
	dup := *e3
	dup.ID = id()
	wantCode(t, s.AppendAudit(ctx, &dup), core.CodeConflict)

	list := func(q identity.AuditQuery) []int64 {
		t.Helper()
		if q.OrgID == "" {
			q.OrgID = a.ID
		}
		if q.Limit == 0 {
			q.Limit = 10
		}
		es, err := s.AuditEntries(ctx, q)
		must(t, err)
		var seqs []int64
		for _, e := range es {
			seqs = append(seqs, e.Seq)
		}
		return seqs
	}
	eq := func(what string, got []int64, want ...int64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
		}
	}
	eq("all", list(identity.AuditQuery{}), 3, 2, 1)
	eq("limit", list(identity.AuditQuery{Limit: 2}), 3, 2)
	eq("before", list(identity.AuditQuery{BeforeSeq: 3}), 2, 1)
	eq("site", list(identity.AuditQuery{SiteID: site}), 3, 1)
	eq("actor", list(identity.AuditQuery{Actor: actor}), 3, 1)
	eq("action", list(identity.AuditQuery{Action: core.AuditKeyCreate}), 2)
	from, to := t0, t0.Add(2*time.Second)
	eq("from (exclusive)", list(identity.AuditQuery{From: &from}), 3, 2)
	eq("to (exclusive)", list(identity.AuditQuery{To: &to}), 2, 1)
	eq("other org", list(identity.AuditQuery{OrgID: b.ID}), 1)
	eq("unknown org", list(identity.AuditQuery{OrgID: id()}))
	eq("malformed site", list(identity.AuditQuery{SiteID: "nope"}))

	es, err := s.AuditEntries(ctx, identity.AuditQuery{OrgID: a.ID, Limit: 1, BeforeSeq: 2})
	must(t, err)
	got := es[0]
	if got.ID != e1.ID || got.SiteID != site || got.ActorID != actor || got.ActorName != e1.ActorName ||
		!got.CreatedAt.Equal(e1.CreatedAt) || core.AuditHash(got) != e1.Hash {
		t.Fatalf("round trip: %+v, want %+v (hash %s)", got, e1, core.AuditHash(got))
	}
	var seen []int64
	must(t, s.EachAuditEntry(ctx, a.ID, func(e *core.AuditEntry) error {
		seen = append(seen, e.Seq)
		return nil
	}))
	eq("each", seen, 1, 2, 3)

	// Concurrent appends of one organization are serialized: no seq is lost or repeated.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { appendAudit(t, s, b.ID, "", core.AuditSiteCreate, actor, now()) })
	}
	wg.Wait()
	if seq, _, err := s.AuditHead(ctx, b.ID); err != nil || seq != 9 {
		t.Fatalf("after concurrent appends: head %d %v, want 9", seq, err)
	}
}

// testAuditRetention: removing entries up to a seq keeps the later ones, makes the last
// removed the anchor, leaves the head (appends continue after it) and other organizations.
func testAuditRetention(t *testing.T, s usecases.Store) {
	a := &identity.Organization{ID: id(), Name: "a", CreatedAt: now()}
	b := &identity.Organization{ID: id(), Name: "b", CreatedAt: now()}
	must(t, s.CreateOrganization(ctx, a))
	must(t, s.CreateOrganization(ctx, b))
	if seq, hash, err := s.AuditAnchor(ctx, a.ID); err != nil || seq != 0 || hash != core.GenesisHash {
		t.Fatalf("anchor before removal: %d %q %v", seq, hash, err)
	}
	var es []*core.AuditEntry
	for i := range 5 {
		es = append(es, appendAudit(t, s, a.ID, "", core.AuditSiteUpdate, id(), now().Add(time.Duration(i)*time.Second)))
	}
	appendAudit(t, s, b.ID, "", core.AuditSiteUpdate, id(), now())
	n, err := s.RemoveAuditEntries(ctx, a.ID, 3)
	if err != nil || n != 3 {
		t.Fatalf("removed %d %v, want 3", n, err)
	}
	if seq, hash, err := s.AuditAnchor(ctx, a.ID); err != nil || seq != 3 || hash != es[2].Hash {
		t.Fatalf("anchor: %d %q %v, want 3 %q", seq, hash, err, es[2].Hash)
	}
	var seen []int64
	must(t, s.EachAuditEntry(ctx, a.ID, func(e *core.AuditEntry) error {
		seen = append(seen, e.Seq)
		return nil
	}))
	if len(seen) != 2 || seen[0] != 4 || seen[1] != 5 {
		t.Fatalf("kept %v, want [4 5]", seen)
	}
	if n, err := s.RemoveAuditEntries(ctx, a.ID, 3); err != nil || n != 0 {
		t.Fatalf("second removal: %d %v, want 0", n, err)
	}
	// Removing every entry keeps the head: the next append follows entry 5.
	if n, err := s.RemoveAuditEntries(ctx, a.ID, 99); err != nil || n != 2 {
		t.Fatalf("removing the rest: %d %v, want 2", n, err)
	}
	if seq, hash, err := s.AuditHead(ctx, a.ID); err != nil || seq != 5 || hash != es[4].Hash {
		t.Fatalf("head after removing all: %d %q %v", seq, hash, err)
	}
	if seq, hash, err := s.AuditAnchor(ctx, a.ID); err != nil || seq != 5 || hash != es[4].Hash {
		t.Fatalf("anchor after removing all: %d %q %v", seq, hash, err)
	}
	if e := appendAudit(t, s, a.ID, "", core.AuditSiteUpdate, id(), now()); e.Seq != 6 || e.PrevHash != es[4].Hash {
		t.Fatalf("append after removal: seq %d prev %q", e.Seq, e.PrevHash)
	}
	if seq, _, err := s.AuditHead(ctx, b.ID); err != nil || seq != 1 {
		t.Fatalf("other organization's head: %d %v", seq, err)
	}
	if seq, _, err := s.AuditAnchor(ctx, b.ID); err != nil || seq != 0 {
		t.Fatalf("other organization's anchor: %d %v", seq, err)
	}
}
