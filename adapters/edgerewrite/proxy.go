package edgerewrite

import (
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var proxyRequests = promauto.NewHistogramVec(prometheus.HistogramOpts{
	Name: "consentd_proxy_request_duration_seconds", Help: "Requests through consentd proxy, by method and status class, with their duration to the last byte.",
	Buckets: prometheus.DefBuckets,
}, []string{"method", "status"})

// Proxy is consentd proxy's handler: a reverse proxy to upstream (its scheme, host and path
// prefix) whose pages go through the Middleware, streamed (each chunk of the upstream's body is
// sent on as soon as it is rewritten), with one access-log line per request.
func Proxy(upstream *url.URL, cfg Config) http.Handler {
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			pr.SetXForwarded()
			// The origin sees the host the visitor asked for, as behind any CDN.
			pr.Out.Host = pr.In.Host
		},
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(logOf(cfg).Handler(), slog.LevelWarn),
	}
	h := Middleware(cfg, rp)
	log := logOf(cfg)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		d := time.Since(start)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		proxyRequests.WithLabelValues(methodLabel(r.Method), statusClass(sw.status)).Observe(d.Seconds())
		log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", sw.status), slog.Duration("duration", d))
	})
}

func logOf(cfg Config) *slog.Logger {
	if cfg.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return cfg.Log
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// methodLabel is a method as a label: one HTTP does not define is OTHER (no unbounded series).
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

func statusClass(s int) string { return string(rune('0'+s/100)) + "xx" }
