package bunstore

import (
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/extra/bunotel"
)

// instrument adds bun's OpenTelemetry hook: a span per query (and bun's query metrics) on the
// globally registered providers, which cost next to nothing while none is installed. Queries
// are recorded unformatted, with placeholders, so that no value (a visitor ID, a key hash)
// reaches a trace.
func instrument(db *bun.DB) {
	db.AddQueryHook(bunotel.NewQueryHook(bunotel.WithDBName("consentd"), bunotel.WithFormattedQueries(false)))
}
