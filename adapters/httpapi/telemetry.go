package httpapi

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
)

// The global providers as they are before anything installs one: spans and metrics made
// through them go nowhere.
var (
	defaultTracers = otel.GetTracerProvider()
	defaultMeters  = otel.GetMeterProvider()
)

// traced gives every request a server span (otelhttp, on the globally registered providers),
// continuing the caller's trace when it sent a traceparent. The span is named after the route
// template ("GET /api/v1/sites/{id}"), never the raw path, so that IDs do not end up in names.
//
// While no tracer or meter provider is installed (no exporter configured) and the request
// carries no trace context, otelhttp would build a span, wrap the body and the writer and
// compute metric attributes for nothing: about a tenth of the CPU of a public consent POST.
// Such requests skip it. With a traceparent they still go through it, so that the access log
// carries the caller's trace ID either way.
func traced(next http.Handler) http.Handler {
	t := otelhttp.NewHandler(next, "http.request",
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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if otel.GetTracerProvider() == defaultTracers && otel.GetMeterProvider() == defaultMeters &&
			r.Header.Get("Traceparent") == "" {
			next.ServeHTTP(w, r)
			return
		}
		t.ServeHTTP(w, r)
	})
}
