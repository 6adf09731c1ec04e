package riverqueue

import (
	"context"
	"encoding/json"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
)

var (
	scansFinished = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "consentd_scans_total", Help: "Scan job attempts that ended, by scan mode and the scan's status after them.",
	}, []string{"mode", "status"})
	scanDuration = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name: "consentd_scan_duration_seconds", Help: "Time one scan job attempt took, by scan mode and status after it.",
		Buckets: []float64{.1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
	}, []string{"mode", "status"})
	jobLatency = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name: "consentd_job_latency_seconds", Help: "Time from when a job was due to when a worker started it, by job kind.",
		Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
	}, []string{"kind"})
)

// Every known label value has a series from the start, at zero, so that dashboards and
// alerts (rate(consentd_scans_total{status="failed"}[5m])) work before the first scan.
func init() {
	for _, mode := range core.ScanModes() {
		for _, status := range []string{scan.ScanCompleted, scan.ScanFailed, scan.ScanPending, "error"} {
			scansFinished.WithLabelValues(mode, status)
			scanDuration.WithLabelValues(mode, status)
		}
	}
	for _, kind := range JobKinds() {
		jobLatency.WithLabelValues(kind)
	}
}

// JobKinds returns the kinds of the jobs consentd queues.
func JobKinds() []string {
	return []string{KindScan, KindRescan, KindSweep, KindConsentRetention, KindWebhookDelivery, KindConsentDispatch}
}

// scanMode is the mode a scan job asked for; jobs queued before modes existed run static.
func scanMode(encodedArgs []byte) string {
	var a struct {
		Mode string `json:"mode"`
	}
	if json.Unmarshal(encodedArgs, &a) != nil || a.Mode == "" {
		return "static"
	}
	return a.Mode
}

// observeScan records a scan attempt that ended with the scan in status ("" when the attempt
// could not record one: counted as "error").
func observeScan(job *rivertype.JobRow, status string, took time.Duration) {
	if status == "" {
		status = "error"
	}
	mode := scanMode(job.EncodedArgs)
	scansFinished.WithLabelValues(mode, status).Inc()
	scanDuration.WithLabelValues(mode, status).Observe(took.Seconds())
}

// observeStart records how long a job waited past its due time.
func observeStart(job *rivertype.JobRow, now time.Time) {
	jobLatency.WithLabelValues(job.Kind).Observe(max(now.Sub(job.ScheduledAt), 0).Seconds())
}

// queueDepth reports, at each scrape, how many jobs wait or run in each state.
type queueDepth struct {
	exec riverdriver.Executor
	desc *prometheus.Desc
}

// Collector returns the queue's depth gauges, consentd_queue_jobs{state}, read from River's
// table at scrape time, so that every process reports the shared queue.
func (q *Queue) Collector() prometheus.Collector {
	return &queueDepth{exec: q.exec, desc: prometheus.NewDesc("consentd_queue_jobs",
		"Jobs in the queue by state (available: waiting for a worker; running; retryable; scheduled).", []string{"state"}, nil)}
}

func (d *queueDepth) Describe(ch chan<- *prometheus.Desc) { ch <- d.desc }

func (d *queueDepth) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, s := range []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStateRunning, rivertype.JobStateRetryable, rivertype.JobStateScheduled} {
		n, err := d.exec.JobCountByState(ctx, &riverdriver.JobCountByStateParams{State: s})
		if err != nil {
			ch <- prometheus.NewInvalidMetric(d.desc, err)
			return
		}
		ch <- prometheus.MustNewConstMetric(d.desc, prometheus.GaugeValue, float64(n), string(s))
	}
}
