package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// LogOptions choose the log's format and level.
type LogOptions struct {
	// Level is debug, info, warn or error (empty: info).
	Level string
	// Format is json, text or auto (empty: auto): text on a terminal, JSON otherwise.
	Format string
	// Terminal says whether the output is a terminal, for Format auto.
	Terminal bool
	// Flush, when the output is buffered (LogBuffer), writes what waits: called after each
	// record at warn or above, so that what an operator must see is written at once.
	Flush func() error
}

// NewLogger returns the process's logger on w: JSON or text, at the level asked, with the trace
// and span IDs of the record's context on each line, secrets scrubbed (scrub), and a warning or
// error repeated within 10 s logged once, with the count of its repeats (oncePer). An unknown
// level or format is an error naming the setting.
func NewLogger(w io.Writer, o LogOptions) (*slog.Logger, error) {
	var level slog.Level
	if o.Level == "" {
		o.Level = "info"
	}
	if err := level.UnmarshalText([]byte(o.Level)); err != nil {
		return nil, fmt.Errorf("log-level (CONSENTD_LOG_LEVEL) %q: expected debug, info, warn or error", o.Level)
	}
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: scrub}
	var h slog.Handler
	switch o.Format {
	case "json":
		h = slog.NewJSONHandler(w, opts)
	case "text":
		h = slog.NewTextHandler(w, opts)
	case "", "auto":
		if o.Terminal {
			h = slog.NewTextHandler(w, opts)
		} else {
			h = slog.NewJSONHandler(w, opts)
		}
	default:
		return nil, fmt.Errorf("log-format (CONSENTD_LOG_FORMAT) %q: expected auto, json or text", o.Format)
	}
	h = newOncePer(h, repeatInterval, time.Now)
	if o.Flush != nil {
		h = flushing{h, o.Flush}
	}
	return slog.New(traceIDs{h}), nil
}

// flushing writes a buffered log's waiting lines after each record at warn or above.
type flushing struct {
	slog.Handler
	flush func() error
}

func (h flushing) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h flushing) WithAttrs(as []slog.Attr) slog.Handler {
	return flushing{h.Handler.WithAttrs(as), h.flush}
}
func (h flushing) WithGroup(name string) slog.Handler {
	return flushing{h.Handler.WithGroup(name), h.flush}
}

// traceIDs adds trace_id and span_id to records logged within a sampled span, so that a log
// line leads to its trace.
type traceIDs struct{ slog.Handler }

func (h traceIDs) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceIDs) WithAttrs(as []slog.Attr) slog.Handler { return traceIDs{h.Handler.WithAttrs(as)} }
func (h traceIDs) WithGroup(name string) slog.Handler    { return traceIDs{h.Handler.WithGroup(name)} }

// secretKeys are attribute names whose values are never logged in full.
var secretKeys = map[string]bool{
	"key": true, "api_key": true, "apikey": true, "authorization": true, "password": true,
	"storefront_password": true, "storefrontpassword": true, "bootstrap_api_key": true,
	"visitor": true, "visitor_id": true, "visitorid": true, "client": true, "client_addr": true,
	"remote_addr": true, "ip": true, "addr_client": true,
}

// apiKeyText finds API keys inside any logged text (an error message quoting a header, say).
var apiKeyText = regexp.MustCompile(`cd_[A-Za-z0-9_-]{8,}`)

// passwordURL finds the password of a URL's user info (a database URL in an error message).
var passwordURL = regexp.MustCompile(`(://[^:/@\s]+:)[^@\s]+@`)

// scrub keeps secrets out of the log: values of secret attributes are cut to a short prefix,
// API keys and URL passwords inside any string are masked. The access log's client is already
// a network (maskAddr), which scrub leaves as it is.
func scrub(groups []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() != slog.KindString && a.Value.Kind() != slog.KindAny {
		return a
	}
	if len(groups) == 0 && a.Key == slog.LevelKey {
		if l, ok := a.Value.Any().(slog.Level); ok {
			// The record's own level, on every line, holds no secret. Value.String would
			// format it with fmt, and the JSON handler would write it through encoding/json
			// (Level.MarshalJSON), about a fifth of the access log's CPU; as a string it is
			// written the same ("INFO", "WARN+2"), by both handlers.
			return slog.String(slog.LevelKey, l.String())
		}
	}
	s := a.Value.String()
	if secretKeys[strings.ToLower(a.Key)] {
		if a.Key == "client" && strings.Contains(s, "/") {
			return a
		}
		return slog.String(a.Key, redact(s))
	}
	if strings.Contains(s, "cd_") || strings.Contains(s, "@") {
		masked := passwordURL.ReplaceAllString(apiKeyText.ReplaceAllStringFunc(s, redact), "${1}***@")
		if masked != s {
			return slog.String(a.Key, masked)
		}
	}
	return a
}

// redact keeps the first few characters of a secret, enough to tell two apart.
func redact(s string) string {
	n := min(len(s)/4, 6)
	if strings.HasPrefix(s, "cd_") {
		n = min(len(s), 7)
	}
	return s[:n] + "…"
}
