package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/i18n"
)

// loaderCache lets browsers use a site's loader for a minute, then use it once more while
// they revalidate it in the background: a change to the site reaches visitors within a
// minute or one page view. The runtime inside it is the same code as /public/banner.js.
// (locator.cacheControl puts public or private before it.)
const loaderCache = "max-age=60, stale-while-revalidate=3600"

// locationCaching is what the OpenAPI descriptions of the location-dependent public GETs say
// of shared caches.
const locationCaching = " The body depends on the visitor's location (its jurisdiction, regional rule and policy, and its subdivision), never on the address: its ETag is one per rule and subdivision. With CONSENTD_COUNTRY_HEADER set (and CONSENTD_REGION_HEADER), the response is public and its Vary names those headers besides Accept-Language: a CDN in front, which sets them, keeps one copy per language and place. Without a country header, the location comes from geolocating the client address, which no Vary header can name: the response is then private (browsers cache it, shared caches do not). A request with a verifier's credential (Consentd-Verifier, issued by this server for one verification scan of this site) is a visitor from the place its Consentd-Verifier-Location names (FR, US-CA, unknown) and is answered no-store; without a valid credential those headers change nothing."

// bodyOutput is a response whose body is written as is, with a validator and caching headers.
type bodyOutput struct {
	ETag         string `header:"ETag"`
	CacheControl string `header:"Cache-Control"`
	Vary         string `header:"Vary"`
	Body         func(huma.Context)
}

// rawBody answers body (of contentType) with a strong ETag over it, or 304 when inm matches.
func rawBody(body []byte, contentType, cacheControl, inm, vary string) *bodyOutput {
	sum := sha256.Sum256(body)
	out := &bodyOutput{ETag: `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`, CacheControl: cacheControl, Vary: vary}
	notModified := etagMatch(inm, out.ETag)
	out.Body = func(hc huma.Context) {
		if notModified {
			hc.SetStatus(http.StatusNotModified)
			return
		}
		hc.SetHeader("Content-Type", contentType)
		hc.SetHeader("Content-Length", strconv.Itoa(len(body)))
		hc.SetStatus(http.StatusOK)
		hc.BodyWriter().Write(body) //nolint:errcheck // the client went away
	}
	return out
}

// LanguageParams are the visitor's language preferences, as every public endpoint that
// speaks the visitor's language reads them.
type LanguageParams struct {
	Lang           string `query:"lang" doc:"The visitor's language (BCP 47), chosen by the runtime from the page's lang and the browser's languages; wins over Accept-Language."`
	AcceptLanguage string `header:"Accept-Language" maxLength:"1000"`
}

// prefs are the visitor's languages, best first: the runtime's explicit choice (the lang
// query parameter, which must be a language key), then the Accept-Language header's.
func (p LanguageParams) prefs() ([]string, error) {
	var out []string
	if p.Lang != "" {
		if err := banner.CheckPreferredLanguage("lang", p.Lang); err != nil {
			return nil, err
		}
		out = append(out, p.Lang)
	}
	return append(out, i18n.ParseAcceptLanguage(p.AcceptLanguage)...), nil
}

// pageInput is the input of the public GET endpoints that answer in the visitor's language
// with an ETag: the config, the loader and the declaration in JSON and HTML.
type pageInput struct {
	ProjectKeyPath
	LanguageParams
	IfNoneMatch string `header:"If-None-Match"`
}

// publicConfigJSON is the runtime configuration of a site for the visitor's languages and
// country, as JSON: the body of GET /public/{projectKey}/config, or with firstView what the
// loader inlines (core.FirstViewConfig: the services' details left to the declaration).
func (h *handlers) publicConfigJSON(ctx context.Context, projectKey string, lp LanguageParams, firstView bool) ([]byte, error) {
	prefs, err := lp.prefs()
	if err != nil {
		return nil, err
	}
	cfg, err := h.m.PublicConfig(ctx, projectKey, locationOf(ctx), prefs...)
	if err != nil {
		return nil, err
	}
	if firstView {
		return json.Marshal(cfg.FirstView())
	}
	return json.Marshal(cfg)
}

// compileHint starts the loader: Chromium's (V8's) per-file compile hint, which has every
// function of the script compiled along with it, on the thread that streams it in, instead of
// each one on the main thread when first called. The first view calls most of the runtime's
// functions before the banner is painted: measured on the first view's benchmark site
// (BenchmarkBrowserFirstView), about 2 ms less main-thread time (docs/banner.md). It has to be
// the script's first line; other engines read it as a comment.
const compileHint = "//# allFunctionsCalledOnLoad\n"

func (h *handlers) registerLoader(api huma.API) {
	if h.cfg.RuntimeScript == nil {
		return
	}
	runtime := h.cfg.RuntimeScript
	o := publicOp("getLoader", http.MethodGet, core.PublicRoute(core.PublicLoader), "Banner runtime with the site's configuration", 0)
	o.Description = "What the setup snippet loads, synchronously and first in <head>: the banner runtime with the site's configuration (the body of GET " + core.PublicRoute(core.PublicConfigPath) + ", in the visitor's language) inlined, so that blocking rules hold back matching parser-inserted scripts and iframes from the first page view; of the services it carries their slugs and labels, the rest (descriptions, cookies) coming with GET " + core.PublicRoute(core.PublicDeclaration) + " when the visitor opens the preferences. Cached for a minute with stale-while-revalidate, with an ETag; varies with Accept-Language." + locationCaching
	o.Responses = map[string]*huma.Response{
		"200": {Description: "The loader script.", Content: map[string]*huma.MediaType{
			"text/javascript": {Schema: &huma.Schema{Type: huma.TypeString}},
		}},
		"304": {Description: "Not modified (If-None-Match matched the ETag)."},
	}
	huma.Register(api, o, func(ctx context.Context, in *loaderInput) (*bodyOutput, error) {
		raw, err := h.publicConfigJSON(ctx, in.ProjectKey, in.LanguageParams, true)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		var b bytes.Buffer
		b.Grow(len(raw) + len(runtime) + 32)
		b.WriteString(compileHint)
		b.Write(h.tcfStub(ctx, in.ProjectKey, in.LanguageParams)) // where the TCF applies: the __tcfapi stub first
		b.Write(h.gppAPI(ctx, in.ProjectKey, in.LanguageParams))  // where GPP sections apply: __gpp, after it (it listens to __tcfapi)
		b.WriteString("window.__consentdBoot=")
		b.Write(raw)
		b.WriteString(";\n")
		b.Write(h.experimentScript(ctx, in.ProjectKey, in.LanguageParams)) // where an experiment runs: its variant, laid on the configuration
		b.Write(runtime)
		out := rawBody(b.Bytes(), "text/javascript; charset=utf-8", h.cacheControl(ctx, loaderCache), in.IfNoneMatch, h.loc.vary())
		if bannerjs.AcceptsGzip(in.AcceptEncoding) {
			out = h.loaders.gzipped(out, b.Bytes(), in.IfNoneMatch)
		}
		return out, nil
	})
}

// loaderInput is pageInput with the encodings the client accepts.
type loaderInput struct {
	ProjectKeyPath
	LanguageParams
	IfNoneMatch    string `header:"If-None-Match"`
	AcceptEncoding string `header:"Accept-Encoding" doc:"With gzip, the loader comes compressed at the best level (compressed once per content)."`
}

// gzipCache keeps the loaders' gzipped bodies by their identity ETag: the loader is what every
// page view loads first, so it is compressed once per content at the best level (about 15%
// smaller than the fastest level the rest of the API uses), not on every request.
type gzipCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

// maxGzipCache bounds the cache (a loader per site, language and regional rule); when full it
// starts over.
const maxGzipCache = 1024

// gzipped returns out (for body) as its gzip representation, with its own ETag, compressed
// once per body.
func (c *gzipCache) gzipped(out *bodyOutput, body []byte, inm string) *bodyOutput {
	c.mu.Lock()
	gz, ok := c.m[out.ETag]
	c.mu.Unlock()
	if !ok {
		gz = bannerjs.Gzip(body)
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxGzipCache {
			c.m = map[string][]byte{}
		}
		c.m[out.ETag] = gz
		c.mu.Unlock()
	}
	etag := strings.TrimSuffix(out.ETag, `"`) + `-gz"`
	vary := "Accept-Encoding"
	if out.Vary != "" {
		vary = out.Vary + ", " + vary
	}
	gzOut := &bodyOutput{ETag: etag, CacheControl: out.CacheControl, Vary: vary}
	notModified := etagMatch(inm, etag)
	gzOut.Body = func(hc huma.Context) {
		if notModified {
			hc.SetStatus(http.StatusNotModified)
			return
		}
		hc.SetHeader("Content-Type", "text/javascript; charset=utf-8")
		hc.SetHeader("Content-Encoding", "gzip")
		hc.SetHeader("Content-Length", strconv.Itoa(len(gz)))
		hc.SetStatus(http.StatusOK)
		hc.BodyWriter().Write(gz) //nolint:errcheck // the client went away
	}
	return gzOut
}
