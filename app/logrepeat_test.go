package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestRepeatedErrorsLoggedOncePerInterval: 500 identical failures within the interval make
// one line; the next after it carries the count of those left out; another error, and lines
// below warning, are not held back.
func TestRepeatedErrorsLoggedOncePerInterval(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	log := slog.New(newOncePer(slog.NewJSONHandler(&buf, nil), 10*time.Second, func() time.Time { return now }))
	down := errors.New("unavailable: the database is unavailable; retry later: connection refused")
	for range 500 {
		log.Error("request failed", "code", "unavailable", "err", down)
		log.Info("request", "status", 503)
	}
	log.Error("request failed", "code", "internal", "err", errors.New("boom"))
	now = now.Add(11 * time.Second)
	log.With("component", "api").Error("request failed", "code", "unavailable", "err", down)

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if m["level"] != "INFO" {
			lines = append(lines, m)
		}
	}
	if strings.Count(buf.String(), `"msg":"request"`) != 500 {
		t.Error("info lines were held back")
	}
	if len(lines) != 3 {
		t.Fatalf("%d error lines, want 3: %v", len(lines), lines)
	}
	if lines[0]["repeated"] != nil || lines[1]["code"] != "internal" {
		t.Errorf("first lines: %v", lines[:2])
	}
	if lines[2]["repeated"] != float64(499) {
		t.Errorf("the line after the interval: %v, want repeated 499", lines[2])
	}
}
