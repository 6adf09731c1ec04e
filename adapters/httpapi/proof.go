package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
)

// registerProof registers the proof-of-consent operations: snapshots, chain verification,
// statistics and visitor erasure (docs/consent-records.md).
func (h *handlers) registerProof(api huma.API) {
	o := op("getConsentSnapshot", http.MethodGet, "/sites/{id}/consent-snapshots/{hash}", "Get what a visitor was shown", "Consent", 0)
	o.Description = "The snapshot a consent record's snapshotHash names: the banner configuration, its texts in the language shown, " +
		"the categories and services listed, and the runtime version. content is the exact document hashed: hash is the hex " +
		"SHA-256 of content's bytes as served."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		Hash string `path:"hash" maxLength:"64" doc:"The snapshot's hex SHA-256."`
	}) (*struct{ Body *banner.ConsentSnapshot }, error) {
		s, err := h.m.ConsentSnapshot(ctx, orgOf(ctx), in.ID, in.Hash)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		if !json.Valid(s.Content) {
			return nil, h.fail(ctx, core.Errorf(core.CodeInternal, "stored snapshot is not JSON"))
		}
		return &struct{ Body *banner.ConsentSnapshot }{s}, nil
	})

	o = op("verifyConsentRecords", http.MethodGet, "/sites/{id}/consent-records/verify", "Verify the consent log", "Consent", 0)
	o.Description = "Recomputes the site's chain of consent records from the stored records and reports the first break: " +
		"the batch, the record when one is to blame, and what differs. ok is true when the whole log, from the anchor left by " +
		"retention to the head, is what was committed. Its cost grows with the number of records."
	huma.Register(api, o, func(ctx context.Context, in *SiteIDPath) (*struct{ Body *consent.ChainReport }, error) {
		rep, err := h.m.VerifyConsentChain(ctx, orgOf(ctx), in.ID)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *consent.ChainReport }{rep}, nil
	})

	o = op("getConsentStats", http.MethodGet, "/sites/{id}/consent-stats", "Consent statistics", "Consent", 0)
	o.Description = "Decisions per bucket: by action, by jurisdiction, the share with a GPC signal and the opt-in rate per category. " +
		"Buckets are UTC hours, UTC days or weeks starting Monday 00:00 UTC, whatever time zone from and to are given in; from is " +
		"rounded down and to up to whole buckets, and every bucket between is listed. Defaults: the 30 days before now, by day. " +
		"At most 31 days by hour, 366 days by day or week. Counted from aggregates kept with the inserts, so the cost does not " +
		"grow with the number of records; records removed by retention stay counted."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		From     string `query:"from" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$" doc:"ISO 8601 date or date-time (any offset)."`
		To       string `query:"to" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$" doc:"ISO 8601 date or date-time (any offset)."`
		Interval string `query:"interval" enum:"hour,day,week" default:"day"`
	}) (*struct{ Body *consent.ConsentStats }, error) {
		from, to, err := dateRange(in.From, in.To)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		st, err := h.m.ConsentStats(ctx, orgOf(ctx), consent.ConsentStatsQuery{SiteID: in.ID, From: from, To: to, Interval: in.Interval})
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *consent.ConsentStats }{st}, nil
	})

	type eraseBody struct {
		Erased int `json:"erased" doc:"How many records lost the visitor ID."`
	}
	o = op("eraseVisitor", http.MethodDelete, "/sites/{id}/visitors/{visitorId}", "Erase a visitor", "Consent", 0)
	o.Description = "A visitor's erasure request: removes the visitor ID (and the salt of its hash) from every record of the " +
		"site that names it. The decisions stay as proof of consent, with a visitor hash that no longer links to anyone; the " +
		"chain still verifies. See docs/consent-records.md for what is kept and why."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		VisitorID string `path:"visitorId" maxLength:"100"`
	}) (*struct{ Body eraseBody }, error) {
		n, err := h.m.EraseVisitor(ctx, orgOf(ctx), in.ID, in.VisitorID)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body eraseBody }{eraseBody{Erased: n}}, nil
	})
}
