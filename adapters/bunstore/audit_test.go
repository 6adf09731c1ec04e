package bunstore_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	corebanner "github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/identity"
	sitepkg "github.com/consentd/consentd/core/site"
)

// TestAuditTamperDetected: on SQLite and Postgres, an audit entry changed with SQL after it
// was written (an old value rewritten, or an entry deleted) is reported by the audit log's
// verification, at that entry.
func TestAuditTamperDetected(t *testing.T) {
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := core.WithActor(context.Background(), core.System("test"))
			e := newProofEnv(t, open(t), time.Now)
			for _, tmpl := range []string{"modal", "wide_bar", "floating"} {
				if _, err := e.m.Banners.PatchBanner(ctx, e.org, e.site.ID, corebanner.BannerPatch{Template: &tmpl}); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := e.m.AuditLog.VerifyAuditLog(ctx, e.org)
			if err != nil || !rep.OK || rep.HeadSeq != 4 {
				t.Fatalf("before: %+v %v", rep, err)
			}
			db := e.s.DB()
			// Someone with database access makes the second banner change look different.
			res, err := db.ExecContext(ctx, `UPDATE audit_log SET changes = REPLACE(changes, '"wide_bar"', '"modal"') WHERE organization_id = ? AND seq = 3`, e.org)
			if n, _ := res.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("tamper: %v (%d rows)", err, n)
			}
			rep, err = e.m.AuditLog.VerifyAuditLog(ctx, e.org)
			if err != nil || rep.OK || rep.Break == nil || rep.Break.Seq != 3 || !strings.Contains(rep.Break.Problem, "changed") {
				t.Fatalf("after an edit: %+v %v", rep, err)
			}
			// Deleting an entry is reported too, at the missing seq.
			if _, err := db.ExecContext(ctx, `DELETE FROM audit_log WHERE organization_id = ? AND seq IN (2, 3)`, e.org); err != nil {
				t.Fatal(err)
			}
			rep, err = e.m.AuditLog.VerifyAuditLog(ctx, e.org)
			if err != nil || rep.OK || rep.Break == nil || rep.Break.Seq != 2 || !strings.Contains(rep.Break.Problem, "missing") {
				t.Fatalf("after a deletion: %+v %v", rep, err)
			}
			// Deleting the newest entry leaves the head pointing past the log.
			if _, err := db.ExecContext(ctx, `DELETE FROM audit_log WHERE organization_id = ? AND seq > 1`, e.org); err != nil {
				t.Fatal(err)
			}
			rep, err = e.m.AuditLog.VerifyAuditLog(ctx, e.org)
			if err != nil || rep.OK || rep.Break == nil || !strings.Contains(rep.Break.Problem, "head") {
				t.Fatalf("after truncation: %+v %v", rep, err)
			}
		})
	}
}

// TestAuditRetention: on SQLite and Postgres, the retention pass removes the audit entries
// past the records' retention (a site's entries its site's, the organization's own the
// longest of its sites', none while a site keeps its records for ever), keeps the newer
// ones, the log still verifies from its anchor, and an edit of a kept entry is detected.
func TestAuditRetention(t *testing.T) {
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := core.WithActor(context.Background(), core.System("test"))
			var mu sync.Mutex
			clock := time.Now().AddDate(0, 0, -90)
			e := newProofEnv(t, open(t), func() time.Time { mu.Lock(); defer mu.Unlock(); return clock })
			if _, _, err := e.m.Orgs.CreateAPIKey(ctx, e.org, "ci", ""); err != nil {
				t.Fatal(err)
			}
			blogName, blogURL := "Blog", "https://blog.example"
			blog, err := e.m.Sites.CreateSite(ctx, e.org, sitepkg.SiteInput{Name: &blogName, URL: &blogURL})
			if err != nil {
				t.Fatal(err)
			}
			patch := func() {
				tmpl := "modal"
				if _, err := e.m.Banners.PatchBanner(ctx, e.org, e.site.ID, corebanner.BannerPatch{Template: &tmpl}); err != nil {
					t.Fatal(err)
				}
				tmpl = "floating"
				if _, err := e.m.Banners.PatchBanner(ctx, e.org, e.site.ID, corebanner.BannerPatch{Template: &tmpl}); err != nil {
					t.Fatal(err)
				}
			}
			retain := func(site string, days int) {
				if _, err := e.m.Sites.UpdateSite(ctx, e.org, site, sitepkg.SiteInput{ConsentRetentionDays: corebanner.Optional[int]{Set: true, Value: days}}); err != nil {
					t.Fatal(err)
				}
			}
			// hashes are the entries' hashes by seq, read while they are kept.
			hashes := map[int64]string{0: core.GenesisHash}
			verify := func(what string, entries, head int64) {
				t.Helper()
				rep, err := e.m.AuditLog.VerifyAuditLog(ctx, e.org)
				if err != nil || !rep.OK || rep.Entries != entries || rep.HeadSeq != head {
					t.Fatalf("%s: %+v %v, want %d entries up to %d", what, rep, err, entries, head)
				}
				// The reply names the anchor it verified from: the last removed entry.
				if anchor := head - entries; rep.AnchorSeq != anchor || rep.AnchorHash != hashes[anchor] || hashes[anchor] == "" {
					t.Fatalf("%s: anchor %d %s, want %d %s", what, rep.AnchorSeq, rep.AnchorHash, anchor, hashes[anchor])
				}
				page, err := e.m.AuditLog.AuditEntries(ctx, e.org, identity.AuditQuery{Limit: core.MaxAuditLimit}, "")
				if err != nil {
					t.Fatal(err)
				}
				for _, en := range page.Entries {
					hashes[en.Seq] = en.Hash
				}
			}
			// 90 days ago: the shop (1), an owner key of the organization (2), the blog (3),
			// two banner changes of the shop (4, 5), the shop's 30-day retention (6).
			patch()
			retain(e.site.ID, 30)
			verify("before", 6, 6)
			mu.Lock()
			clock = time.Now()
			mu.Unlock()
			// The blog keeps its records for ever, so the organization's own entry 2 stays,
			// and the expired entries behind it wait: only the shop's entry 1 goes.
			if n, err := e.m.AuditLog.ApplyAuditRetention(ctx); err != nil || n != 1 {
				t.Fatalf("with a site keeping all: removed %d %v, want 1", n, err)
			}
			verify("with a site keeping all", 5, 6)
			retain(blog.ID, 60) // 7
			patch()             // 8, 9
			if n, err := e.m.AuditLog.ApplyAuditRetention(ctx); err != nil || n != 5 {
				t.Fatalf("removed %d %v, want 5", n, err)
			}
			verify("after retention", 3, 9)
			if n, err := e.m.AuditLog.ApplyAuditRetention(ctx); err != nil || n != 0 {
				t.Fatalf("second pass removed %d %v, want 0", n, err)
			}
			page, err := e.m.AuditLog.AuditEntries(ctx, e.org, identity.AuditQuery{}, "")
			if err != nil || len(page.Entries) != 3 || page.Entries[2].Seq != 7 {
				t.Fatalf("listing after retention: %+v %v", page, err)
			}
			res, err := e.s.DB().ExecContext(ctx, `UPDATE audit_log SET changes = REPLACE(changes, '"floating"', '"wide_bar"') WHERE organization_id = ? AND seq = 9`, e.org)
			if n, _ := res.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("tamper: %v (%d rows)", err, n)
			}
			rep, err := e.m.AuditLog.VerifyAuditLog(ctx, e.org)
			if err != nil || rep.OK || rep.Break == nil || rep.Break.Seq != 9 || !strings.Contains(rep.Break.Problem, "changed") {
				t.Fatalf("after an edit: %+v %v", rep, err)
			}
			// Removing the oldest kept entry behind retention's back is detected too.
			if _, err := e.s.DB().ExecContext(ctx, `DELETE FROM audit_log WHERE organization_id = ? AND seq = 7`, e.org); err != nil {
				t.Fatal(err)
			}
			rep, err = e.m.AuditLog.VerifyAuditLog(ctx, e.org)
			if err != nil || rep.OK || rep.Break == nil || rep.Break.Seq != 7 || !strings.Contains(rep.Break.Problem, "missing") {
				t.Fatalf("after a deletion: %+v %v", rep, err)
			}
		})
	}
}
