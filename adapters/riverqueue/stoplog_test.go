package riverqueue

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/core/scan"
)

// TestStoppingQuietsOnlyTheStopsCancellations: before Stop, River's "context canceled" error
// stays an error; after it, that record is logged at Debug (or dropped where Debug is off),
// and every other error keeps its level.
func TestStoppingQuietsOnlyTheStopsCancellations(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var on atomic.Bool
	log := func(level slog.Level) *slog.Logger {
		return slog.New(stopping{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level}), &on})
	}
	lines := func() []string {
		defer buf.Reset()
		return strings.Split(strings.TrimSpace(buf.String()), "\n")
	}
	ctx := context.Background()
	canceled := "maintenance.PeriodicJobEnqueuer: Error starting transaction"
	wrapped := fmt.Errorf("begin: %w", context.Canceled)

	log(slog.LevelDebug).ErrorContext(ctx, canceled, "error", context.Canceled.Error())
	if got := lines(); len(got) != 1 || !strings.Contains(got[0], "level=ERROR") {
		t.Fatalf("before Stop a cancellation is an error: %q", got)
	}

	on.Store(true)
	l := log(slog.LevelDebug).With("service", "maintenance")
	l.ErrorContext(ctx, canceled, "error", context.Canceled.Error())
	l.ErrorContext(ctx, canceled, "err", wrapped)
	l.ErrorContext(ctx, canceled, "error", wrapped.Error())
	l.ErrorContext(ctx, "Error fetching jobs", "error", "context canceled by the driver")
	l.ErrorContext(ctx, "Error inserting jobs", "error", "database is locked")
	l.ErrorContext(ctx, "no error attribute")
	l.ErrorContext(ctx, "deadline", "error", context.DeadlineExceeded)
	want := []string{"level=DEBUG", "level=DEBUG", "level=DEBUG", "level=ERROR", "level=ERROR", "level=ERROR", "level=ERROR"}
	got := lines()
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) || !strings.Contains(got[i], "service=maintenance") {
			t.Errorf("line %d: %q, want %s", i, got[i], want[i])
		}
	}

	log(slog.LevelWarn).ErrorContext(ctx, canceled, "error", context.Canceled.Error())
	log(slog.LevelWarn).ErrorContext(ctx, "Error inserting jobs", "error", "database is locked")
	if got := lines(); len(got) != 1 || !strings.Contains(got[0], "database is locked") {
		t.Errorf("with Debug off the cancellation is dropped, the other error kept: %q", got)
	}
}

// idleScans is a scan worker with nothing to do.
type idleScans struct{}

func (idleScans) RunScan(context.Context, scan.ScanJob, bool) (string, error) { return "", nil }
func (idleScans) FailUnfinished(context.Context, string, string) error        { return nil }
func (idleScans) RescanAll(context.Context) (int, error)                      { return 0, nil }
func (idleScans) RunSchedules(context.Context) (int, error)                   { return 0, nil }

// recorded keeps every record of a level at or above Warn.
type recorded struct {
	mu      sync.Mutex
	records []string
}

func (r *recorded) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorded) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorded) WithGroup(string) slog.Handler            { return r }
func (r *recorded) Handle(_ context.Context, rec slog.Record) error {
	if rec.Level < slog.LevelWarn {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", rec.Level, rec.Message)
	rec.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
	r.mu.Lock()
	r.records = append(r.records, b.String())
	r.mu.Unlock()
	return nil
}

// TestStopRightAfterStartLogsNoError starts and stops the workers on SQLite again and again,
// each time within a moment of the start, when River's maintenance services are still
// beginning their first transactions: no record at Warn or above reaches the log. Without
// the stopping handler, about one stop in three logged "Error starting transaction" with
// "context canceled" (seen with `consentd serve`, stopped 0.3-1.5 s after it started).
func TestStopRightAfterStartLogsNoError(t *testing.T) {
	t.Parallel()
	rec := &recorded{}
	cfg := Config{Workers: 1, PollInterval: 50 * time.Millisecond, RiverLogger: slog.New(rec)}
	for i := range 12 {
		_, q, _ := newStoreAndQueue(t, "sqlite", cfg)
		w, err := q.Workers(idleScans{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Start(testCtx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(i%4) * 15 * time.Millisecond)
		sctx, cancel := context.WithTimeout(testCtx, 10*time.Second)
		err = w.Stop(sctx)
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("stop %d: %v", i, err)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.records) > 0 {
		t.Errorf("River logged on stopping:\n%s", strings.Join(rec.records, "\n"))
	}
}
