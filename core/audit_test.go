package core_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/site"
)

// asKey authenticates key and returns ctx carrying the caller, as the adapters do.
func asKey(t *testing.T, m *testCore, key string) context.Context {
	t.Helper()
	a, err := m.Orgs.AuthenticateKey(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	return core.WithActor(ctx, a)
}

// TestAuditRecordsChanges: a banner change is recorded with the key that made it and the
// old and new values of the fields it changed; the chain verifies; listing pages and
// filters; only the roles with the audit permission read it.
func TestAuditRecordsChanges(t *testing.T) {
	m, _, _ := newCore(t)
	org, _ := m.Orgs.CreateOrganization(ctx, "acme")
	_, ownerKey, _ := m.Orgs.CreateAPIKey(ctx, org.ID, "ci", "")
	owner := asKey(t, m, ownerKey)
	s, err := m.Sites.CreateSite(owner, org.ID, site.SiteInput{Name: ptr("Shop"), URL: ptr("https://shop.example")})
	if err != nil {
		t.Fatal(err)
	}
	_, editorKey, err := m.Orgs.IssueAPIKey(owner, org.ID, identity.APIKeyInput{Name: "agency", Role: core.RoleEditor})
	if err != nil {
		t.Fatal(err)
	}
	editor := asKey(t, m, editorKey)
	tmpl := "modal"
	if _, err := m.Banners.PatchBanner(editor, org.ID, s.ID, banner.BannerPatch{Template: &tmpl}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AuditLog.AuditEntries(editor, org.ID, identity.AuditQuery{}, ""); core.ErrorCode(err) != core.CodeForbidden {
		t.Fatalf("editor reading the audit log: %v, want forbidden", err)
	}
	p, err := m.AuditLog.AuditEntries(owner, org.ID, identity.AuditQuery{}, "")
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range p.Entries {
		actions = append(actions, e.Action)
	}
	if strings.Join(actions, " ") != "banner.update api_key.create site.create api_key.create" {
		t.Fatalf("actions %v", actions)
	}
	e := p.Entries[0]
	if e.ActorKind != core.ActorKey || !strings.HasPrefix(e.ActorName, "agency (cd_") || e.SiteID != s.ID || len(e.Changes) != 1 ||
		e.Changes[0].Field != "template" || string(e.Changes[0].Old) != `"floating"` || string(e.Changes[0].New) != `"modal"` {
		t.Fatalf("banner entry: %+v %s", e, e.Changes)
	}
	if k := p.Entries[1]; k.SiteID != "" || !strings.Contains(string(mustJSON(t, k.Changes)), `"editor"`) ||
		strings.Contains(string(mustJSON(t, k.Changes)), editorKey) {
		t.Fatalf("key entry must show the role and never the key: %s", mustJSON(t, k.Changes))
	}

	// Paging: one at a time, by cursor.
	var seqs []int64
	cursor := ""
	for {
		p, err := m.AuditLog.AuditEntries(owner, org.ID, identity.AuditQuery{Limit: 1}, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Entries {
			seqs = append(seqs, e.Seq)
		}
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(seqs) != 4 || seqs[0] != 4 || seqs[3] != 1 {
		t.Fatalf("paged seqs %v", seqs)
	}
	if p, _ := m.AuditLog.AuditEntries(owner, org.ID, identity.AuditQuery{Action: core.AuditBannerUpdate, SiteID: s.ID}, ""); len(p.Entries) != 1 {
		t.Fatalf("filtered: %+v", p.Entries)
	}
	for _, bad := range []identity.AuditQuery{{Action: "drop.tables"}, {Limit: 101}} {
		if _, err := m.AuditLog.AuditEntries(owner, org.ID, bad, ""); core.ErrorCode(err) != core.CodeInvalid {
			t.Fatalf("%+v: %v, want validation_error", bad, err)
		}
	}
	if _, err := m.AuditLog.AuditEntries(owner, org.ID, identity.AuditQuery{}, "bm90LWEtY3Vyc29y"); core.ErrorCode(err) != core.CodeInvalid {
		t.Fatalf("bad cursor: %v", err)
	}
	rep, err := m.AuditLog.VerifyAuditLog(owner, org.ID)
	if err != nil || !rep.OK || rep.Entries != 4 || rep.HeadSeq != 4 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	// A refused change records nothing.
	if _, err := m.Banners.PatchBanner(asKey(t, m, mustViewer(t, m, owner, org.ID)), org.ID, s.ID, banner.BannerPatch{Template: &tmpl}); core.ErrorCode(err) != core.CodeForbidden {
		t.Fatalf("viewer patch: %v", err)
	}
	if rep, _ := m.AuditLog.VerifyAuditLog(owner, org.ID); rep.HeadSeq != 5 { // the viewer key's creation only
		t.Fatalf("head after a refused change: %d, want 5", rep.HeadSeq)
	}
}

func mustViewer(t *testing.T, m *testCore, as context.Context, org string) string {
	t.Helper()
	_, k, err := m.Orgs.IssueAPIKey(as, org, identity.APIKeyInput{Role: core.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
