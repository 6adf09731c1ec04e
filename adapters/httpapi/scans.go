package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core/scan"
)

type ScanPath struct {
	SiteIDPath
	ScanID string `path:"scanId" doc:"Scan ID (UUID)."`
}

type scanTriggerBody struct {
	URL                *string  `json:"url,omitempty" nullable:"false" format:"uri" maxLength:"500" doc:"URL to scan; the site's url by default."`
	URLs               []string `json:"urls,omitempty" maxItems:"10" nullable:"false" doc:"Further URLs to start from (absolute http(s) URLs)."`
	StorefrontPassword *string  `json:"storefrontPassword,omitempty" nullable:"false" minLength:"1" maxLength:"100" doc:"Password of a storefront's password page, submitted when the shop answers with one."`
	Mode               *string  `json:"mode,omitempty" nullable:"false" enum:"static,deep,auto,verify" doc:"static reads the HTML; deep also loads every page in a headless browser that gives no consent, listing the cookies and storage keys it really holds and what loaded before consent (preConsent); auto (the server's default unless CONSENTD_SCAN_MODE says otherwise) is deep when the worker has a browser; verify loads every page once per consent state with the banner driven (the Scan's verification, read by GET /sites/{id}/compliance). The Scan's modeUsed says which ran."`
}

func (h *handlers) registerScans(api huma.API) {
	type scanOutput struct{ Body *scan.Scan }

	o := op("triggerScan", http.MethodPost, "/sites/{id}/scan", "Trigger a scan", "Scanner", http.StatusCreated)
	o.Description = "Creates a pending scan and queues it; a worker moves it to running, then completed or failed. Poll GET /sites/{id}/scans/{scanId}. Start URLs are crawled and same-site links followed breadth-first up to a page limit. Loopback, private and link-local targets fail the scan unless the server allows them."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		Body *scanTriggerBody `required:"false"`
	}) (*scanOutput, error) {
		var si scan.ScanInput
		if b := in.Body; b != nil {
			si = scan.ScanInput{URL: b.URL, URLs: b.URLs, StorefrontPassword: b.StorefrontPassword, Mode: b.Mode}
		}
		s, err := h.m.TriggerScan(ctx, orgOf(ctx), in.ID, si)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &scanOutput{s}, nil
	})

	huma.Register(api, op("listScans", http.MethodGet, "/sites/{id}/scans", "List scans, most recent first", "Scanner", 0),
		func(ctx context.Context, in *SiteIDPath) (*struct{ Body []*scan.Scan }, error) {
			scans, err := h.m.Scans(ctx, orgOf(ctx), in.ID)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &struct{ Body []*scan.Scan }{scans}, nil
		})

	huma.Register(api, op("getScan", http.MethodGet, "/sites/{id}/scans/{scanId}", "Get a scan", "Scanner", 0),
		func(ctx context.Context, in *ScanPath) (*scanOutput, error) {
			s, err := h.m.Scan(ctx, orgOf(ctx), in.ID, in.ScanID)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &scanOutput{s}, nil
		})

	type configureResult struct {
		Created            int          `json:"created"`
		Services           []ServiceRef `json:"services"`
		BlockingRulesAdded int          `json:"blockingRulesAdded"`
	}
	o = op("configureScan", http.MethodPost, "/sites/{id}/scans/{scanId}/configure", "Configure services from a completed scan", "Scanner", 0)
	o.Description = "Creates services, their cookies and blocking rules from the scan's detected services, each in the site category of its library category. Idempotent: services already on the site are skipped and not counted. 400 when the scan is not completed."
	huma.Register(api, o, func(ctx context.Context, in *ScanPath) (*struct{ Body configureResult }, error) {
		res, err := h.m.ConfigureScan(ctx, orgOf(ctx), in.ID, in.ScanID)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		out := configureResult{Created: len(res.Services), Services: []ServiceRef{}, BlockingRulesAdded: res.BlockingRulesAdded}
		for _, s := range res.Services {
			out.Services = append(out.Services, refOf(s))
		}
		return &struct{ Body configureResult }{out}, nil
	})

	huma.Register(api, op("getTrackers", http.MethodGet, "/sites/{id}/trackers", "Trackers found by the latest scan", "Scanner", 0),
		func(ctx context.Context, in *SiteIDPath) (*struct{ Body *scan.Trackers }, error) {
			t, err := h.m.Trackers(ctx, orgOf(ctx), in.ID)
			if err != nil {
				return nil, h.fail(ctx, err)
			}
			return &struct{ Body *scan.Trackers }{t}, nil
		})
}
