package app

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/contrib/bridges/prometheus"
	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Telemetry says which OpenTelemetry signals to export. The exporters themselves are
// configured by the standard OTEL_* variables, which the OpenTelemetry SDK reads (autoexport):
// endpoint, protocol, headers, sampling, resource attributes.
type Telemetry struct {
	// Traces and Metrics export spans and metrics over OTLP (or what OTEL_TRACES_EXPORTER and
	// OTEL_METRICS_EXPORTER name). Metrics exported are those of /metrics, bridged from the
	// Prometheus registry, so that both paths show the same families.
	Traces, Metrics bool
	Version         string
}

// TelemetryFromEnv decides what to export from the standard variables, read through getenv:
// a signal is exported when its exporter is named (and not "none") or an OTLP endpoint is
// set for it. Nothing is exported otherwise, so that a plain start sends nothing anywhere.
func TelemetryFromEnv(getenv func(string) string, version string) Telemetry {
	on := func(exporterVar, endpointVar string) bool {
		if e := getenv(exporterVar); e != "" {
			return e != "none"
		}
		return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv(endpointVar) != ""
	}
	return Telemetry{
		Traces:  on("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
		Metrics: on("OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"),
		Version: version,
	}
}

// StartTelemetry installs the global W3C trace-context propagator and, as t says, tracer and
// meter providers exporting over OTLP. The returned function flushes and stops them.
func StartTelemetry(ctx context.Context, t Telemetry) (shutdown func(context.Context) error, err error) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	var stops []func(context.Context) error
	shutdown = func(ctx context.Context) error {
		var errs []error
		for _, stop := range stops {
			errs = append(errs, stop(ctx))
		}
		return errors.Join(errs...)
	}
	if !t.Traces && !t.Metrics {
		return shutdown, nil
	}
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", "consentd"), attribute.String("service.version", t.Version)))
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	if t.Traces {
		exp, err := autoexport.NewSpanExporter(ctx)
		if err != nil {
			return nil, fmt.Errorf("trace exporter (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_*): %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		otel.SetTracerProvider(tp)
		stops = append(stops, tp.Shutdown)
	}
	if t.Metrics {
		autoexport.WithFallbackMetricProducer(func(context.Context) (sdkmetric.Producer, error) {
			return prometheus.NewMetricProducer(), nil
		})
		reader, err := autoexport.NewMetricReader(ctx)
		if err != nil {
			shutdown(ctx) //nolint:errcheck // the reader's error is the one to report
			return nil, fmt.Errorf("metric exporter (OTEL_METRICS_EXPORTER, OTEL_EXPORTER_OTLP_*): %w", err)
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res))
		otel.SetMeterProvider(mp)
		stops = append(stops, mp.Shutdown)
	}
	return shutdown, nil
}
