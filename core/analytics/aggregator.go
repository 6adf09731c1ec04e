package analytics

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// FlushEvery is how often an Aggregator writes its counts: what a crash of the process can
// lose at most.
const FlushEvery = time.Second

// Aggregator adds counts in memory and writes them to the Store on Flush. It is safe for
// concurrent use.
type Aggregator struct {
	Store Store
	Log   *slog.Logger

	mu      sync.Mutex
	pending map[Key]*Counts
	// flushing serializes flushes, so that a failed flush's counts go back before the next;
	// Rows holds it for reading, so that a read never sees counts in flight (taken from
	// pending, not yet stored).
	flushing sync.RWMutex
}

// Add adds c to the counts of k.
func (a *Aggregator) Add(k Key, c *Counts) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending == nil {
		a.pending = map[Key]*Counts{}
	}
	if p := a.pending[k]; p != nil {
		p.Add(c)
		return
	}
	p := &Counts{}
	p.Add(c)
	a.pending[k] = p
}

// Pending returns the counts not yet flushed of the site with from <= Hour < to, so that a
// read can merge them with the stored ones.
func (a *Aggregator) Pending(siteID string, from, to time.Time) []Row {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []Row
	for k, c := range a.pending {
		if k.SiteID == siteID && !k.Hour.Before(from) && k.Hour.Before(to) {
			r := Row{Key: k}
			r.Counts.Add(c)
			out = append(out, r)
		}
	}
	return out
}

// Rows returns the site's rows with from <= Hour < to: the stored ones and those not yet
// flushed, merged. A flush in flight is waited for, so no count is missed or read twice.
func (a *Aggregator) Rows(ctx context.Context, siteID string, from, to time.Time) ([]Row, error) {
	a.flushing.RLock()
	defer a.flushing.RUnlock()
	stored, err := a.Store.AnalyticsRows(ctx, siteID, from, to)
	if err != nil {
		return nil, err
	}
	return Merge(append(stored, a.Pending(siteID, from, to)...)), nil
}

// Flush writes the pending counts in one transaction. If the store fails they are kept and
// go with the next flush.
func (a *Aggregator) Flush(ctx context.Context) error {
	a.flushing.Lock()
	defer a.flushing.Unlock()
	a.mu.Lock()
	batch := a.pending
	a.pending = nil
	a.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	rows := make([]Row, 0, len(batch))
	for k, c := range batch {
		rows = append(rows, Row{Key: k, Counts: *c})
	}
	err := a.Store.AddAnalytics(ctx, Merge(rows))
	if err != nil {
		for k, c := range batch {
			a.Add(k, c)
		}
	}
	return err
}

// Run flushes every FlushEvery until ctx is done, then once more with a fresh context of a
// few seconds, so that a process stopped gracefully loses nothing.
func (a *Aggregator) Run(ctx context.Context) {
	t := time.NewTicker(FlushEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			a.flushLogged(fctx)
			cancel()
			return
		case <-t.C:
			a.flushLogged(ctx)
		}
	}
}

func (a *Aggregator) flushLogged(ctx context.Context) {
	if err := a.Flush(ctx); err != nil && a.Log != nil {
		a.Log.Warn("analytics: flush failed; the counts are kept for the next", "err", err)
	}
}
