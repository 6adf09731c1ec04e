package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/adapters/internal/response"
	"github.com/consentd/consentd/core"
)

func (h *handlers) registerSnippet(api huma.API) {
	o := op("getSetupSnippet", http.MethodGet, "/sites/{id}/setup-snippet", "Integration snippet", "Setup", 0)
	o.Description = "Ready-to-paste integration code that loads the banner runtime with the site's projectKey before any other script. The base URL is CONSENTD_PUBLIC_URL, or the request's own when unset. " +
		"The tag alone holds tags from running; only an edge in front of the site holds them from being fetched (the browser's preload scanner, resource hints, stylesheets, <noscript> pixels: docs/edge.md). " +
		"framework=cloudflare-worker (an addition to the contract's script, react and next, #43) gives such an edge: a Cloudflare Worker script (an ES module using HTMLRewriter) that fetches the site's rule set (GET " + core.PublicRoute(core.PublicEdge) + ", cached for a minute and revalidated with its ETag) and holds in the HTML what the visitor has not allowed; its instructions carry the tag the pages still need."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		Framework string `query:"framework" enum:"script,react,next,cloudflare-worker" default:"script"`
	}) (*struct{ Body response.Snippet }, error) {
		site, err := h.m.Site(ctx, orgOf(ctx), in.ID)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body response.Snippet }{h.cfg.snippets().For(baseURLOf(ctx), in.Framework, site.ProjectKey)}, nil
	})
}

// snippets writes the setup snippets of this deployment, as the console does (the same
// response.Snippets, built from the same settings by app).
func (c Config) snippets() response.Snippets {
	return response.Snippets{PublicURL: c.PublicURL, Loader: c.RuntimeScript != nil, RuntimeVersion: c.RuntimeVersion}
}
