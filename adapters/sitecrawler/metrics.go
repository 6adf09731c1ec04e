package sitecrawler

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/consentd/consentd/crawler"
)

var (
	pagesCrawled = promauto.NewCounter(prometheus.CounterOpts{
		Name: "consentd_crawler_pages_total", Help: "Pages fetched by scans.",
	})
	bytesCrawled = promauto.NewCounter(prometheus.CounterOpts{
		Name: "consentd_crawler_bytes_total", Help: "Bytes of the pages fetched by scans (up to the per-page limit).",
	})
	matches = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "consentd_crawler_matches_total", Help: "What scans found: library services detected, unrecognized third-party scripts.",
	}, []string{"kind"})
)

// The kinds have series from the start, at zero.
func init() {
	matches.WithLabelValues("service")
	matches.WithLabelValues("unrecognized")
}

// observe counts what one crawl saw.
func observe(res *crawler.Result) {
	var n int64
	for _, p := range res.Pages {
		n += p.Bytes
	}
	pagesCrawled.Add(float64(len(res.Pages)))
	bytesCrawled.Add(float64(n))
	matches.WithLabelValues("service").Add(float64(len(res.Services)))
	matches.WithLabelValues("unrecognized").Add(float64(len(res.Unrecognized)))
}
