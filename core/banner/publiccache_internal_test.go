package banner

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestTTLCacheLoad: callers missing one key together cause one load; an entry past half its
// TTL is served while one background load renews it, so that a key in steady use is never
// missed; a failed load is not cached.
func TestTTLCacheLoad(t *testing.T) {
	var c ttlCache[int]
	var calls atomic.Int32
	release := make(chan struct{})
	fn := func(context.Context) (int, string, error) {
		<-release
		return int(calls.Add(1)), "site", nil
	}
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	ctx := context.Background()
	var wg sync.WaitGroup
	got := make([]int, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.Load(ctx, "k", t0, fn)
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		}()
	}
	time.Sleep(50 * time.Millisecond) // let them all miss
	close(release)
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("%d loads for one key", calls.Load())
	}
	for _, v := range got {
		if v != 1 {
			t.Fatalf("values %v", got)
		}
	}
	// fresh: no load
	if v, _ := c.Load(ctx, "k", t0.Add(publicCacheTTL/4), fn); v != 1 || calls.Load() != 1 {
		t.Fatalf("fresh entry: %d, %d loads", v, calls.Load())
	}
	// past half the TTL: the old value at once, renewed in the background
	if v, _ := c.Load(ctx, "k", t0.Add(publicCacheTTL*3/4), fn); v != 1 {
		t.Fatalf("renewing entry: %d", v)
	}
	for calls.Load() != 2 {
		time.Sleep(time.Millisecond)
	}
	for { // the renewal is in the cache once its load is released
		c.mu.Lock()
		n := len(c.loading)
		c.mu.Unlock()
		if n == 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if v, _ := c.Load(ctx, "k", t0.Add(publicCacheTTL), fn); v != 2 || calls.Load() != 2 {
		t.Fatalf("after the renewal: %d, %d loads", v, calls.Load())
	}
	// a failure is not cached
	boom := errors.New("boom")
	fail := func(context.Context) (int, string, error) { calls.Add(1); return 0, "", boom }
	for range 2 {
		if _, err := c.Load(ctx, "x", t0, fail); !errors.Is(err, boom) {
			t.Fatal(err)
		}
	}
	if calls.Load() != 4 {
		t.Fatalf("%d loads", calls.Load())
	}
}
