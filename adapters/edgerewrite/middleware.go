package edgerewrite

import (
	"compress/zlib"
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/edge"
)

// Rules give the rule set to apply now: Remote fetches it from consentd; a Go site beside
// consentd's own use cases may give it directly.
type Rules interface {
	// Matcher returns the compiled rule set; an error when there is none yet.
	Matcher(ctx context.Context) (*edge.Matcher, error)
}

// Config configures the middleware.
type Config struct {
	// Rules give the rule set (required).
	Rules Rules
	// CountryHeader and RegionHeader are the trusted request headers carrying the visitor's
	// country and subdivision (CF-IPCountry, CF-Region-Code; as serve's --country-header and
	// --region-header). Locate, when set, locates the visitor instead.
	CountryHeader, RegionHeader string
	Locate                      func(*http.Request) core.Location
	// Log receives what goes wrong (no rule set, an undecodable body); nil: discarded.
	Log *slog.Logger
}

// Outcomes of a page (consentd_edge_pages_total's outcome).
const (
	OutcomeRewritten = "rewritten" // HTML rewritten for a visitor of whom something may be held
	OutcomeUnchanged = "unchanged" // HTML of a visitor of whom nothing is held: passed as it came
	OutcomeNotHTML   = "not_html"  // anything but an HTML page (or a partial, empty or HEAD answer)
	OutcomeNoRules   = "no_rules"  // no rule set to apply: passed as it came, and logged
	OutcomeEncoding  = "encoding"  // a Content-Encoding it cannot decode: passed as it came, and logged
	OutcomeFailed    = "failed"    // the rewrite failed midway (the upstream body broke off)
)

var (
	pagesTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "consentd_edge_pages_total", Help: "Responses through the edge (middleware or consentd proxy), by outcome.",
	}, []string{"outcome"})
	heldTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "consentd_edge_held_total", Help: "Elements the edge held in pages, by element (script, inline_script, iframe, stylesheet, img, hint).",
	}, []string{"element"})
)

func init() {
	for _, o := range []string{OutcomeRewritten, OutcomeUnchanged, OutcomeNotHTML, OutcomeNoRules, OutcomeEncoding, OutcomeFailed} {
		pagesTotal.WithLabelValues(o)
	}
	for _, e := range []string{"script", "inline_script", "iframe", "stylesheet", "img", "hint"} {
		heldTotal.WithLabelValues(e)
	}
}

// Middleware wraps next so that the HTML pages it answers GET requests with hold what the
// rule set holds for each visitor (docs/edge.md). A response that depends on the visitor
// (an HTML page, while the rule set may hold anything) gets Vary: Cookie, Sec-GPC and the
// location headers, and Cache-Control private; one that is rewritten loses its
// Content-Length, ETag and Last-Modified (they described other bytes). Compressed bodies
// (gzip, deflate, br, zstd) are decoded, and the page is sent gzipped when the client
// accepts it, else as it is. Everything else passes untouched: other methods, other content
// types, partial (206) and bodiless answers.
func Middleware(cfg Config, next http.Handler) http.Handler {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		m, err := cfg.Rules.Matcher(r.Context())
		if err != nil {
			pagesTotal.WithLabelValues(OutcomeNoRules).Inc()
			cfg.Log.Warn("edge: no rule set, page passed unchanged", slog.String("path", r.URL.Path), slog.Any("err", err))
			next.ServeHTTP(w, r)
			return
		}
		var loc core.Location
		if cfg.Locate != nil {
			loc = cfg.Locate(r)
		} else {
			loc = core.LocationOf(header(r, cfg.CountryHeader), header(r, cfg.RegionHeader))
		}
		ew := &writer{w: w, r: r, cfg: &cfg, m: m,
			v: m.Visitor(loc, strings.Join(r.Header.Values("Cookie"), "; "), strings.TrimSpace(r.Header.Get("Sec-GPC")) == "1")}
		defer ew.finish()
		next.ServeHTTP(ew, r)
	})
}

func header(r *http.Request, name string) string {
	if name == "" {
		return ""
	}
	return r.Header.Get(name)
}

// writer is the response writer the wrapped handler writes to: it passes everything through
// until the header says an HTML page, whose body it then sends through the rewriter.
type writer struct {
	w   http.ResponseWriter
	r   *http.Request
	cfg *Config
	m   *edge.Matcher
	v   *edge.Visitor
	// decided is set once the status is written; pipe, when rewriting, takes the body.
	decided bool
	pipe    *io.PipeWriter
	done    chan error
}

func (ew *writer) Header() http.Header { return ew.w.Header() }

// Unwrap lets http.ResponseController reach the connection.
func (ew *writer) Unwrap() http.ResponseWriter { return ew.w }

func (ew *writer) WriteHeader(code int) {
	if ew.decided {
		return
	}
	if code >= 100 && code < 200 {
		ew.w.WriteHeader(code)
		return
	}
	ew.decided = true
	h := ew.w.Header()
	if !isHTML(h.Get("Content-Type")) || code < 200 || code == http.StatusNoContent || code == http.StatusPartialContent ||
		code == http.StatusNotModified || h.Get("Content-Range") != "" {
		pagesTotal.WithLabelValues(OutcomeNotHTML).Inc()
		ew.w.WriteHeader(code)
		return
	}
	if ew.m.RuleSet.SiteWide && len(ew.m.RuleSet.Rules) > 0 {
		// What the page is depends on the visitor: no shared cache may hand it to another.
		vary := []string{"Cookie", "Sec-GPC"}
		for _, n := range []string{ew.cfg.CountryHeader, ew.cfg.RegionHeader} {
			if n != "" {
				vary = append(vary, n)
			}
		}
		addVary(h, vary...)
		h.Set("Cache-Control", private(h.Get("Cache-Control")))
	}
	if !ew.v.HoldsAny() {
		pagesTotal.WithLabelValues(OutcomeUnchanged).Inc()
		ew.w.WriteHeader(code)
		return
	}
	decode, ok := decoder(h.Get("Content-Encoding"))
	if !ok {
		pagesTotal.WithLabelValues(OutcomeEncoding).Inc()
		ew.cfg.Log.Warn("edge: page in an encoding it cannot decode passed unchanged", slog.String("path", ew.r.URL.Path),
			slog.String("encoding", h.Get("Content-Encoding")))
		ew.w.WriteHeader(code)
		return
	}
	h.Del("Content-Length")
	h.Del("ETag")
	h.Del("Last-Modified")
	gz := h.Get("Content-Encoding") != "" && acceptsGzip(ew.r.Header.Get("Accept-Encoding"))
	if gz {
		h.Set("Content-Encoding", "gzip")
	} else {
		h.Del("Content-Encoding")
	}
	ew.w.WriteHeader(code)
	pr, pw := io.Pipe()
	ew.pipe, ew.done = pw, make(chan error, 1)
	base := &url.URL{Scheme: "https", Host: ew.r.Host, Path: ew.r.URL.Path, RawPath: ew.r.URL.RawPath, RawQuery: ew.r.URL.RawQuery}
	if ew.r.TLS == nil && !strings.EqualFold(ew.r.Header.Get("X-Forwarded-Proto"), "https") {
		base.Scheme = "http"
	}
	go func() {
		err := ew.rewrite(pr, decode, gz, base)
		pr.CloseWithError(err) // a handler still writing gets the error
		ew.done <- err
	}()
}

// rewrite runs the rewriter from the body's pipe to the client.
func (ew *writer) rewrite(pr io.Reader, decode func(io.Reader) (io.ReadCloser, error), gz bool, base *url.URL) error {
	src, err := decode(pr)
	if err != nil {
		return err
	}
	defer src.Close()
	var dst io.Writer = flushWriter{ew.w}
	var zw *gzip.Writer
	if gz {
		zw, _ = gzip.NewWriterLevel(dst, gzip.BestSpeed)
		dst = gzipFlusher{zw, ew.w}
	}
	if err := Rewrite(dst, src, ew.v, base); err != nil {
		return err
	}
	// The rest of a body the rewriter did not read (after a decoder's end) is drained.
	if _, err := io.Copy(io.Discard, pr); err != nil {
		return err
	}
	if zw != nil {
		return zw.Close()
	}
	return nil
}

func (ew *writer) Write(p []byte) (int, error) {
	if !ew.decided {
		if ew.w.Header().Get("Content-Type") == "" {
			ew.w.Header().Set("Content-Type", http.DetectContentType(p))
		}
		ew.WriteHeader(http.StatusOK)
	}
	if ew.pipe != nil {
		return ew.pipe.Write(p)
	}
	return ew.w.Write(p)
}

// Flush flushes what has gone through; while rewriting, the rewriter flushes whenever it has
// read all that was written.
func (ew *writer) Flush() {
	if !ew.decided {
		ew.WriteHeader(http.StatusOK)
	}
	if ew.pipe == nil {
		if f, ok := ew.w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// finish ends the body and waits for the rewriter.
func (ew *writer) finish() {
	if ew.pipe == nil {
		return
	}
	ew.pipe.Close()
	if err := <-ew.done; err != nil {
		pagesTotal.WithLabelValues(OutcomeFailed).Inc()
		ew.cfg.Log.Warn("edge: rewriting a page failed midway", slog.String("path", ew.r.URL.Path), slog.Any("err", err))
		return
	}
	pagesTotal.WithLabelValues(OutcomeRewritten).Inc()
}

// flushWriter writes to a response writer and flushes it when asked.
type flushWriter struct{ w http.ResponseWriter }

func (f flushWriter) Write(p []byte) (int, error) { return f.w.Write(p) }
func (f flushWriter) Flush() error {
	err := http.NewResponseController(f.w).Flush()
	if errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	return err
}

// gzipFlusher flushes the compressor, then the response.
type gzipFlusher struct {
	*gzip.Writer
	w http.ResponseWriter
}

func (g gzipFlusher) Flush() error {
	if err := g.Writer.Flush(); err != nil {
		return err
	}
	return flushWriter{g.w}.Flush()
}

// isHTML reports whether a Content-Type is an HTML page.
func isHTML(ct string) bool {
	t, _, err := mime.ParseMediaType(ct)
	return err == nil && (t == "text/html" || t == "application/xhtml+xml")
}

// decoder returns the decoder of a Content-Encoding, ok false for one it does not know.
func decoder(ce string) (func(io.Reader) (io.ReadCloser, error), bool) {
	switch strings.ToLower(strings.TrimSpace(ce)) {
	case "", "identity":
		return func(r io.Reader) (io.ReadCloser, error) { return io.NopCloser(r), nil }, true
	case "gzip", "x-gzip":
		return func(r io.Reader) (io.ReadCloser, error) { return gzip.NewReader(r) }, true
	case "deflate":
		return func(r io.Reader) (io.ReadCloser, error) { return zlib.NewReader(r) }, true
	case "br":
		return func(r io.Reader) (io.ReadCloser, error) { return io.NopCloser(brotli.NewReader(r)), nil }, true
	case "zstd":
		return func(r io.Reader) (io.ReadCloser, error) {
			d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
			if err != nil {
				return nil, err
			}
			return d.IOReadCloser(), nil
		}, true
	}
	return nil, false
}

// acceptsGzip reports whether an Accept-Encoding accepts gzip.
func acceptsGzip(ae string) bool {
	for _, part := range strings.Split(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") || strings.TrimSpace(name) == "*" {
			return !strings.Contains(strings.ReplaceAll(params, " ", ""), "q=0") || strings.Contains(params, "q=0.")
		}
	}
	return false
}

// addVary adds names to the Vary header, once each.
func addVary(h http.Header, names ...string) {
	have := map[string]bool{}
	for _, v := range h.Values("Vary") {
		for _, n := range strings.Split(v, ",") {
			have[strings.ToLower(strings.TrimSpace(n))] = true
		}
	}
	if have["*"] {
		return
	}
	for _, n := range names {
		if !have[strings.ToLower(n)] {
			h.Add("Vary", n)
			have[strings.ToLower(n)] = true
		}
	}
}

// private turns a Cache-Control into one no shared cache keeps: public and s-maxage go,
// private comes first; no-store stays as it is.
func private(cc string) string {
	out := []string{"private"}
	for _, d := range strings.Split(cc, ",") {
		d = strings.TrimSpace(d)
		name, _, _ := strings.Cut(strings.ToLower(d), "=")
		switch name {
		case "", "public", "private", "s-maxage", "proxy-revalidate":
			continue
		}
		out = append(out, d)
	}
	return strings.Join(out, ", ")
}
