package app

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a writer tests read while the buffer writes to it.
type lockedBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	fails int // the next writes that fail
	calls int
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	if w.fails > 0 {
		w.fails--
		return 0, errors.New("no space left on device")
	}
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestLogBuffer: lines from many goroutines come out whole, each once, in far fewer writes
// than lines; Close writes the rest.
func TestLogBuffer(t *testing.T) {
	var w lockedBuffer
	b := NewLogBuffer(&w, time.Hour)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				fmt.Fprintf(b, "{\"g\":%d,\"i\":%d,\"pad\":%q}\n", g, i, strings.Repeat("x", 60))
			}
		})
	}
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(w.String(), "\n"), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		if !strings.HasPrefix(l, "{") || !strings.HasSuffix(l, "}") || seen[l] {
			t.Fatalf("line cut or repeated: %q", l)
		}
		seen[l] = true
	}
	if len(seen) != 8000 {
		t.Errorf("%d lines, want 8000", len(seen))
	}
	if w.calls > 8000/100 {
		t.Errorf("%d writes for 8000 lines: the buffer does not gather them", w.calls)
	}
}

// TestLogBufferInterval: a line is written within the interval without any further write.
func TestLogBufferInterval(t *testing.T) {
	var w lockedBuffer
	b := NewLogBuffer(&w, 20*time.Millisecond)
	defer b.Close()
	fmt.Fprintln(b, "first")
	deadline := time.Now().Add(10 * time.Second)
	for w.String() != "first\n" {
		if time.Now().After(deadline) {
			t.Fatalf("not written after the interval: %q", w.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLogBufferRecovers: a failed write loses what waited, and the lines after it are written
// once the writer works again (a full disk that has room again); nothing piles up meanwhile.
func TestLogBufferRecovers(t *testing.T) {
	w := lockedBuffer{fails: 1}
	b := NewLogBuffer(&w, time.Hour)
	fmt.Fprintln(b, "lost")
	if err := b.Flush(); err == nil {
		t.Fatal("a failed write is not reported")
	}
	fmt.Fprintln(b, "after")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.String(); got != "after\n" {
		t.Errorf("written %q, want the line after the fault alone", got)
	}
}

// TestLoggerFlushesWarnings: a buffered logger writes a warning at once, with what waited
// before it, while info lines wait for the interval.
func TestLoggerFlushesWarnings(t *testing.T) {
	var w lockedBuffer
	b := NewLogBuffer(&w, time.Hour)
	defer b.Close()
	log, err := NewLogger(b, LogOptions{Format: "json", Flush: b.Flush})
	if err != nil {
		t.Fatal(err)
	}
	log.Info("request", "status", 201)
	if w.String() != "" {
		t.Fatalf("an info line was written at once: %q", w.String())
	}
	log.Warn("store unavailable")
	got := w.String()
	if !strings.Contains(got, `"msg":"request"`) || !strings.Contains(got, `"msg":"store unavailable"`) {
		t.Errorf("after a warning the log holds %q, want both lines", got)
	}
}

// BenchmarkLogBuffer: the access log's line per request, written to a file as the process's
// standard error is when redirected: one write call per line, or gathered (LogBuffer).
func BenchmarkLogBuffer(b *testing.B) {
	for _, buffered := range []bool{false, true} {
		b.Run(map[bool]string{false: "direct", true: "buffered"}[buffered], func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "log"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			var out interface {
				Write([]byte) (int, error)
			} = f
			var lb *LogBuffer
			if buffered {
				lb = NewLogBuffer(f, 100*time.Millisecond)
				out = lb
			}
			log, _ := NewLogger(out, LogOptions{Format: "json"})
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					log.Info("request", "method", "POST", "route", "POST /api/v1/public/{key}/consent", "status", 201,
						"duration", 2*time.Millisecond, "client", "203.0.113.0/24")
				}
			})
			if lb != nil {
				lb.Close()
			}
		})
	}
}
