package httpapi

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

var consentRecords = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "consentd_consent_records_total", Help: "Consent decisions recorded, by jurisdiction and action.",
}, []string{"jurisdiction", "action"})

// Every jurisdiction and action has a series from the start, at zero.
func init() {
	for _, j := range core.Jurisdictions() {
		for _, a := range consent.ConsentActions() {
			consentRecords.WithLabelValues(j, a)
		}
	}
}

// countedConsents counts the consent records the public endpoint stores.
type countedConsents struct{ PublicBannerUseCases }

func (c countedConsents) RecordConsent(ctx context.Context, projectKey string, in consent.ConsentInput) (*consent.ConsentRecord, error) {
	rec, err := c.PublicBannerUseCases.RecordConsent(ctx, projectKey, in)
	if err == nil {
		consentRecords.WithLabelValues(rec.Jurisdiction, rec.Action).Inc()
	}
	return rec, err
}
