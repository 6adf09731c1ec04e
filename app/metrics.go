package app

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// registerCollectors adds the app's scrape-time gauges to /metrics: the queue's depth and the
// store's connection pool. A process holds one App; should another be built (tests), its
// collectors replace the previous ones.
func (a *App) registerCollectors() {
	a.collectors = []prometheus.Collector{
		a.queue.Collector(),
		collectors.NewDBStatsCollector(a.store.DB().DB, "consentd"),
	}
	for _, c := range a.collectors {
		if err := prometheus.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				prometheus.Unregister(are.ExistingCollector)
				prometheus.MustRegister(c)
			}
		}
	}
}

func (a *App) unregisterCollectors() {
	for _, c := range a.collectors {
		prometheus.Unregister(c)
	}
}
