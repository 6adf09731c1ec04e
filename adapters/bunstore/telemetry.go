package bunstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/extra/bunotel"
)

var storeErrors = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "consentd_store_errors_total",
	Help: "Database queries that failed, by operation (SELECT, INSERT, ...); a missing row is no error.",
}, []string{"operation"})

// The operations a store runs have series from the start, at zero.
func init() {
	for _, op := range []string{"SELECT", "INSERT", "UPDATE", "DELETE"} {
		storeErrors.WithLabelValues(op)
	}
}

// instrument adds bun's OpenTelemetry hook: a span per query (and bun's query metrics) on the
// globally registered providers, which cost next to nothing while none is installed. Queries
// are recorded unformatted, with placeholders, so that no value (a visitor ID, a key hash)
// reaches a trace. It also counts failed queries for /metrics.
func instrument(db *bun.DB) *bun.DB {
	return db.WithQueryHook(bunotel.NewQueryHook(bunotel.WithDBName("consentd"), bunotel.WithFormattedQueries(false))).
		WithQueryHook(errorCounter{})
}

// errorCounter counts failed queries.
type errorCounter struct{}

func (errorCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (errorCounter) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if e.Err != nil && !errors.Is(e.Err, sql.ErrNoRows) {
		storeErrors.WithLabelValues(e.Operation()).Inc()
	}
}
