// Package httpapi is consentd's HTTP adapter: the management API (described by the OpenAPI
// document it serves at /api/v1/openapi.json, rendered at /api/v1/docs), the
// public endpoints the banner runtime calls, and the operational endpoints, on huma v2 over
// net/http. Errors from core are mapped to statuses in one place (errors.go).
package httpapi

import (
	"compress/gzip"
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/klauspost/compress/gzhttp"

	"github.com/consentd/consentd/adapters/httpapi/apidocs"
	"github.com/consentd/consentd/adapters/internal/response"
	"github.com/consentd/consentd/adapters/internal/trustedproxy"
	"github.com/consentd/consentd/core"
)

// Config configures the HTTP adapter.
type Config struct {
	UseCases UseCases
	Logger   *slog.Logger
	// PublicURL is the external base URL used in setup snippets ("https://consent.example.com");
	// empty to take it from each request.
	PublicURL string
	// CountryHeader names a trusted request header carrying the visitor's ISO country code.
	CountryHeader string
	// RegionHeader names a trusted request header carrying the visitor's subdivision, as
	// "US-CA" or "CA".
	RegionHeader string
	// Geolocator places visitors whose request carries none of the trusted headers, by the
	// client address TrustedProxies picks; nil places them nowhere.
	Geolocator core.Geolocator
	// PublicRateLimit is the public endpoints' requests per second per client address (burst
	// twice that); 0 turns the limit off.
	PublicRateLimit float64
	// Runtime serves the banner runtime and its lazily loaded part (core.PublicPath of
	// core.PublicRuntime and core.PublicRuntimeMore); nil serves neither.
	Runtime http.Handler
	// RuntimeVersion is the runtime's content version, used for the cacheable snippet URL.
	RuntimeVersion string
	// RuntimeScript is the runtime's code, which the per-site loader (core.PublicLoader)
	// serves after the site's configuration; nil
	// serves no loader.
	RuntimeScript []byte
	// TCFModule serves the IAB TCF module (core.PublicPath of core.PublicTCFModule); TCFStub is
	// the __tcfapi stub the loader inlines where the TCF applies, for the configuration's
	// language. Either nil: the loader never inlines the stub.
	TCFModule http.Handler
	TCFStub   func(lang string) []byte
	// GPPAPI is the __gpp API the loader inlines where the visitor has GPP sections, given the
	// JSON of their core.GPPConfig; nil: the loader never inlines it.
	GPPAPI func(conf []byte) []byte
	// ExperimentScript is the A/B test variant picker the loader inlines for a visitor a running
	// experiment applies to, given the JSON of their experiment.Public; nil: never.
	ExperimentScript func(conf []byte) []byte
	// MaxBodyBytes limits request bodies (default 1 MiB).
	MaxBodyBytes int64
	// TrustedProxies are the peers whose X-Forwarded-For and Forwarded headers name the
	// client, for the public rate limit, geolocation and the access log's masked address.
	TrustedProxies []netip.Prefix

	// noBodySchema, for the schema-agreement test only (WithoutBodySchema), skips huma's
	// validation of request bodies, so that what core's validators refuse shows by itself.
	noBodySchema bool
	// onOperation, for the schema-sharing test only, sees every operation as it is added.
	onOperation func(*huma.Operation)
}

type handlers struct {
	m   UseCases
	log *slog.Logger
	cfg Config
	loc *locator
	// proxies is the trusted-proxy rule: who the client is, whether it came over HTTPS.
	proxies *trustedproxy.Rule
	// loaders keeps the loaders gzipped.
	loaders gzipCache
}

type ctxKey int

const (
	orgKey ctxKey = iota
	factsKey
)

var bearer = []map[string][]string{{"bearer": {}}}

// New returns the HTTP handler of the whole service.
func New(cfg Config) http.Handler {
	h, _ := newHandler(cfg)
	return h
}

// newHandler is New that also returns the patterns the handler serves.
func newHandler(cfg Config) (http.Handler, func() []string) {
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	cfg.UseCases.PublicBannerUseCases = countedConsents{cfg.UseCases.PublicBannerUseCases}
	h := &handlers{m: cfg.UseCases, log: cfg.Logger, cfg: cfg, loc: newLocator(cfg), proxies: trustedproxy.New(cfg.TrustedProxies)}

	mux := &routeMux{ServeMux: http.NewServeMux()}
	hc := huma.DefaultConfig("consentd", "1.0.0")
	hc.CreateHooks = nil // no $schema links in bodies: responses are exactly the contract's
	hc.DocsPath = ""     // huma's page loads its renderer from a CDN; apidocs serves one embedded
	hc.Info.Description = apiDescription
	hc.Formats = map[string]huma.Format{"application/json": jsonFormat, "json": jsonFormat}
	hc.Servers = []*huma.Server{{URL: core.APIPrefix}}
	hc.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "An API key: `Authorization: Bearer cd_…`. Keys are created with `consentd apikey create` or `POST /api-keys`, rotated and revoked under `/api-keys`, and stored only as hashes."},
	}
	if cfg.noBodySchema {
		hc.OnAddOperation = append(hc.OnAddOperation, func(_ *huma.OpenAPI, op *huma.Operation) { op.SkipValidateBody = true })
	}
	if cfg.onOperation != nil {
		hc.OnAddOperation = append(hc.OnAddOperation, func(_ *huma.OpenAPI, op *huma.Operation) { cfg.onOperation(op) })
	}
	api := humago.NewWithPrefix(mux, core.APIPrefix, hc)
	api.UseMiddleware(h.authenticate(api), h.requestFacts, checkInput(api))

	h.registerAPIKeys(api)
	h.registerSites(api)
	h.registerBanner(api)
	h.registerCategories(api)
	h.registerServices(api)
	h.registerLibrary(api)
	h.registerRegions(api)
	h.registerScans(api)
	h.registerCompliance(api)
	h.registerVerifier(api)
	h.registerWebhooks(api)
	h.registerExperiments(api)
	h.registerUnsubscribe(api)
	h.registerConsent(api)
	h.registerExport(api)
	h.registerProof(api)
	if cfg.UseCases.AnalyticsUseCases != nil {
		h.registerAnalytics(api)
	}
	h.registerSnippet(api)
	h.registerPublic(api)
	h.registerLoader(api)
	h.registerEdge(api)
	h.registerTCF(api)
	h.registerDeclaration(api)
	h.registerAudit(api)
	h.registerSSO(api)
	documentRoles(api)

	if cfg.Runtime != nil {
		mux.Handle("GET "+core.PublicPath("", core.PublicRuntime), http.StripPrefix(core.PublicPrefix, cfg.Runtime))
		mux.Handle("GET "+core.PublicPath("", core.PublicRuntimeMore), http.StripPrefix(core.PublicPrefix, cfg.Runtime))
		documentRuntime(api)
	}
	if cfg.TCFModule != nil {
		mux.Handle("GET "+core.PublicPath("", core.PublicTCFModule), http.StripPrefix(core.PublicPrefix, cfg.TCFModule))
		documentTCFModule(api)
	}
	mux.Handle("GET "+core.APIPrefix+"/docs", apidocs.Page(core.APIPrefix+"/openapi.json", core.APIPrefix+"/docs/redoc.standalone.js"))
	mux.Handle("GET "+core.APIPrefix+"/docs/redoc.standalone.js", apidocs.Script())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}`)) //nolint:errcheck // the client went away
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := h.m.Ready(ctx); err != nil {
			h.log.Warn("readiness check failed", slog.Any("err", err))
			writeError(w, http.StatusServiceUnavailable, core.CodeUnavailable, "the store cannot write now: "+core.ErrorMessage(err))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ready"}`)) //nolint:errcheck // the client went away
	})
	mux.Handle("GET /metrics", metricsHandler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, core.CodeNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
	})

	var root http.Handler = mux
	root = cleanPaths(root)
	root = h.public(root)
	root = limitBody(cfg.MaxBodyBytes, root)
	root = compress(root)
	root = instrument(cfg.Logger, cfg.TrustedProxies, root)
	root = traced(root)
	root = securityHeaders(root)
	root = recoverer(cfg.Logger, root)
	for _, route := range mux.routes() {
		latency.WithLabelValues(route) // a series per route from the start, at zero
	}
	return guardBody(cfg.MaxBodyBytes, root), mux.routes
}

// authenticate checks the bearer key of every operation that declares security and puts the
// caller's organization in the context.
func (h *handlers) authenticate(api huma.API) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		if len(ctx.Operation().Security) == 0 {
			next(ctx)
			return
		}
		actor, err := h.authenticateHeader(ctx.Context(), ctx.Header("Authorization"))
		if err != nil {
			if status := response.Status(err); status == http.StatusUnauthorized {
				ctx.SetHeader("WWW-Authenticate", `Bearer realm="consentd"`)
			} else if status == http.StatusServiceUnavailable {
				ctx.SetHeader("Retry-After", response.RetryAfter)
			}
			huma.WriteErr(api, ctx, response.Status(err), core.ErrorMessage(err)) //nolint:errcheck // written to the client
			return
		}
		// The use cases authorize the caller by its role and sites (core.Actor.Authorize).
		ctx = huma.WithContext(ctx, core.WithActor(ctx.Context(), actor))
		next(huma.WithValue(ctx, orgKey, actor.OrgID))
	}
}

// authenticateHeader checks an Authorization header: the Bearer scheme (in any case, as RFC
// 9110 has it) and the key. A header without the scheme (the key alone, or another scheme) is
// told so, rather than reported as no key at all.
func (h *handlers) authenticateHeader(ctx context.Context, header string) (*core.Actor, error) {
	header = strings.TrimSpace(header)
	scheme, key, _ := strings.Cut(header, " ")
	if header != "" && !strings.EqualFold(scheme, "Bearer") {
		if strings.HasPrefix(scheme, "cd_") {
			return nil, core.Errorf(core.CodeUnauthorized, "the Authorization header holds the key without its scheme: send Authorization: Bearer <key>")
		}
		// The value is not echoed: it may be a credential.
		return nil, core.Errorf(core.CodeUnauthorized, "the Authorization header does not use the Bearer scheme: send Authorization: Bearer <key>")
	}
	return h.m.AuthenticateKey(ctx, strings.TrimSpace(key))
}

// requestFacts records what handlers need from the request itself: the visitor's location
// (on the public endpoints, see locator), the Global Privacy Control signal, and the base URL
// the client used. They are one context value (facts), read by locationOf, gpcOf and
// baseURLOf: each value is a context and a huma context more for every request.
func (h *handlers) requestFacts(ctx huma.Context, next func(huma.Context)) {
	r, _ := humago.Unwrap(ctx)
	f := &facts{base: h.proxies.BaseURL(r), gpc: ctx.Header("Sec-GPC") == "1"}
	if isPublic(ctx.URL().Path) {
		f.location = h.loc.locate(r)
		if loc, token, ok := h.verifierPlace(r); ok {
			f.location, f.verifier = loc, token
		}
	}
	next(huma.WithValue(ctx, factsKey, f))
}

// facts are requestFacts' findings.
type facts struct {
	location core.Location
	// verifier is the verifier's credential the request carried when it is valid for the
	// request's site (core/verifier); "" for a visitor's request.
	verifier string
	gpc      bool
	base     string // trustedproxy.Rule.BaseURL
}

func factsOf(ctx context.Context) *facts {
	if f, _ := ctx.Value(factsKey).(*facts); f != nil {
		return f
	}
	return &facts{}
}

func orgOf(ctx context.Context) string {
	s, _ := ctx.Value(orgKey).(string)
	return s
}

// locationOf is the visitor's location, resolved once per request by requestFacts.
func locationOf(ctx context.Context) core.Location { return factsOf(ctx).location }

// verifierOf is the request's valid verifier credential, "" for a visitor's request.
func verifierOf(ctx context.Context) string { return factsOf(ctx).verifier }

// gpcOf reports whether the request carries Sec-GPC: 1.
func gpcOf(ctx context.Context) bool { return factsOf(ctx).gpc }

// baseURLOf is the base URL the client used (trustedproxy.Rule.BaseURL).
func baseURLOf(ctx context.Context) string { return factsOf(ctx).base }

// op describes an authenticated operation of the management API.
func op(id, method, path, summary, tag string, status int) huma.Operation {
	return huma.Operation{
		OperationID: id, Method: method, Path: path, Summary: summary, Tags: []string{tag},
		DefaultStatus: status, Security: bearer,
		Errors: []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound},
	}
}

// limitBody refuses a declared Content-Length over the limit before anything reads the body;
// guardBody caps what is actually read and ends the connection of a refused body.
func limitBody(n int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > n {
			writeError(w, http.StatusRequestEntityTooLarge, core.CodeInvalid, "request body too large")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// recoverer turns a panic into a 500 with the error body and logs it; it is the last line of
// defence, not a way of handling errors.
func recoverer(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("panic serving request", slog.Any("panic", v), slog.String("path", r.URL.Path))
				writeError(w, http.StatusInternalServerError, core.CodeInternal, "internal error")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

var apiDescription = `Management API of consentd, a self-hostable consent management platform.

Every management operation needs ` + "`Authorization: Bearer <API key>`" + ` and acts on the
organization owning the key; another organization's resources answer 404 as if they did not exist.

Errors always have the body ` + "`{\"error\": {\"code\", \"message\"}}`" + `. Validation failures,
malformed JSON and unknown body fields are 400 with code ` + "`validation_error`" + ` and a message
naming the field (never 422), with the line and column where malformed JSON stops being
JSON. A body sent with another Content-Type than JSON is 415 with code
` + "`unsupported_media_type`" + `. Codes: validation_error, unauthorized, forbidden, not_found,
conflict, rate_limited, internal, unavailable, unsupported_media_type.

When the database cannot answer (connection lost, shut down, read-only, disk full), every
endpoint answers 503 with code ` + "`unavailable`" + ` and a ` + "`Retry-After`" + ` header (seconds): the
request did nothing and is worth sending again after that delay. A 500 (code ` + "`internal`" + `) is
a bug.

API keys (` + "`/api-keys`" + `): a key shows its name, prefix, creation, last use (to the minute) and,
once rotated, when it stops working; the key itself is only in the answer that creates it.
Rotation keeps the old key valid for a grace period (default one day); revocation is immediate.

Public endpoints (` + "`" + strings.TrimPrefix(core.PublicPrefix, core.APIPrefix) + "/...`" + `) need no key: the banner runtime names the site by its
projectKey. They allow any origin (CORS) and are rate limited per client address (429).

Decisions the contract leaves open: PATCH on the banner merges ` + "`colors`" + ` and
` + "`textOverrides`" + ` key by key (an empty text removes an override) and ` + "`textTranslations`" + ` by
language (an empty object removes a language). A custom category's slug comes from its name and is
made unique with a numeric suffix; it never changes. In request bodies, null on an optional field
that is not nullable counts as absent. A category that still has services cannot be
deleted (400). Services already on the site are skipped by configure, which is idempotent.`

// compress gzips responses at the fastest level: JSON still shrinks about fourfold, for a
// fraction of the default level's CPU on the listing and export paths, which share the cores
// with consent ingest. banner.js arrives precompressed and passes through.
//
// The answers to public POSTs (the consent receipt, an error) are a few hundred bytes, under
// the wrapper's minimum size, so they would never be compressed: they skip the wrapper and its
// buffering, which every visitor's decision would otherwise pay for nothing.
func compress(h http.Handler) http.Handler {
	gz, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(gzip.BestSpeed))
	if err != nil { // only for an invalid option
		return gzhttp.GzipHandler(h)
	}
	wrapped := gz(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && isPublic(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		wrapped.ServeHTTP(w, r)
	})
}
