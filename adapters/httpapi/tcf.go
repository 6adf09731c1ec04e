package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// The IAB TCF's public side: the __tcfapi stub the loader inlines where the TCF applies
// (tcfStub), the site-independent TCF module (documentTCFModule; served by Config.TCFModule) and
// the site's TCF configuration the module fetches (registerTCF).

// tcfStub is the __tcfapi stub, followed by a statement separator, when the TCF applies to the
// visitor of the site's loader (core.PublicConfig.TCF, decided by core.Banner.TCFApplies); nothing
// otherwise, so that other visitors and sites load exactly the runtime.
func (h *handlers) tcfStub(ctx context.Context, projectKey string, lp LanguageParams) []byte {
	if h.cfg.TCFStub == nil {
		return nil
	}
	prefs, err := lp.prefs()
	if err != nil {
		return nil
	}
	cfg, err := h.m.PublicConfig(ctx, projectKey, locationOf(ctx), prefs...)
	if err != nil || !cfg.TCF {
		return nil
	}
	return append(h.cfg.TCFStub(cfg.Lang), ";\n"...)
}

func (h *handlers) registerTCF(api huma.API) {
	o := publicOp("getPublicTCFConfig", http.MethodGet, core.PublicRoute(core.PublicTCFConfig), "The site's IAB TCF configuration", 0)
	o.Description = "What the TCF module (" + core.PublicRoute(core.PublicTCFModule) + ") needs for the site, in the visitor's language (lang, then Accept-Language, as the banner's configuration chooses it): the deployment's CMP ID and version; the Global Vendor List in use (version, policy version, purposes, special purposes, features, special features, stacks and data categories, translated by the IAB where it translates them) with only the site's vendors; the site's special features, publisher restrictions, publisher country and Google Additional Consent providers; the TCF layers' texts; the banner's colors; and the table from TCF choices to consentd's categories and Google Consent Mode (signals). 404 when the site has TCF off or the server has no Global Vendor List. The body does not depend on the visitor's location; cached for a minute, with an ETag."
	o.Responses = map[string]*huma.Response{
		"200": {Description: "The TCF configuration.", Content: map[string]*huma.MediaType{
			"application/json": {Schema: api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(banner.TCFModuleConfig{}), true, "TCFModuleConfig")},
		}},
		"304": {Description: "Not modified (If-None-Match matched the ETag)."},
	}
	huma.Register(api, o, func(ctx context.Context, in *pageInput) (*bodyOutput, error) {
		prefs, err := in.LanguageParams.prefs()
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		pc, err := h.m.PublicConfig(ctx, in.ProjectKey, core.Location{}, prefs...)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		tc, err := h.m.TCFConfig(ctx, in.ProjectKey, pc.Lang)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		raw, err := json.Marshal(banner.TCFModule(tc, pc))
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return rawBody(raw, "application/json", "public, max-age=60", in.IfNoneMatch, "Accept-Language"), nil
	})
}

// documentTCFModule adds the TCF module, served by a plain handler, to the OpenAPI document.
func documentTCFModule(api huma.API) {
	str := &huma.Schema{Type: huma.TypeString}
	api.OpenAPI().AddOperation(&huma.Operation{
		OperationID: "getTCFModule", Method: http.MethodGet, Path: core.PublicRoute(core.PublicTCFModule),
		Summary: "IAB TCF module script", Tags: []string{"Public"},
		Description: "The IAB TCF module: the CMP API (__tcfapi: ping, addEventListener, removeEventListener, getTCData, getVendorList), the TCF first and second layers, the TC string v2.3 (core, disclosed vendors and publisher TC segments) stored in the euconsent-v2 cookie, and Google's Additional Consent string. " +
			"A site never embeds it: the __tcfapi stub, which the loader inlines where the TCF applies to the visitor, loads it. Site-independent; no API key; any origin. " +
			"With ?v= equal to the current module version the response is cacheable for a year (immutable), otherwise for five minutes; a strong ETag answers If-None-Match with 304; gzip when the client accepts it.",
		Parameters: []*huma.Param{
			{Name: "v", In: "query", Schema: str, Description: "Module version, for the long-cached URL the stub loads."},
			{Name: "If-None-Match", In: "header", Schema: str},
		},
		Responses: map[string]*huma.Response{
			"200": {Description: "The module.", Content: map[string]*huma.MediaType{
				"text/javascript": {Schema: &huma.Schema{Type: huma.TypeString, Description: "JavaScript (UTF-8)."}},
			}},
			"304": {Description: "Not modified (If-None-Match matched the ETag)."},
		},
	})
}

// gppAPI is the __gpp API, followed by a statement separator, when the visitor of the site's
// loader has GPP sections (core.PublicConfig.GPP, decided by core.Banner.GPPFor); nothing
// otherwise, so that other visitors and sites load exactly the runtime.
func (h *handlers) gppAPI(ctx context.Context, projectKey string, lp LanguageParams) []byte {
	if h.cfg.GPPAPI == nil {
		return nil
	}
	prefs, err := lp.prefs()
	if err != nil {
		return nil
	}
	cfg, err := h.m.PublicConfig(ctx, projectKey, locationOf(ctx), prefs...)
	if err != nil || cfg.GPP == nil {
		return nil
	}
	conf, err := json.Marshal(cfg.GPP)
	if err != nil {
		return nil
	}
	return append(h.cfg.GPPAPI(conf), ";\n"...)
}
