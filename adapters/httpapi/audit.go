package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// auditAction is the audit log's action filter: its schema's enum is core.AuditActions, the one
// list, so that the document states every value the filter takes.
type auditAction string

// Schema implements huma.SchemaProvider.
func (auditAction) Schema(huma.Registry) *huma.Schema {
	s := &huma.Schema{Type: huma.TypeString}
	for _, a := range core.AuditActions() {
		s.Enum = append(s.Enum, a)
	}
	s.PrecomputeMessages()
	return s
}

func (h *handlers) registerAudit(api huma.API) {
	o := op("listAuditLog", http.MethodGet, "/audit-log", "List the audit log", "Audit log", 0)
	o.Description = "Every state change made through the API, the console or the CLI in the caller's organization " +
		"(configuration, scans triggered, keys, members, roles, erasures, exports), newest first: who made it (`actorKind` " +
		"key, user or system; `actorId`, `actorName`), when, on which site, the action and the changed fields with " +
		"their old and new values (JSON; null when absent). Entries are hash-chained per organization " +
		"(`seq`, `prevHash`, `hash`): `GET /audit-log/verify` recomputes the chain. from and to are exclusive bounds " +
		"on createdAt; actor is an actorId; action one of: " + strings.Join(core.AuditActions(), ", ") + "."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		From   string      `query:"from" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$" doc:"Only entries created after this ISO 8601 date or date-time."`
		To     string      `query:"to" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$" doc:"Only entries created before this ISO 8601 date or date-time."`
		SiteID string      `query:"siteId" maxLength:"100" doc:"Only entries about this site."`
		Actor  string      `query:"actor" maxLength:"100" doc:"Only entries of this actor (an API key's or a user's ID)."`
		Action auditAction `query:"action" doc:"Only entries of this action."`
		Limit  int         `query:"limit" default:"50" minimum:"1" maximum:"100"`
		Cursor string      `query:"cursor" maxLength:"100" doc:"Opaque: the nextCursor of the previous page."`
	}) (*struct{ Body *identity.AuditPage }, error) {
		from, to, err := dateRange(in.From, in.To)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		p, err := h.m.AuditEntries(ctx, orgOf(ctx), identity.AuditQuery{From: from, To: to, SiteID: in.SiteID, Actor: in.Actor,
			Action: string(in.Action), Limit: in.Limit}, in.Cursor)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *identity.AuditPage }{p}, nil
	})

	o = op("verifyAuditLog", http.MethodGet, "/audit-log/verify", "Verify the audit log", "Audit log", 0)
	o.Description = "Recomputes the organization's audit chain from the stored entries and reports the first entry that " +
		"was changed, removed or relinked after it was written (`ok` false and `break`). Entries removed by retention leave " +
		"an anchor, the seq and hash of the last one removed: verification starts from it, and the reply names it " +
		"(`anchorSeq`, `anchorHash`; 0 and 64 zeros while retention removed nothing), so that the first kept entry must be " +
		"`anchorSeq`+1 and link to `anchorHash`. `entries` counts the kept entries verified; `headSeq` and `headHash` are the last."
	huma.Register(api, o, func(ctx context.Context, _ *struct{}) (*struct{ Body *identity.AuditReport }, error) {
		rep, err := h.m.VerifyAuditLog(ctx, orgOf(ctx))
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *identity.AuditReport }{rep}, nil
	})
}
