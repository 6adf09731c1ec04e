package riverqueue

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
)

// stopping is a River client's logger while Stop runs: River's maintenance services (the
// periodic job enqueuer, the rescuer, the cleaner) report the cancellation of their work by
// the stop at Error ("maintenance.PeriodicJobEnqueuer: Error starting transaction",
// error="context canceled"), which a `serve` stopped within a second or two of its start
// printed as an error although nothing failed. Once Stop began, such a record (level Error or
// above, its error attribute context.Canceled: see canceledError) goes to the log at Debug;
// any other error, and every error before the stop, keeps its level.
type stopping struct {
	slog.Handler
	on *atomic.Bool
}

func (h stopping) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError && h.on.Load() && canceledError(r) {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r = r.Clone()
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h stopping) WithAttrs(as []slog.Attr) slog.Handler {
	return stopping{h.Handler.WithAttrs(as), h.on}
}

func (h stopping) WithGroup(name string) slog.Handler {
	return stopping{h.Handler.WithGroup(name), h.on}
}

// canceledError reports whether r's error attribute is context.Canceled: an error that is
// (or wraps) it, or the text of one (River logs err.Error() as often as err), which is
// "context canceled" or ends in ": context canceled".
func canceledError(r slog.Record) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "error" && a.Key != "err" {
			return true
		}
		switch v := a.Value.Resolve().Any().(type) {
		case error:
			found = errors.Is(v, context.Canceled)
		case string:
			found = v == context.Canceled.Error() || strings.HasSuffix(v, ": "+context.Canceled.Error())
		}
		return false
	})
	return found
}
