package app

import (
	"io"
	"sync"
	"time"
)

// LogBuffer gathers the log's lines and writes them together, every interval or when 64 KiB
// wait, instead of one write call per line: under load the access log's line per request was
// a write system call per request, a tenth of a consent post's cost
// (BenchmarkLogBuffer, docs/operations.md "Logs"). A line is written whole or not at all; a
// failed write loses what was waiting (the log never grows without bound behind a writer that
// fails) and the next write tries again, so the log comes back when, say, a full disk has room.
// What waits when the process is killed outright (at most one interval's lines) is lost;
// Close writes the rest on the way out, and the logger flushes at once after a warning or an
// error (LogOptions.Flush).
type LogBuffer struct {
	mu   sync.Mutex
	w    io.Writer
	buf  []byte
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// logBufferMax is how much waits before a write is made without waiting for the interval.
const logBufferMax = 64 << 10

// NewLogBuffer writes to w every interval what was logged since.
func NewLogBuffer(w io.Writer, interval time.Duration) *LogBuffer {
	b := &LogBuffer{w: w, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				_ = b.Flush()
			case <-b.stop:
				return
			}
		}
	}()
	return b
}

// Write keeps p (one record's line, as slog's handlers write them) for the next write.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var err error
	if len(b.buf)+len(p) > logBufferMax {
		err = b.flushLocked()
	}
	b.buf = append(b.buf, p...)
	return len(p), err
}

// Flush writes what waits.
func (b *LogBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *LogBuffer) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	if cap(b.buf) > 4*logBufferMax {
		b.buf = nil
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// Close stops the interval's writes and writes what waits; the buffer still takes lines after
// it, written by the next Flush.
func (b *LogBuffer) Close() error {
	b.once.Do(func() { close(b.stop); <-b.done })
	return b.Flush()
}
