package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

// dateRange reads the from and to query parameters of consent listings and exports.
func dateRange(from, to string) (*time.Time, *time.Time, error) {
	f, err := parseDate("from", from)
	if err != nil {
		return nil, nil, err
	}
	t, err := parseDate("to", to)
	return f, t, err
}

// DatePattern is the form of the from and to parameters, which parseDate reads: a date, or a
// date-time with optional fraction and offset. The parameters' tags state it literally; the
// schema test checks them against this.
const DatePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$`

// parseDate reads an ISO 8601 date ("2026-01-31") or date-time ("2026-01-31T12:00:00Z").
func parseDate(field, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			if err := core.CheckTime(field, t); err != nil {
				return nil, err
			}
			return &t, nil
		}
	}
	return nil, core.Errorf(core.CodeInvalid, "%s: must be an ISO 8601 date or date-time", field)
}

func (h *handlers) registerConsent(api huma.API) {
	type consentPage struct {
		Records []*consent.ConsentRecord `json:"records"`
		Total   int                      `json:"total"`
		Page    int                      `json:"page"`
		Limit   int                      `json:"limit"`
		// NextCursor continues the listing after this page.
		NextCursor string `json:"nextCursor,omitempty" doc:"Pass as cursor to get the next page; absent on the last page."`
	}
	o := op("listConsentRecords", http.MethodGet, "/sites/{id}/consent-records", "List consent records", "Consent", 0)
	o.Description = "Newest first. from and to are exclusive bounds on createdAt (ISO 8601 date or date-time). total counts every record matching the filters (not only those after the cursor)."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		Page      int    `query:"page" default:"1" minimum:"1" maximum:"1000000"`
		Limit     int    `query:"limit" default:"50" minimum:"1" maximum:"100"`
		From      string `query:"from" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$" doc:"Only records created after this ISO 8601 date or date-time."`
		To        string `query:"to" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$" doc:"Only records created before this ISO 8601 date or date-time."`
		VisitorID string `query:"visitorId" maxLength:"100" doc:"Only this visitor's records (a visitor's access request)."`
		Cursor    string `query:"cursor" maxLength:"200" doc:"Opaque: the nextCursor of the previous page. Deep pages cost the same as the first; page must then be 1."`
	}) (*struct{ Body consentPage }, error) {
		from, to, err := dateRange(in.From, in.To)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		q := consent.ConsentQuery{SiteID: in.ID, From: from, To: to, Page: in.Page, Limit: in.Limit, VisitorID: in.VisitorID}
		if in.Cursor != "" {
			if q.After, err = consent.DecodeConsentCursor(in.Cursor); err != nil {
				return nil, h.fail(ctx, err)
			}
		}
		recs, total, err := h.m.ConsentRecords(ctx, orgOf(ctx), q)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		page := consentPage{Records: recs, Total: total, Page: in.Page, Limit: in.Limit}
		if len(recs) == in.Limit {
			page.NextCursor = consent.EncodeConsentCursor(recs[len(recs)-1])
		}
		return &struct{ Body consentPage }{page}, nil
	})
}
