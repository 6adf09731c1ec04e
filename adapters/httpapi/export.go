package httpapi

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/consentd/consentd/adapters/internal/response"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

// Export formats: CSV (the default) and NDJSON.
const (
	exportCSV    = "csv"
	exportNDJSON = "ndjson"
)

// exportFormats are the formats of the export (its query's enum, pinned by
// TestSchemaEnumsAreCore), the default first.
var exportFormats = [...]string{exportCSV, exportNDJSON}

func (h *handlers) registerExport(api huma.API) {
	o := op("exportConsentRecords", http.MethodGet, "/sites/{id}/consent-records/export", "Export consent records", "Consent", 0)
	o.Description = "Every consent record of the site matching from and to (exclusive bounds, as in the listing), " +
		"newest first, streamed as CSV (one header row, categoriesConsented as a JSON object) or NDJSON (one record " +
		"per line, the listing's fields), for proof of consent. The export is read in pages along the listing index " +
		"and written as it is read, so its size is not bounded by memory. A CSV cell that a spreadsheet would read as " +
		"a formula (starting with =, +, -, @, tab or carriage return) is prefixed with a single quote. If the store " +
		"fails after the first bytes were sent, the connection is aborted so that a truncated file is never taken " +
		"for a complete one. Every record carries its chain fields (recordHash, batchSeq, batchIndex, batchHash, " +
		"prevBatchHash, visitorHash): docs/consent-records.md specifies how a third party recomputes the chain from a full export."
	o.Responses = map[string]*huma.Response{"200": {
		Description: "The records, streamed.",
		Content: map[string]*huma.MediaType{
			"text/csv":             {Schema: &huma.Schema{Type: "string", Description: "RFC 4180 CSV with the header " + csvHeader()}},
			"application/x-ndjson": {Schema: &huma.Schema{Type: "string", Description: "One consent record JSON object per line."}},
		},
	}}
	type exportOutput struct {
		ContentType        string `header:"Content-Type"`
		ContentDisposition string `header:"Content-Disposition"`
		Body               func(huma.Context)
	}
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		Format    string `query:"format" enum:"csv,ndjson" default:"csv" doc:"csv or ndjson."`
		From      string `query:"from" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$" doc:"Only records created after this ISO 8601 date or date-time."`
		To        string `query:"to" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$" doc:"Only records created before this ISO 8601 date or date-time."`
		VisitorID string `query:"visitorId" maxLength:"100" doc:"Only this visitor's records (a visitor's access request)."`
	}) (*exportOutput, error) {
		from, to, err := dateRange(in.From, in.To)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		org := orgOf(ctx)
		// Answer 403 and 404 before the 200 is committed to the wire.
		if err := core.Authorize(ctx, core.PermExport, org, in.ID); err != nil {
			return nil, h.fail(ctx, err)
		}
		if _, err := h.m.Site(ctx, org, in.ID); err != nil {
			return nil, h.fail(ctx, err)
		}
		q := consent.ConsentQuery{SiteID: in.ID, From: from, To: to, VisitorID: in.VisitorID}
		out := &exportOutput{
			ContentType:        "text/csv; charset=utf-8",
			ContentDisposition: `attachment; filename="consent-records-` + in.ID + `.` + in.Format + `"`,
		}
		if in.Format == exportNDJSON {
			out.ContentType = "application/x-ndjson"
		}
		out.Body = func(hc huma.Context) {
			hc.SetStatus(http.StatusOK)
			w := bufio.NewWriterSize(hc.BodyWriter(), 32<<10)
			var write func(*consent.ConsentRecord) error
			if in.Format == exportNDJSON {
				enc := json.NewEncoder(w)
				write = func(r *consent.ConsentRecord) error { return enc.Encode(r) }
			} else {
				cw := csv.NewWriter(w)
				if err := cw.Write(response.ConsentColumns()); err != nil {
					h.abortExport(ctx, err)
				}
				write = func(r *consent.ConsentRecord) error {
					if err := cw.Write(response.ConsentRow(r)); err != nil {
						return err
					}
					cw.Flush()
					return cw.Error()
				}
			}
			// The server's write timeout bounds ordinary responses; an export may take longer,
			// so its deadline moves on while records keep flowing.
			_, rw := humago.Unwrap(hc)
			rc := http.NewResponseController(rw)
			n := 0
			extend := func(r *consent.ConsentRecord) error {
				if n%exportDeadlineEvery == 0 {
					rc.SetWriteDeadline(time.Now().Add(time.Minute)) //nolint:errcheck // unsupported writers keep the server's deadline
				}
				n++
				return write(r)
			}
			if err := h.m.ExportConsentRecords(ctx, org, q, extend); err != nil {
				h.abortExport(ctx, err)
			}
			if err := w.Flush(); err != nil {
				h.abortExport(ctx, err)
			}
		}
		return out, nil
	})
}

// exportDeadlineEvery is how many records an export writes between moves of its deadline.
const exportDeadlineEvery = 1000

// abortExport ends a stream that failed after its status was sent: the connection is cut so
// the client sees an incomplete response, not a short file that looks whole.
func (h *handlers) abortExport(ctx context.Context, err error) {
	if ctx.Err() == nil {
		h.log.ErrorContext(ctx, "consent export failed", slog.Any("err", err))
	}
	panic(http.ErrAbortHandler)
}

func csvHeader() string {
	b, _ := json.Marshal(response.ConsentColumns())
	return string(b)
}
