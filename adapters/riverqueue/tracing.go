package riverqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// traceContext carries the W3C trace context (traceparent, tracestate) of the request that
// enqueued a job in the job's metadata, so that the job's spans join the request's trace.
var traceContext = propagation.TraceContext{}

// jobMetadata is what a job's metadata holds for us.
type jobMetadata struct {
	Trace propagation.MapCarrier `json:"otel,omitempty"`
}

// insertOpts are the options of a job inserted within ctx: its trace context, if any.
func insertOpts(ctx context.Context) *river.InsertOpts {
	carrier := propagation.MapCarrier{}
	traceContext.Inject(ctx, carrier)
	if len(carrier) == 0 {
		return nil
	}
	md, err := json.Marshal(jobMetadata{Trace: carrier})
	if err != nil {
		return nil
	}
	return &river.InsertOpts{Metadata: md}
}

// jobContext returns ctx with the remote span context of the request that enqueued job.
func jobContext(ctx context.Context, job *rivertype.JobRow) context.Context {
	var md jobMetadata
	if len(job.Metadata) == 0 || json.Unmarshal(job.Metadata, &md) != nil || len(md.Trace) == 0 {
		return ctx
	}
	return traceContext.Extract(ctx, md.Trace)
}

// Span attributes of a job attempt.
const (
	AttrJobID       = attribute.Key("river.job.id")
	AttrJobKind     = attribute.Key("river.job.kind")
	AttrJobAttempt  = attribute.Key("river.job.attempt")
	AttrMaxAttempts = attribute.Key("river.job.max_attempts")
	// AttrOutcome is "ok", "retry" (an error, another attempt follows) or "discarded" (an
	// error on the last attempt).
	AttrOutcome = attribute.Key("river.job.outcome")
	AttrScanID  = attribute.Key("consentd.scan.id")
	AttrSiteID  = attribute.Key("consentd.site.id")
)

// tracing starts one span per job attempt on the globally registered tracer provider (a
// no-op until the process installs one).
type tracing struct {
	river.MiddlewareDefaults
	tracer trace.Tracer
}

var _ rivertype.WorkerMiddleware = (*tracing)(nil)

func (t *tracing) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) (err error) {
	attrs := []attribute.KeyValue{
		AttrJobID.Int64(job.ID), AttrJobKind.String(job.Kind),
		AttrJobAttempt.Int(job.Attempt), AttrMaxAttempts.Int(job.MaxAttempts),
	}
	if job.Kind == KindScan {
		var args ScanArgs
		if json.Unmarshal(job.EncodedArgs, &args) == nil {
			attrs = append(attrs, AttrScanID.String(args.ScanID), AttrSiteID.String(args.SiteID))
		}
	}
	observeStart(job, time.Now())
	// The attempt is a child of the enqueuing request's span: one trace from the API call
	// through the job to the crawled pages, however long the job waited.
	ctx, span := t.tracer.Start(jobContext(ctx, job), "river.work "+job.Kind,
		trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(attrs...))
	defer func() {
		if v := recover(); v != nil {
			span.SetStatus(codes.Error, fmt.Sprint("panic: ", v))
			span.SetAttributes(AttrOutcome.String(outcome(job, true)))
			span.End()
			panic(v)
		}
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.SetAttributes(AttrOutcome.String(outcome(job, err != nil)))
		span.End()
	}()
	return doInner(ctx)
}

func outcome(job *rivertype.JobRow, failed bool) string {
	switch {
	case !failed:
		return "ok"
	case job.Attempt < job.MaxAttempts:
		return "retry"
	default:
		return "discarded"
	}
}
