package banner_test

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// traceEvent is a Chrome trace event, as much of it as mainThreadCPU reads.
type traceEvent struct {
	Name string  `json:"name"`
	Ph   string  `json:"ph"`
	Ts   float64 `json:"ts"`
	Dur  float64 `json:"dur"`
	Tdur float64 `json:"tdur"`
	Pid  int     `json:"pid"`
	Tid  int     `json:"tid"`
	Args struct {
		Data struct {
			URL string `json:"url"`
		} `json:"data"`
	} `json:"args"`
}

// tracer records the tab's Chrome trace (devtools.timeline) between start and stop.
type tracer struct {
	mu     sync.Mutex
	events []traceEvent
	done   chan struct{}
}

func startTrace(t testing.TB, ctx context.Context) *tracer {
	t.Helper()
	tr := &tracer{done: make(chan struct{})}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			tr.mu.Lock()
			for _, v := range e.Value {
				var te traceEvent
				if json.Unmarshal(v, &te) == nil {
					tr.events = append(tr.events, te)
				}
			}
			tr.mu.Unlock()
		case *tracing.EventTracingComplete:
			close(tr.done)
		}
	}); err != nil {
		t.Fatal(err)
	}
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, tracing.Start, tracing.StartParams{
			TransferMode: tracing.StartTransferModeReportEvents,
			TraceConfig:  &tracing.TraceConfig{IncludedCategories: []string{"devtools.timeline", "blink.user_timing", "v8"}},
		})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func (tr *tracer) stop(t testing.TB, ctx context.Context) []traceEvent {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, tracing.End, cdp.Empty{})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-tr.done:
	case <-time.After(patience):
		t.Fatal("the trace never completed")
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.events
}

// mainThreadCPU sums the thread (CPU) time of the trace's script evaluations and function calls
// of urlPart that start before untilMs (performance.now() of the page), outermost ones only.
// Thread time, unlike wall time, does not grow while other processes hold the CPU.
func mainThreadCPU(events []traceEvent, urlPart string, untilMs float64) float64 {
	nav := -1.0
	for _, e := range events {
		if e.Name == "navigationStart" && e.Ts > nav {
			nav = e.Ts
		}
	}
	var ours []traceEvent
	for _, e := range events {
		if e.Ph == "X" && (e.Name == "EvaluateScript" || e.Name == "FunctionCall" || e.Name == "v8.compile") &&
			strings.Contains(e.Args.Data.URL, urlPart) && (nav < 0 || e.Ts < nav+untilMs*1000) {
			ours = append(ours, e)
		}
	}
	sort.Slice(ours, func(i, j int) bool { return ours[i].Ts < ours[j].Ts })
	total, end := 0.0, -1.0
	for _, e := range ours {
		if e.Ts < end {
			continue // nested in one already counted
		}
		d := e.Tdur
		if d == 0 {
			d = e.Dur
		}
		total += d
		end = e.Ts + e.Dur
	}
	return total / 1000
}
