package app

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestLogScrubbing: API keys, storefront passwords, visitor IDs, database passwords and client
// addresses never reach the log in full, whatever attribute or message carries them; the
// service's own requests log through the same logger.
func TestLogScrubbing(t *testing.T) {
	t.Parallel()
	const (
		key      = "cd_abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqr"
		password = "hunter2-storefront-secret"
		visitor  = "visitor-7f3a9c2e-1234-4a5b-8c9d-0123456789ab"
		dbPass   = "s3cret-db-pass"
		client   = "203.0.113.77"
	)
	var buf bytes.Buffer
	log, err := NewLogger(&buf, LogOptions{Format: "json"})
	if err != nil {
		t.Fatal(err)
	}
	log.Info("attrs", slog.String("key", key), slog.String("storefront_password", password),
		slog.String("visitor_id", visitor), slog.String("client_addr", client), slog.String("remote_addr", client+":5555"))
	log.Error("in text", slog.Any("error", errors.New("auth failed for Bearer "+key)),
		slog.String("url", "postgres://consentd:"+dbPass+"@db.internal/consentd"))
	log.With(slog.String("password", password)).Warn("via With")
	log.Info("grouped", slog.Group("req", slog.String("visitorId", visitor)))

	// A real request through the service, with the key in its header and a client address.
	a := serve(t, "sqlite", func(c *Config) { c.Logger = log; c.BootstrapAPIKey = key })
	req, _ := http.NewRequest("GET", a.base+"/sites", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("X-Forwarded-For", client)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = client + ":1234"
	log.InfoContext(context.Background(), "peer", slog.String("client", r.RemoteAddr))

	out := buf.String()
	if !strings.Contains(out, `"msg":"request"`) {
		t.Fatalf("no access-log line:\n%s", out)
	}
	for name, secret := range map[string]string{"API key": key, "storefront password": password, "visitor ID": visitor,
		"database password": dbPass, "client address": client} {
		if strings.Contains(out, secret) {
			t.Errorf("%s in the log:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "cd_abcd") {
		t.Errorf("a key's prefix should stay, to tell keys apart:\n%s", out)
	}
}

func TestLogLevelAndFormat(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log, err := NewLogger(&buf, LogOptions{Level: "warn", Terminal: true})
	if err != nil {
		t.Fatal(err)
	}
	log.Info("hidden")
	log.Warn("shown")
	if out := buf.String(); strings.Contains(out, "hidden") || !strings.Contains(out, "level=WARN msg=shown") {
		t.Fatalf("text at warn: %q", out)
	}
	buf.Reset()
	log, _ = NewLogger(&buf, LogOptions{Level: "debug"})
	log.Debug("d")
	if !strings.HasPrefix(buf.String(), `{"time":`) {
		t.Fatalf("off a terminal the log is JSON: %q", buf.String())
	}
	if _, err := NewLogger(&buf, LogOptions{Level: "loud"}); err == nil || !strings.Contains(err.Error(), "CONSENTD_LOG_LEVEL") {
		t.Fatalf("unknown level: %v", err)
	}
}

// BenchmarkAccessLogLine is the cost of one access-log line (the attributes httpapi's
// instrument logs for every request) through the process's JSON logger.
//
//	go test -run '^$' -bench AccessLogLine -benchmem ./app/
func BenchmarkAccessLogLine(b *testing.B) {
	log, err := NewLogger(io.Discard, LogOptions{Format: "json"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	attrs := func() (slog.Attr, slog.Attr, slog.Attr, slog.Attr, slog.Attr) {
		return slog.String("method", "POST"), slog.String("route", "POST /api/v1/public/{projectKey}/consent"),
			slog.Int("status", 201), slog.Duration("duration", 2*time.Millisecond), slog.String("client", "127.0.0.0/24")
	}
	b.Run("LogAttrs", func(b *testing.B) {
		for b.Loop() {
			a1, a2, a3, a4, a5 := attrs()
			log.LogAttrs(ctx, slog.LevelInfo, "request", a1, a2, a3, a4, a5)
		}
	})
	b.Run("Handler", func(b *testing.B) { // as httpapi's instrument logs: no caller PC
		for b.Loop() {
			if h := log.Handler(); h.Enabled(ctx, slog.LevelInfo) {
				r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
				r.AddAttrs(attrs())
				h.Handle(ctx, r) //nolint:errcheck // io.Discard
			}
		}
	})
}

// TestLogLevelWrittenAsSlog: scrub writes the level as a string, which each handler writes
// exactly as it writes a slog.Level, standard or not.
func TestLogLevelWrittenAsSlog(t *testing.T) {
	t.Parallel()
	noTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	for _, format := range []string{"json", "text"} {
		for _, l := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelError + 2, slog.LevelInfo + 1} {
			var got, want bytes.Buffer
			opts := &slog.HandlerOptions{Level: slog.LevelDebug - 4, ReplaceAttr: noTime}
			ref := slog.Handler(slog.NewJSONHandler(&want, opts))
			if format == "text" {
				ref = slog.NewTextHandler(&want, opts)
			}
			slog.New(ref).Log(context.Background(), l, "m", slog.Int("status", 201))
			log, err := NewLogger(&got, LogOptions{Format: format, Level: "debug"})
			if err != nil {
				t.Fatal(err)
			}
			log.Log(context.Background(), l, "m", slog.Int("status", 201))
			line := got.String()
			if format == "json" {
				line = line[:1] + line[strings.Index(line, `"level"`):]
			} else {
				line = line[strings.Index(line, "level="):]
			}
			if line != want.String() {
				t.Errorf("%s %v: got %q, want %q", format, l, line, want.String())
			}
		}
	}
}
