package app

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
)

// TestOneTraceFromRequestToCrawledPages: the scan trigger's HTTP span, the job attempt that
// works the scan and the crawler's page spans are one trace, each the child of the one before;
// spans are named after route templates, never raw IDs, and database queries have spans too.
// It installs a global tracer provider, so it does not run in parallel.
func TestOneTraceFromRequestToCrawledPages(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	if _, err := StartTelemetry(context.Background(), Telemetry{}); err != nil {
		t.Fatal(err)
	}

	r := serve(t, "sqlite", nil)
	target := targetSite(t)
	site := r.createSite(t, target.URL+"/")
	var s scan.Scan
	r.call(t, "POST", "/sites/"+site.ID+"/scan", nil, &s)
	if got := r.waitScan(t, site.ID, s.ID, 30*time.Second); got.Status != scan.ScanCompleted {
		t.Fatalf("scan %s", got.Status)
	}
	spans := exp.GetSpans()
	var trigger, job *tracetest.SpanStub
	byID := map[trace.SpanID]*tracetest.SpanStub{}
	for i := range spans {
		sp := &spans[i]
		byID[sp.SpanContext.SpanID()] = sp
		if strings.Contains(sp.Name, site.ID) || strings.Contains(sp.Name, s.ID) {
			t.Errorf("span name with a raw ID: %q", sp.Name)
		}
		switch sp.Name {
		case "POST /api/v1/sites/{id}/scan":
			trigger = sp
		case "river.work scan":
			job = sp
		}
	}
	if trigger == nil || job == nil {
		t.Fatalf("no trigger or job span among %d: %v", len(spans), names(spans))
	}
	if job.SpanContext.TraceID() != trigger.SpanContext.TraceID() || !isDescendant(job, trigger, byID) {
		t.Fatalf("job span %v is not in the trigger's trace %v", job.Parent, trigger.SpanContext)
	}
	pages, queries := 0, 0
	for i := range spans {
		sp := &spans[i]
		if sp.Name == "crawler.page" && sp.Parent.SpanID() == job.SpanContext.SpanID() {
			pages++
		}
		if sp.SpanContext.TraceID() == trigger.SpanContext.TraceID() && sp.InstrumentationScope.Name == "github.com/uptrace/bun" {
			queries++
		}
	}
	if pages < 2 { // the homepage and its broken link
		t.Errorf("%d crawled-page spans under the job span, want 2: %v", pages, names(spans))
	}
	if queries == 0 {
		t.Errorf("no database query spans in the trace: %v", names(spans))
	}
}

func isDescendant(sp, ancestor *tracetest.SpanStub, byID map[trace.SpanID]*tracetest.SpanStub) bool {
	for p := sp.Parent; p.IsValid(); {
		if p.SpanID() == ancestor.SpanContext.SpanID() {
			return true
		}
		parent := byID[p.SpanID()]
		if parent == nil {
			return false
		}
		p = parent.Parent
	}
	return false
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name+" ("+s.InstrumentationScope.Name+")")
	}
	return out
}

// TestOTLPExport: with the standard OTEL_ variables pointing at a local receiver, spans and
// metrics arrive there over OTLP/HTTP.
func TestOTLPExport(t *testing.T) {
	var mu sync.Mutex
	got := map[string]int{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		if len(b) > 0 {
			got[r.URL.Path]++
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer recv.Close()
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
		"OTEL_METRIC_EXPORT_INTERVAL": "200", "OTEL_BSP_SCHEDULE_DELAY": "100",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	tel := TelemetryFromEnv(func(k string) string { return env[k] }, "test")
	if !tel.Traces || !tel.Metrics {
		t.Fatalf("an OTLP endpoint turns both signals on: %+v", tel)
	}
	if off := TelemetryFromEnv(func(string) string { return "" }, "test"); off.Traces || off.Metrics {
		t.Fatalf("nothing is exported without configuration: %+v", off)
	}
	prevT, prevM := otel.GetTracerProvider(), otel.GetMeterProvider()
	t.Cleanup(func() { otel.SetTracerProvider(prevT); otel.SetMeterProvider(prevM) })
	shutdown, err := StartTelemetry(context.Background(), tel)
	if err != nil {
		t.Fatal(err)
	}
	r := serve(t, "sqlite", nil)
	var sites []core.Site
	r.call(t, "GET", "/sites", nil, &sites)
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		ok := got["/v1/traces"] > 0 && got["/v1/metrics"] > 0
		mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10s the receiver has %v, want /v1/traces and /v1/metrics", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}
