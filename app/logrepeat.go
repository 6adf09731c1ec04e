package app

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// repeatInterval is how often one kind of warning or error is logged at most.
const repeatInterval = 10 * time.Second

// oncePer logs a warning or error once per interval per kind (level, message, the err and
// code attributes): during a database outage every request fails alike, and one line per
// failed request would bury everything else. The first of a kind is logged at once; the
// repeats within the interval are counted, and the next line of that kind after it carries
// their number ("repeated"). Lines below warning pass as they are.
type oncePer struct {
	slog.Handler
	s *repeats
}

type repeats struct {
	every time.Duration
	now   func() time.Time
	mu    sync.Mutex
	seen  map[string]*repeat
}

type repeat struct {
	last       time.Time
	suppressed int
}

func newOncePer(h slog.Handler, every time.Duration, now func() time.Time) oncePer {
	return oncePer{Handler: h, s: &repeats{every: every, now: now, seen: map[string]*repeat{}}}
}

func (h oncePer) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.Handler.Handle(ctx, r)
	}
	key := r.Level.String() + "\x00" + r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" || a.Key == "error" || a.Key == "code" {
			key += "\x00" + a.Key + "=" + a.Value.String()
		}
		return true
	})
	n, ok := h.s.take(key)
	if !ok {
		return nil
	}
	if n > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("repeated", n))
	}
	return h.Handler.Handle(ctx, r)
}

// take reports whether a line of kind key is logged now, and how many were left out since the
// last one logged.
func (s *repeats) take(key string) (int, bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.seen[key]
	if e != nil && now.Sub(e.last) < s.every {
		e.suppressed++
		return 0, false
	}
	if e == nil {
		if len(s.seen) >= 10000 { // bounded: the kinds seen lately
			for k, x := range s.seen {
				if now.Sub(x.last) >= s.every {
					delete(s.seen, k)
				}
			}
		}
		e = &repeat{}
		s.seen[key] = e
	}
	n := e.suppressed
	e.last, e.suppressed = now, 0
	return n, true
}

func (h oncePer) WithAttrs(as []slog.Attr) slog.Handler {
	return oncePer{Handler: h.Handler.WithAttrs(as), s: h.s}
}

func (h oncePer) WithGroup(name string) slog.Handler {
	return oncePer{Handler: h.Handler.WithGroup(name), s: h.s}
}
