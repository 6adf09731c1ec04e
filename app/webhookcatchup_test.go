package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core/event"
)

// TestWebhookCatchUpAfterOutage: a webhook receiver is down (nothing listens on its port:
// connection refused) for 60 s while consent posts continue. After it comes back, every
// record acknowledged meanwhile arrives within 30 s, every record exactly once, deliveries in
// the order they were made and records in chain order. It runs the real path: River jobs on
// the default retry schedule (5 s, then 5 min), the real sender over loopback and the real
// clock, so the outage is 60 s as the delivery logic sees it; without the catch-up the
// deliveries made during the outage would wait for their 5-minute retry step. It takes
// about 66 s, so -short skips it.
func TestWebhookCatchUpAfterOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("a 60-second receiver outage; run without -short")
	}
	// Each store's outage begins here, before t.Parallel, and runs while the test waits for the
	// package's other tests and for a parallel slot (up to 3.5 s after the package started,
	// measured), so that the package takes the outage's time, not the outage's plus that wait.
	finish := map[string]func(*testing.T){}
	for _, dialect := range []string{"sqlite", "postgres"} {
		if dialect == "postgres" {
			ok := false
			t.Run("postgres server", func(t *testing.T) { pgtest.ServerURL(t); ok = true })
			if !ok {
				continue
			}
		}
		finish[dialect] = beginOutage(t, dialect)
	}
	t.Parallel()
	var wg sync.WaitGroup
	for dialect, f := range finish {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(dialect, f)
		}()
	}
	wg.Wait()
}

// beginOutage starts consentd on dialect's store with an endpoint, posts consents at a steady
// pace and takes the receiver down; the function it returns waits out the rest of the 60 s,
// brings the receiver back and checks what arrived.
func beginOutage(t *testing.T, dialect string) func(*testing.T) {
	r := serve(t, dialect, func(c *Config) { c.WebhookAllowPrivate = true })
	rv := &orderedReceiver{seen: map[string]int{}, records: map[string]time.Time{}}
	addr := rv.start(t, "127.0.0.1:0")
	var ep struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	r.call(t, "POST", "/webhooks", map[string]any{"url": "http://" + addr + "/hooks", "events": []string{event.EventConsentRecorded}}, &ep)
	wh, err := standardwebhooks.NewWebhook(ep.Secret)
	if err != nil {
		t.Fatal(err)
	}
	rv.mu.Lock()
	rv.wh = wh
	rv.mu.Unlock()
	site := r.createSite(t, "https://shop.example/")

	// Load: two posters, each a consent post every 50 ms, until stop: about 40 records a
	// second, 2,400 of them made while the receiver is down. (Every 20 ms made 6,000 and cost
	// CI about 8 more CPU-seconds, alone 24.7 against 17.0, for the same check.)
	var (
		ackMu sync.Mutex
		acked = map[string]time.Time{} // record ID -> when its 201 came
		stop  atomic.Bool
		wg    sync.WaitGroup
		errs  = make(chan error, 2)
	)
	for p := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				id, err := r.postConsent(site.ProjectKey, fmt.Sprintf("visitor-%d-%d", p, i))
				if err != nil {
					errs <- err
					return
				}
				ackMu.Lock()
				acked[id] = time.Now()
				ackMu.Unlock()
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	time.Sleep(time.Second) // records delivered before the outage, to order the later ones against
	rv.stop()
	down := time.Now()
	t.Logf("%s: receiver down at %s", dialect, down.Format(time.TimeOnly))
	return func(t *testing.T) {
		time.Sleep(time.Until(down.Add(60 * time.Second)))
		rv.start(t, addr)
		up := time.Now()
		t.Logf("receiver up at %s, after %s", up.Format(time.TimeOnly), up.Sub(down).Round(time.Millisecond))
		time.Sleep(2 * time.Second) // new records behind the ones the outage held back
		stop.Store(true)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}

		// Every record acknowledged before the receiver came back arrives within 30 s of it.
		ackMu.Lock()
		var during []string
		for id, at := range acked {
			if at.Before(up) {
				during = append(during, id)
			}
		}
		total := len(acked)
		ackMu.Unlock()
		var last time.Time
		deadline := up.Add(30 * time.Second)
		for {
			rv.mu.Lock()
			missing := 0
			for _, id := range during {
				at, ok := rv.records[id]
				if !ok {
					missing++
				} else if at.After(last) {
					last = at
				}
			}
			rv.mu.Unlock()
			if missing == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of the %d records acknowledged before the receiver came back did not arrive within 30 s", missing, len(during))
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("%d records acknowledged before the receiver came back, the last arrived %s after it", len(during), last.Sub(up).Round(time.Millisecond))
		// And the ones made after it, too.
		deadline = time.Now().Add(30 * time.Second)
		for {
			rv.mu.Lock()
			n := len(rv.records)
			rv.mu.Unlock()
			if n >= total {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d records arrived, %d acknowledged", n, total)
			}
			time.Sleep(100 * time.Millisecond)
		}

		// The receiver notes a record before it answers, and the sender marks the delivery
		// delivered after the answer: the last ones may still be pending for a moment.
		var page struct {
			Deliveries []event.WebhookDelivery `json:"deliveries"`
		}
		deadline = time.Now().Add(10 * time.Second)
		for {
			r.call(t, "GET", "/webhooks/"+ep.ID+"/deliveries?limit=100", nil, &page)
			pending := slices.ContainsFunc(page.Deliveries, func(d event.WebhookDelivery) bool { return d.Status == event.DeliveryPending })
			if !pending || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		rv.mu.Lock()
		defer rv.mu.Unlock()
		ackMu.Lock()
		defer ackMu.Unlock()
		for id := range rv.records {
			if _, ok := acked[id]; !ok {
				t.Errorf("record %s arrived but was never acknowledged", id)
			}
		}
		if len(rv.records) != total {
			t.Errorf("%d distinct records arrived, %d acknowledged", len(rv.records), total)
		}
		for _, bad := range rv.bad {
			t.Error(bad)
		}
		// The outage was one for the sender: deliveries whose attempts found nobody listening.
		failedFirst := 0
		for _, d := range page.Deliveries {
			if d.Status != event.DeliveryDelivered {
				t.Errorf("delivery %s is %s", d.ID, d.Status)
			}
			if len(d.Attempts) > 1 && d.Attempts[0].Error != nil {
				failedFirst++
			}
		}
		if failedFirst == 0 {
			t.Error("no delivery among the latest 100 failed before it went out: the test did not test an outage")
		}
		t.Logf("%d deliveries acknowledged; %d of the latest 100 failed before they went out", len(rv.order), failedFirst)
	}
}

// postConsent posts a decision to the public API and returns the record's ID.
func (r *running) postConsent(projectKey, visitor string) (string, error) {
	body, _ := json.Marshal(map[string]any{"visitorId": visitor, "categories": map[string]bool{"statistics": true, "marketing": false}, "consentVersion": 1})
	res, err := http.Post(r.base+"/public/"+projectKey+"/consent", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("consent post: %d %s", res.StatusCode, b)
	}
	var rec struct{ ID string }
	if err := json.Unmarshal(b, &rec); err != nil || rec.ID == "" {
		return "", fmt.Errorf("consent post answered %s (%v)", b, err)
	}
	return rec.ID, nil
}

// orderedReceiver verifies every delivery with the Standard Webhooks reference library and
// notes, once per webhook-id, when each record arrived; it reports (in bad) a delivery
// acknowledged twice, a record in two deliveries, a delivery older than one acknowledged
// before it, and a record before one of its chain that came earlier.
type orderedReceiver struct {
	mu      sync.Mutex
	wh      *standardwebhooks.Webhook
	srv     *http.Server
	seen    map[string]int
	order   []string             // acknowledged webhook-ids, in arrival order
	records map[string]time.Time // record ID -> arrival
	lastSeq int64
	bad     []string
}

func (rv *orderedReceiver) start(t *testing.T, addr string) string {
	t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port of the stopped server may take a moment to free
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(rv.serve)}
	go srv.Serve(ln)
	rv.mu.Lock()
	rv.srv = srv
	rv.mu.Unlock()
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func (rv *orderedReceiver) stop() {
	rv.mu.Lock()
	srv := rv.srv
	rv.mu.Unlock()
	srv.Close()
}

func (rv *orderedReceiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.wh == nil {
		http.Error(w, "no secret yet", http.StatusServiceUnavailable)
		return
	}
	if err := rv.wh.Verify(body, r.Header); err != nil {
		rv.bad = append(rv.bad, "signature: "+err.Error())
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	id := r.Header.Get("webhook-id")
	if rv.seen[id]++; rv.seen[id] > 1 {
		rv.bad = append(rv.bad, "delivery "+id+" acknowledged before came again")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if n := len(rv.order); n > 0 && id < rv.order[n-1] {
		rv.bad = append(rv.bad, fmt.Sprintf("delivery %s arrived after the newer %s", id, rv.order[n-1]))
	}
	rv.order = append(rv.order, id)
	var ev struct {
		Data struct {
			Records []struct {
				ID       string `json:"id"`
				BatchSeq int64  `json:"batchSeq"`
			} `json:"records"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		rv.bad = append(rv.bad, "body: "+err.Error())
	}
	now := time.Now()
	for _, rec := range ev.Data.Records {
		if _, dup := rv.records[rec.ID]; dup {
			rv.bad = append(rv.bad, "record "+rec.ID+" in two deliveries")
		}
		if rec.BatchSeq < rv.lastSeq {
			rv.bad = append(rv.bad, fmt.Sprintf("record %s of chain batch %d after batch %d", rec.ID, rec.BatchSeq, rv.lastSeq))
		}
		rv.lastSeq = max(rv.lastSeq, rec.BatchSeq)
		rv.records[rec.ID] = now
	}
	w.WriteHeader(http.StatusNoContent)
}
