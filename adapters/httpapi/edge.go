package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/edge"
)

// edgeCache is the rule set's caching: it does not depend on the visitor, so shared caches
// keep it; edges revalidate with its ETag.
const edgeCache = "public, max-age=60, stale-while-revalidate=600"

func (h *handlers) registerEdge(api huma.API) {
	o := publicOp("getEdgeRuleSet", http.MethodGet, core.PublicRoute(core.PublicEdge), "The site's edge rule set", 0)
	o.Description = "What an edge in front of the site (the Go middleware, consentd proxy, a Cloudflare Worker) needs to hold, in the HTML before the browser sees it, exactly what the banner runtime holds for each visitor, so that nothing held is ever fetched (not even by the browser's preload scanner): the blocking rules (built-in and the site's) in order, the hosts never held, one policy per regional rule or jurisdiction (the categories' initial states, those always on, those a GPC signal turns off), which policy applies in each known place and where the location is unknown, the consent cookie's name and encoding, and the held forms the runtime restores. docs/edge.md states how to apply it. The body does not depend on the visitor: public, cached for a minute, with an ETag to revalidate (304 on If-None-Match)."
	o.Responses = map[string]*huma.Response{
		"200": {Description: "The rule set.", Content: map[string]*huma.MediaType{
			"application/json": {Schema: api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(edge.RuleSet{}), true, "EdgeRuleSet")},
		}},
		"304": {Description: "Not modified (If-None-Match matched the ETag)."},
	}
	huma.Register(api, o, func(ctx context.Context, in *struct {
		ProjectKeyPath
		IfNoneMatch string `header:"If-None-Match"`
	}) (*bodyOutput, error) {
		rs, err := h.m.EdgeRuleSet(ctx, in.ProjectKey)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		raw, err := json.Marshal(rs)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return rawBody(raw, "application/json", edgeCache, in.IfNoneMatch, ""), nil
	})
}
