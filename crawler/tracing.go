package crawler

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracer is the globally registered provider's (a no-op until the process installs one, so a
// page costs one cheap call when tracing is off).
var tracer = otel.Tracer("consentd/crawler")

// startPage starts the span of one crawled page, a child of the scan's context (the job's span
// when the scan runs as a job).
func startPage(ctx context.Context, t task) trace.Span {
	_, span := tracer.Start(ctx, "crawler.page", trace.WithSpanKind(trace.SpanKindClient))
	if span.IsRecording() {
		span.SetAttributes(attribute.String("url.full", t.url), attribute.Int("crawler.depth", t.depth))
	}
	return span
}

// endPage ends a page's span with what the page gave.
func endPage(span trace.Span, r visitResult, status int, bytes int64) {
	if span.IsRecording() {
		if status > 0 {
			span.SetAttributes(attribute.Int("http.response.status_code", status), attribute.Int64("crawler.page.bytes", bytes))
		}
		if r.err != nil {
			span.SetStatus(codes.Error, r.err.Error())
		}
	}
	span.End()
}
