package httpapi

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
)

// traced gives every request a server span (otelhttp, on the globally registered providers),
// continuing the caller's trace when it sent a traceparent. The span is named after the route
// template ("GET /api/v1/sites/{id}"), never the raw path, so that IDs do not end up in names.
func traced(next http.Handler) http.Handler {
	return otelhttp.NewHandler(next, "http.request",
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			if r.Pattern != "" {
				return r.Pattern
			}
			return r.Method + " unmatched"
		}),
		otelhttp.WithFilter(func(r *http.Request) bool {
			// Probes and scrapes every few seconds would drown the traces that matter.
			return r.URL.Path != "/healthz" && r.URL.Path != "/readyz" && r.URL.Path != "/metrics"
		}))
}
