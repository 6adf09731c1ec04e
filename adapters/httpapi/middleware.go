package httpapi

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/time/rate"

	"github.com/consentd/consentd/adapters/internal/trustedproxy"
	"github.com/consentd/consentd/core"
)

var (
	requests = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "consentd_http_requests_total", Help: "HTTP requests by route and status.",
	}, []string{"route", "method", "status"})
	latency = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name: "consentd_http_request_duration_seconds", Help: "HTTP request latency by route.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"route"})
)

func metricsHandler() http.Handler { return promhttp.Handler() }

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// instrument counts requests and measures latency per route pattern (never per raw path, so
// that IDs do not explode the label space), and writes one access-log line per request, with
// the client's address masked (maskAddr) and the trace and span IDs of the request's span.
func instrument(log *slog.Logger, proxies []netip.Prefix, next http.Handler) http.Handler {
	client := clientIP(proxies)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		d := time.Since(start)
		m := seriesFor(route, methodLabel(r.Method), sw.status)
		m.requests.Inc()
		m.latency.Observe(d.Seconds())
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || r.URL.Path == "/metrics" {
			return // probes and scrapes are counted, not logged
		}
		// The record goes to the handler directly, as slog's own wrappers do: Logger.LogAttrs
		// would walk the stack for the caller's PC (a tenth of the line's CPU), which is this
		// function on every line and is not logged.
		if h := log.Handler(); h.Enabled(r.Context(), slog.LevelInfo) {
			rec := slog.NewRecord(start.Add(d), slog.LevelInfo, "request", 0)
			rec.AddAttrs(slog.String("method", r.Method), slog.String("route", route),
				slog.Int("status", sw.status), slog.Duration("duration", d), slog.String("client", maskAddr(client(r))))
			h.Handle(r.Context(), rec) //nolint:errcheck // as Logger.LogAttrs, a failed log write is not the request's
		}
	})
}

// methodLabel is the method as a metric label: a method HTTP does not define counts as
// "OTHER", so that a client inventing methods cannot grow the series (or seriesByKey) without
// bound.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// series are a route's request counter (for one method and status) and latency histogram.
type series struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

type seriesKey struct {
	route, method string
	status        int
}

// seriesByKey keeps the series found by seriesFor: WithLabelValues hashes the labels and takes
// a lock for every request, and strconv.Itoa allocates the status. There are as many keys as
// the counter has series.
var seriesByKey sync.Map // seriesKey -> *series

func seriesFor(route, method string, status int) *series {
	k := seriesKey{route, method, status}
	if m, ok := seriesByKey.Load(k); ok {
		return m.(*series)
	}
	m, _ := seriesByKey.LoadOrStore(k, &series{requests.WithLabelValues(route, method, strconv.Itoa(status)), latency.WithLabelValues(route)})
	return m.(*series)
}

// clientIP returns how to find a request's client: the trusted-proxy rule's (trustedproxy),
// which the API's rate limits and logs and the console's sign-in limit all count clients by.
func clientIP(trusted []netip.Prefix) func(*http.Request) string {
	return trustedproxy.New(trusted).ClientIP
}

// maskAddr shortens a client address for the log: the /24 of an IPv4 address, the /48 of an
// IPv6 one, so that a log line does not identify a visitor.
func maskAddr(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return "unknown"
	}
	a = a.Unmap()
	bits := 48
	if a.Is4() {
		bits = 24
	}
	p, _ := a.Prefix(bits)
	return p.String()
}

// securityHeaders sets on every response what browsers need to keep the API's answers inert:
// no MIME sniffing, no framing of the management API or the docs, no referrer leaving the
// origin. CORS is the public endpoints' business only (public); the management API sends no
// Access-Control-Allow-Origin, so browsers refuse cross-origin reads of it.
func securityHeaders(next http.Handler) http.Handler {
	nosniff, referrer := headerValue("nosniff"), headerValue("strict-origin-when-cross-origin")
	csp, frames := headerValue("frame-ancestors 'none'"), headerValue("DENY")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Content-Type-Options"] = nosniff
		h["Referrer-Policy"] = referrer
		if !isPublic(r.URL.Path) {
			h["Content-Security-Policy"] = csp
			h["X-Frame-Options"] = frames
		}
		next.ServeHTTP(w, r)
	})
}

// headerValue is a header's value made once and shared by every response, set under its
// canonical key as http.Header.Set would, without Set's allocation per response. Its capacity
// is its length, so that an Add appends to a copy, never to the shared array.
func headerValue(v string) []string { return []string{v}[:1:1] }

// isPublic reports whether a request path is under the public endpoints (core.PublicPrefix).
func isPublic(path string) bool {
	return strings.HasPrefix(path, core.PublicPrefix+"/")
}

// public adds CORS for any origin to the public endpoints, answers their preflights, and rate
// limits them per client address.
func (h *handlers) public(next http.Handler) http.Handler {
	lim := newLimiter(h.cfg.PublicRateLimit)
	clientAddr := clientIP(h.cfg.TrustedProxies)
	anyOrigin, exposed := headerValue("*"), headerValue("ETag")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isPublic(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		hd := w.Header()
		hd["Access-Control-Allow-Origin"] = anyOrigin
		hd["Access-Control-Expose-Headers"] = exposed
		if r.Method == http.MethodOptions {
			hd.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			hd.Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
			hd.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if !lim.allow(clientAddr(r)) {
			hd.Set("Retry-After", "1")
			writeError(w, http.StatusTooManyRequests, core.CodeRateLimited, "too many requests from this address; slow down")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limiter is a token bucket per client address; idle buckets are dropped once a minute so
// that memory stays bounded by the number of recently active clients.
type limiter struct {
	rps     rate.Limit
	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(rps float64) *limiter {
	if rps <= 0 {
		return nil
	}
	return &limiter{rps: rate.Limit(rps), buckets: map[string]*bucket{}, swept: time.Now()}
}

func (l *limiter) allow(addr string) bool {
	if l == nil {
		return true
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > time.Minute {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b := l.buckets[addr]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.rps, max(1, int(2*l.rps)))} // a burst of twice the rate
		l.buckets[addr] = b
	}
	b.seen = now
	return b.lim.AllowN(now, 1)
}
