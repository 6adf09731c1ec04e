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

// documentRuntime adds the banner runtime, which is served by a plain handler rather than a
// huma operation, to the OpenAPI document, so that every path of the API is described there.
func documentRuntime(api huma.API) {
	str := &huma.Schema{Type: huma.TypeString}
	api.OpenAPI().AddOperation(&huma.Operation{
		OperationID: "getBannerRuntime", Method: http.MethodGet, Path: core.PublicRoute(core.PublicRuntime),
		Summary: "Banner runtime script", Tags: []string{"Public"},
		Description: "The script a site embeds to show its banner and hold back trackers until consent. " +
			"No API key; any origin. With ?v= equal to the current runtime version the response is cacheable " +
			"for a year (immutable), otherwise for five minutes; a strong ETag answers If-None-Match with 304; " +
			"gzip when the client accepts it.",
		Parameters: []*huma.Param{
			{Name: "v", In: "query", Schema: str, Description: "Runtime version, for the long-cached URL of the setup snippet."},
			{Name: "If-None-Match", In: "header", Schema: str},
		},
		Responses: map[string]*huma.Response{
			"200": {Description: "The runtime.", Content: map[string]*huma.MediaType{
				"text/javascript": {Schema: &huma.Schema{Type: huma.TypeString, Description: "JavaScript (UTF-8)."}},
			}},
			"304": {Description: "Not modified (If-None-Match matched the ETag)."},
		},
	})
}
