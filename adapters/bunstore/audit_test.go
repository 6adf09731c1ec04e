package bunstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
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
				if _, err := e.m.Banners.PatchBanner(ctx, e.org, e.site.ID, core.BannerPatch{Template: &tmpl}); err != nil {
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
