package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/tidwall/gjson"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/watch"
)

// receiver is a consent.recorded webhook consumer on loopback: it verifies each delivery's
// signature with the Standard Webhooks reference library and counts record IDs, once per
// webhook-id.
type receiver struct {
	srv        *http.Server
	url        string
	mu         sync.Mutex
	wh         *standardwebhooks.Webhook
	seen       map[string]bool // webhook-ids processed
	records    map[string]int
	deliveries int
	bad        int
	lastAt     time.Time
}

func startReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rv := &receiver{seen: map[string]bool{}, records: map[string]int{}, url: "http://" + ln.Addr().String() + "/hooks"}
	rv.srv = &http.Server{Handler: rv, ReadHeaderTimeout: 10 * time.Second}
	go rv.srv.Serve(ln) //nolint:errcheck // ends with Close
	return rv, nil
}

func (rv *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.wh == nil || rv.wh.Verify(body, r.Header) != nil {
		rv.bad++
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	id := r.Header.Get("webhook-id")
	if rv.seen[id] {
		w.WriteHeader(http.StatusOK) // a retry of what was processed
		return
	}
	// Only the record IDs are counted, so only they are read (gjson walks the bytes without
	// decoding whole records): the receiver shares the server's cores, and decoding 5,000
	// records a delivery into structs would be charged to ingest. The signature was verified
	// above, so the bytes are the server's.
	recs := gjson.GetBytes(body, "data.records")
	if !recs.IsArray() {
		rv.bad++
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	rv.seen[id] = true
	rv.deliveries++
	recs.ForEach(func(_, rec gjson.Result) bool {
		rv.records[rec.Get("id").String()]++
		return true
	})
	rv.lastAt = time.Now()
	w.WriteHeader(http.StatusNoContent)
}

// subscribe creates an endpoint of the load's organization subscribed to consent.recorded.
func (rv *receiver) subscribe(ctx context.Context, a *app.App, orgID string) error {
	e, err := a.UseCases().Webhooks.CreateEndpoint(core.WithActor(ctx, core.System("consentd-load")), orgID, watch.WebhookInput{URL: &rv.url, Events: []string{event.EventConsentRecorded}})
	if err != nil {
		return err
	}
	wh, err := standardwebhooks.NewWebhook(e.Secret)
	if err != nil {
		return err
	}
	rv.mu.Lock()
	rv.wh = wh
	rv.mu.Unlock()
	return nil
}

// await waits until every acknowledged record arrived (or within), then reports.
func (rv *receiver) await(created []string, within time.Duration, end time.Time) error {
	deadline := time.Now().Add(within)
	for {
		rv.mu.Lock()
		missing := 0
		for _, id := range created {
			if rv.records[id] == 0 {
				missing++
			}
		}
		n, extra, dup, deliveries, bad, last := len(rv.records), 0, 0, rv.deliveries, rv.bad, rv.lastAt
		for _, c := range rv.records {
			if c > 1 {
				dup++
			}
		}
		extra = n - (len(created) - missing)
		rv.mu.Unlock()
		if missing == 0 || time.Now().After(deadline) {
			fmt.Printf("  webhook: %d records received in %d deliveries (%.0f records a delivery), %d missing, %d duplicated, %d not acknowledged to a poster, %d refused; last delivery %.1fs after the load ended\n",
				n, deliveries, float64(n)/max(float64(deliveries), 1), missing, dup, extra, bad, last.Sub(end).Seconds())
			if missing > 0 || dup > 0 || bad > 0 {
				return fmt.Errorf("the receiver did not get every acknowledged record exactly once")
			}
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}
