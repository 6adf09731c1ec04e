package httpapi

import (
	"net/http"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
)

// routeMux is a ServeMux that remembers its patterns, so that a test can compare what is
// served with what the OpenAPI document describes.
type routeMux struct {
	*http.ServeMux
	mu       sync.Mutex
	patterns []string
}

func (m *routeMux) record(pattern string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.patterns = append(m.patterns, pattern)
}

func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.record(pattern)
	m.ServeMux.Handle(pattern, h)
}

func (m *routeMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.record(pattern)
	m.ServeMux.HandleFunc(pattern, h)
}

func (m *routeMux) routes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.patterns...)
}

// documentRuntime adds the banner runtime and its lazily loaded part, which are served by a
// plain handler rather than huma operations, to the OpenAPI document, so that every path of the
// API is described there.
func documentRuntime(api huma.API) {
	str := &huma.Schema{Type: huma.TypeString}
	caching := "No API key; any origin. With ?v= equal to the current version the response is cacheable " +
		"for a year (immutable), otherwise for five minutes; a strong ETag answers If-None-Match with 304; " +
		"gzip when the client accepts it."
	for _, op := range []struct{ id, resource, summary, description, v string }{
		{"getBannerRuntime", core.PublicRuntime, "Banner runtime script",
			"The script a site embeds to show its banner and hold back trackers until consent. ",
			"Runtime version, for the long-cached URL of the setup snippet."},
		{"getBannerRuntimeMore", core.PublicRuntimeMore, "Banner runtime: the part loaded when needed",
			"What the runtime's first view does not need: the preferences dialog, the cookie declaration and the visitor's choice, " +
				"the blocked iframe's placeholder and the reopen button, with their styles. The runtime loads it (naming its version) " +
				"when one of them is needed, or once the browser is idle after showing the banner; it is site-independent. ",
			"Version of the part, which the runtime names."},
	} {
		api.OpenAPI().AddOperation(&huma.Operation{
			OperationID: op.id, Method: http.MethodGet, Path: core.PublicRoute(op.resource),
			Summary: op.summary, Tags: []string{"Public"}, Description: op.description + caching,
			Parameters: []*huma.Param{
				{Name: "v", In: "query", Schema: str, Description: op.v},
				{Name: "If-None-Match", In: "header", Schema: str},
			},
			Responses: map[string]*huma.Response{
				"200": {Description: "The script.", Content: map[string]*huma.MediaType{
					"text/javascript": {Schema: &huma.Schema{Type: huma.TypeString, Description: "JavaScript (UTF-8)."}},
				}},
				"304": {Description: "Not modified (If-None-Match matched the ETag)."},
			},
		})
	}
}
