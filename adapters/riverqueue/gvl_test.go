package riverqueue

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/core/tcf"
)

// flakyRefresher fails its first two refreshes, as the IAB's server might.
type flakyRefresher struct{ calls atomic.Int32 }

func (f *flakyRefresher) RefreshGVL(context.Context) (*tcf.GVLRefresh, error) {
	if f.calls.Add(1) <= 2 {
		return nil, errors.New("vendor-list.consensu.org: 502 Bad Gateway")
	}
	return &tcf.GVLRefresh{Version: 17, Saved: []string{tcf.GVLResourceList}}, nil
}

// TestGVLRefreshJob: the refresh runs when the workers start and, when it fails, River retries
// it (not a loop of ours) until it succeeds, then leaves it until the next period.
func TestGVLRefreshJob(t *testing.T) {
	dialects(t, func(t *testing.T, dialect string) {
		_, q, _ := newStoreAndQueue(t, dialect, Config{Workers: 1, PollInterval: 50 * time.Millisecond, RetryBase: 20 * time.Millisecond})
		r := &flakyRefresher{}
		q.SetGVLRefresh(r, time.Hour)
		startWorkers(t, q, nil)
		deadline := time.Now().Add(20 * time.Second)
		for r.calls.Load() < 3 {
			if time.Now().After(deadline) {
				t.Fatalf("after 20 s the refresh ran %d times, want 3 (two failures retried)", r.calls.Load())
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		if n := r.calls.Load(); n != 3 {
			t.Fatalf("the refresh ran %d times after succeeding, want 3", n)
		}
	})
}
