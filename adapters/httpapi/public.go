package httpapi

import (
	"context"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
)

type ProjectKeyPath struct {
	ProjectKey string `path:"projectKey" maxLength:"100" doc:"The site's public project key."`
}

func publicOp(id, method, path, summary string, status int) huma.Operation {
	return huma.Operation{
		OperationID: id, Method: method, Path: path, Summary: summary, Tags: []string{"Public"},
		DefaultStatus: status, Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusTooManyRequests},
	}
}

func (h *handlers) registerPublic(api huma.API) {
	o := publicOp("getPublicConfig", http.MethodGet, core.PublicRoute(core.PublicConfigPath), "Banner runtime configuration", 0)
	o.Description = "Everything the banner runtime needs: banner settings, categories with their services and cookies, blocking rules, the cookies to delete on withdrawal, the visitor's jurisdiction, and the texts in the visitor's language (lang, then Accept-Language). No API key; cacheable for a minute, with an ETag." + locationCaching
	// The body is marshalled once, for the ETag and the wire alike; its schema is declared here.
	o.Responses = map[string]*huma.Response{
		"200": {Description: "The configuration.", Content: map[string]*huma.MediaType{
			"application/json": {Schema: api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(banner.PublicConfig{}), true, "PublicConfig")},
		}},
		"304": {Description: "Not modified (If-None-Match matched the ETag)."},
	}
	huma.Register(api, o, func(ctx context.Context, in *pageInput) (*bodyOutput, error) {
		raw, err := h.publicConfigJSON(ctx, in.ProjectKey, in.LanguageParams, false)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return rawBody(raw, "application/json", h.cacheControl(ctx, "max-age=60"), in.IfNoneMatch, h.loc.vary()), nil
	})

	o = publicOp("recordConsent", http.MethodPost, core.PublicRoute(core.PublicConsentPath), "Record a consent decision", http.StatusCreated)
	o.Description = "Stores a visitor's decision as proof of consent; a 201 means the record is committed. The answer is the visitor's receipt: the record's id and recordHash, the visitorId stored, and snapshotHash, which names what was shown (the site's configuration in the language and runtime version named); nothing that links records or rebuilds the chain (no visitor salt or hash, no batch hashes). The IP address is never stored or logged, only the country: from CONSENTD_COUNTRY_HEADER when configured and present, otherwise from the built-in geolocation of the client address (which CONSENTD_TRUSTED_PROXIES picks). gpcSignal is true when the request carries Sec-GPC: 1; under ccpa a GPC signal also stores doNotSell. " +
		"A decision posted with a verifier's credential (Consentd-Verifier, issued by this server for one verification scan of this site, valid a few minutes) is checked and answered as any other, 201 and a receipt, but stored nowhere: not in the log, its chain, the statistics, the exports nor the webhooks. " +
		"A post with an idempotency key (key) the site already holds is answered with that record's receipt and stores nothing: send the same key with every retry of one decision (after a timeout, a dropped connection or a 503 with Retry-After). " +
		"A record never contradicts itself: action reject_all with an optional category true, or accept_all with an optional category false or left out (except marketing when the request carries a GPC signal), is a 400 rather than a record rewritten from a guess; a consentVersion above the site's current one is a 400; an unknown category slug is a 400."
	o.MaxBodyBytes = 16 << 10
	// The body is checked, validated and decoded in one pass (consentBody.UnmarshalJSON).
	o.SkipValidateBody = true
	o.Metadata = map[string]any{bodyChecksItself: true}
	huma.Register(api, o, func(ctx context.Context, in *struct {
		ProjectKeyPath
		UserAgent string `header:"User-Agent" doc:"Only a coarse browser family and device class are stored."`
		Body      consentBody
	}) (*struct{ Body *consent.ConsentReceipt }, error) {
		if in.Body.refused != nil {
			return nil, h.fail(ctx, in.Body.refused)
		}
		gpc, loc := gpcOf(ctx), locationOf(ctx)
		r, err := h.m.RecordConsent(ctx, in.ProjectKey, consent.ConsentInput{
			VisitorID: in.Body.VisitorID, Categories: in.Body.Categories, ConsentVersion: in.Body.ConsentVersion,
			DoNotSell: in.Body.DoNotSell, Action: in.Body.Action, GPC: gpc || in.Body.GPC, Country: loc.Country, Region: loc.Region,
			Language: in.Body.Language, RuntimeVersion: in.Body.RuntimeVersion, PageURL: in.Body.PageURL, UserAgent: in.UserAgent,
			TCString: in.Body.TCString, ACString: in.Body.ACString, GVLVersion: in.Body.GVLVersion, GPPString: in.Body.GPPString, Variant: in.Body.Variant,
			VerifierToken:  verifierOf(ctx),
			IdempotencyKey: in.Body.IdempotencyKey,
		})
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body *consent.ConsentReceipt }{r.Receipt()}, nil
	})
}

func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}
