package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/analytics"
	"github.com/consentd/consentd/core/banner"
)

// AnalyticsUseCases take the runtime's interaction events and report the analytics
// (core/analytics).
type AnalyticsUseCases interface {
	RecordEvents(ctx context.Context, projectKey string, in analytics.EventsInput) error
	AnalyticsReport(ctx context.Context, orgID string, q analytics.Query) (*analytics.Report, error)
	AnalyticsRows(ctx context.Context, orgID string, q analytics.Query) ([]analytics.Row, error)
}

// eventsBody is the wire form of an event batch (docs/analytics.md).
type eventsBody struct {
	ConsentVersion int    `json:"consentVersion"`
	Language       string `json:"language,omitempty"`
	Variant        string `json:"variant,omitempty"`
	Events         []struct {
		Type     string `json:"type"`
		Decision string `json:"decision,omitempty"`
		MS       *int64 `json:"ms,omitempty"`
	} `json:"events"`
}

// eventsSchema documents eventsBody; the handler reads the body raw, because sendBeacon
// sends it as text/plain (a type that needs no CORS preflight). A new one for each handler
// (its two content types share it):
// huma.Register writes into the schemas it is given (PrecomputeMessages), so one schema
// shared by handlers built at once was a concurrent map write, which crashes the process
// (seen as a test binary exiting 2; the race detector showed it).
func eventsSchema() *huma.Schema {
	return &huma.Schema{Type: "object", Required: []string{"consentVersion", "events"}, AdditionalProperties: false,
		Properties: map[string]*huma.Schema{
			"consentVersion": {Type: "integer", Minimum: ptr(1.0), Description: "The banner version shown."},
			"language":       {Type: "string", MaxLength: ptr(banner.MaxLanguageKey), Pattern: banner.LanguagePattern, Description: "The language of the texts shown; absent for the site's default."},
			"variant":        {Type: "string", Pattern: analytics.VariantPattern, Description: "The experiment variant shown; absent or empty for none."},
			"events": {Type: "array", MinItems: ptr(1), MaxItems: ptr(analytics.MaxEvents), Items: &huma.Schema{
				Type: "object", Required: []string{"type"}, AdditionalProperties: false,
				Properties: map[string]*huma.Schema{
					"type":     {Type: "string", Enum: anyOf(analytics.EventTypes())},
					"decision": {Type: "string", Enum: anyOf(analytics.Decisions()), Description: "The decision of a decision event."},
					"ms":       {Type: "integer", Minimum: ptr(0.0), Maximum: ptr(float64(analytics.MaxDecisionMS)), Description: "Milliseconds from the banner shown to the decision (decision events)."},
				},
			}},
		}}
}

func ptr[T any](v T) *T { return &v }

func anyOf(vs []string) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

func (h *handlers) registerAnalytics(api huma.API) {
	o := publicOp("recordEvents", http.MethodPost, core.PublicRoute(core.PublicEventsPath), "Record banner interaction events", http.StatusNoContent)
	o.Description = "A batch of the banner runtime's interaction events for one page view (banner shown, first decision, preferences " +
		"opened, left without deciding, time to decision), sent with navigator.sendBeacon as text/plain or application/json. " +
		"Each event adds one to a counter of its site, UTC hour, country and regional rule (from the request, as for the consent " +
		"post), device class (from the User-Agent), language, banner version and variant: no row per event, no identifier, no " +
		"address, nothing that links two batches. Crawlers' and verifications' batches are checked and dropped. docs/analytics.md."
	o.MaxBodyBytes = analytics.MaxEventsBody
	body := eventsSchema()
	o.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
		"text/plain": {Schema: body}, "application/json": {Schema: body},
	}}
	o.Metadata = map[string]any{bodyChecksItself: true}
	o.SkipValidateBody = true // decoded and checked by the handler, whatever its Content-Type
	huma.Register(api, o, func(ctx context.Context, in *struct {
		ProjectKeyPath
		UserAgent string `header:"User-Agent" doc:"Only a device class is kept: mobile, tablet or desktop; crawlers are dropped."`
		RawBody   []byte
	}) (*struct{}, error) {
		var b eventsBody
		dec := json.NewDecoder(bytes.NewReader(in.RawBody))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&b); err != nil {
			return nil, h.fail(ctx, core.FieldErrorf("body", "must be a JSON event batch: %s", jsonProblem(err)))
		}
		if dec.More() {
			return nil, h.fail(ctx, core.FieldErrorf("body", "must be one JSON object"))
		}
		ein := analytics.EventsInput{ConsentVersion: b.ConsentVersion, Language: b.Language, Variant: b.Variant,
			Country: locationOf(ctx).Country, Region: locationOf(ctx).Region, UserAgent: in.UserAgent, VerifierToken: verifierOf(ctx)}
		for _, e := range b.Events {
			ein.Events = append(ein.Events, analytics.Event{Type: e.Type, Decision: e.Decision, MS: e.MS})
		}
		if err := h.m.RecordEvents(ctx, in.ProjectKey, ein); err != nil {
			return nil, h.fail(ctx, err)
		}
		return nil, nil
	})

	o = op("getAnalytics", http.MethodGet, "/sites/{id}/analytics", "Consent analytics", "Analytics", 0)
	o.Description = "How visitors meet the banner: shown (events), decided and how (consent records), the consent rate " +
		"(decided / shown), the accept, refuse and choose shares, preferences opened, visitors who left without deciding, the mean " +
		"time to decision, and per-category opt-in, as totals, as a series of UTC buckets (hour, day or week, as the consent " +
		"statistics: from rounded down and to up, every bucket listed, defaults the 30 days before now by day), and broken down " +
		"by country, regional rule, device class, language, banner version and experiment variant. The filters keep one value of " +
		"a dimension. Crawlers are left out unless device=bot. Counts reach the database within a second (docs/analytics.md)."
	huma.Register(api, o, func(ctx context.Context, in *analyticsParams) (*struct{ Body *analytics.Report }, error) {
		q, err := in.query()
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		rep, err := h.m.AnalyticsReport(ctx, orgOf(ctx), q)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *analytics.Report }{rep}, nil
	})

	o = op("exportAnalytics", http.MethodGet, "/sites/{id}/analytics/export", "Export consent analytics (CSV)", "Analytics", 0)
	o.Description = "The counters the analytics are computed from, one CSV row per UTC hour, country, regional rule, device " +
		"class, language, banner version and variant, with the filters and bounds of GET /sites/{id}/analytics. Aggregates only: " +
		"no record, no visitor."
	o.Responses = map[string]*huma.Response{"200": {Description: "The counters.", Content: map[string]*huma.MediaType{
		"text/csv": {Schema: &huma.Schema{Type: "string", Description: "RFC 4180 CSV with a header row."}},
	}}}
	huma.Register(api, o, func(ctx context.Context, in *analyticsParams) (*struct {
		ContentType        string `header:"Content-Type"`
		ContentDisposition string `header:"Content-Disposition"`
		Body               []byte
	}, error) {
		q, err := in.query()
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		rows, err := h.m.AnalyticsRows(ctx, orgOf(ctx), q)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(analytics.CSVHeader()) //nolint:errcheck // a bytes.Buffer does not fail; w.Error reports
		for i := range rows {
			w.Write(rows[i].CSVRecord()) //nolint:errcheck // as above
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct {
			ContentType        string `header:"Content-Type"`
			ContentDisposition string `header:"Content-Disposition"`
			Body               []byte
		}{"text/csv; charset=utf-8", `attachment; filename="analytics-` + in.ID + `.csv"`, buf.Bytes()}, nil
	})
}

// analyticsParams are the query of the analytics and their export.
type analyticsParams struct {
	SiteIDPath
	From     string `query:"from" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$" doc:"ISO 8601 date or date-time (any offset)."`
	To       string `query:"to" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$" doc:"ISO 8601 date or date-time (any offset)."`
	Interval string `query:"interval" enum:"hour,day,week" default:"day"`
	Country  string `query:"country" pattern:"^[A-Z]{2}$" doc:"Only this ISO 3166-1 country."`
	Device   string `query:"device" enum:"mobile,tablet,desktop,bot" doc:"Only this device class (bot: crawlers, left out otherwise)."`
	Variant  string `query:"variant" pattern:"^[A-Za-z0-9_-]{0,64}$" doc:"Only this experiment variant (absent: all)."`
	Language string `query:"language" maxLength:"35" doc:"Only this language of the texts shown."`
}

func (p *analyticsParams) query() (analytics.Query, error) {
	from, to, err := dateRange(p.From, p.To)
	if err != nil {
		return analytics.Query{}, err
	}
	q := analytics.Query{SiteID: p.ID, From: from, To: to, Interval: p.Interval}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	q.Country, q.Device, q.Variant, q.Language = opt(p.Country), opt(p.Device), opt(p.Variant), opt(p.Language)
	return q, nil
}

// jsonProblem names what is wrong with a body in words that leak nothing of the server.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return "malformed JSON"
	case errors.As(err, &te):
		return te.Field + " has the wrong type"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "empty or cut short"
	}
	return err.Error()
}
