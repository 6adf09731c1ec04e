package app

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/scan"
)

// receiver is a webhook consumer as a customer would write it: it verifies every delivery's
// signature with the Standard Webhooks reference library and processes each webhook-id once.
type receiver struct {
	t      *testing.T
	mu     sync.Mutex
	wh     *standardwebhooks.Webhook
	fail   map[string]int // event type -> 500 answers still to give to its first delivery
	seen   map[string]int // webhook-id -> requests
	events []map[string]any
	// records are the consent record IDs received, with how often.
	records map[string]int
	bad     []string
}

func newReceiver(t *testing.T) (*receiver, *httptest.Server) {
	rv := &receiver{t: t, fail: map[string]int{}, seen: map[string]int{}, records: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(rv.serve))
	t.Cleanup(srv.Close)
	return rv, srv
}

func (rv *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.wh == nil {
		http.Error(w, "no secret yet", http.StatusServiceUnavailable)
		return
	}
	if err := rv.wh.Verify(body, r.Header); err != nil {
		rv.bad = append(rv.bad, err.Error())
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	id := r.Header.Get("webhook-id")
	rv.seen[id]++
	var ev map[string]any
	if err := json.Unmarshal(body, &ev); err != nil {
		rv.bad = append(rv.bad, "body: "+err.Error())
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	typ, _ := ev["type"].(string)
	if rv.fail[typ] > 0 {
		rv.fail[typ]--
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	if rv.seen[id] > 1 && rv.processed(id) {
		// Acknowledged before: a duplicate, which the sender must not make.
		rv.bad = append(rv.bad, "duplicate delivery of acknowledged "+id)
		w.WriteHeader(http.StatusOK)
		return
	}
	ev["_id"] = id
	rv.events = append(rv.events, ev)
	if typ == event.EventConsentRecorded {
		data, _ := ev["data"].(map[string]any)
		recs, _ := data["records"].([]any)
		for _, x := range recs {
			rec, _ := x.(map[string]any)
			rid, _ := rec["id"].(string)
			rv.records[rid]++
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (rv *receiver) processed(id string) bool {
	for _, ev := range rv.events {
		if ev["_id"] == id {
			return true
		}
	}
	return false
}

func (rv *receiver) waitFor(what string, cond func() bool) {
	rv.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rv.mu.Lock()
		ok := cond()
		rv.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			rv.t.Fatalf("timed out waiting for %s; events: %v", what, rv.types())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (rv *receiver) types() []string {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	var out []string
	for _, ev := range rv.events {
		out = append(out, fmt.Sprint(ev["type"]))
	}
	return out
}

func (rv *receiver) count(typ string) int {
	n := 0
	for _, ev := range rv.events {
		if ev["type"] == typ {
			n++
		}
	}
	return n
}

// TestWebhooksOverHTTP: an endpoint created over the API receives scan.completed, retried after
// two 500 answers under the same webhook-id and processed once, scan.changed for a rescan that
// found something new, config.changed, visitor.erased, and every recorded consent in batched
// consent.recorded deliveries; every signature verifies with the Standard Webhooks reference
// library; the delivery log shows each attempt's status.
func TestWebhooksOverHTTP(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dialect string) {
		r := serve(t, dialect, func(c *Config) {
			c.ScanMode = core.ScanStatic
			c.WebhookAllowPrivate = true
			c.WebhookRetrySchedule = []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond}
		})
		rv, srv := newReceiver(t)
		var ep struct {
			ID      string   `json:"id"`
			Secret  string   `json:"secret"`
			Events  []string `json:"events"`
			Enabled bool     `json:"enabled"`
		}
		r.call(t, "POST", "/webhooks", map[string]any{"url": srv.URL + "/hooks", "events": []string{event.EventScanCompleted,
			event.EventScanChanged, event.EventConsentRecorded, event.EventConfigChanged, event.EventVisitorErased}}, &ep)
		if !strings.HasPrefix(ep.Secret, "whsec_") || !ep.Enabled || len(ep.Events) != 5 {
			t.Fatalf("created endpoint %+v", ep)
		}
		wh, err := standardwebhooks.NewWebhook(ep.Secret)
		if err != nil {
			t.Fatal(err)
		}
		var listed []map[string]any
		r.call(t, "GET", "/webhooks", nil, &listed)
		if len(listed) != 1 || listed[0]["secret"] != nil {
			t.Fatalf("listed endpoints %v: want one, without its secret", listed)
		}
		rv.mu.Lock()
		rv.wh = wh
		rv.fail[event.EventScanCompleted] = 2
		rv.mu.Unlock()

		// A scan: its completion is refused twice, then acknowledged.
		target := targetSite(t)
		site := r.createSite(t, target.URL+"/")
		var s scan.Scan
		r.call(t, "POST", "/sites/"+site.ID+"/scan", nil, &s)
		r.waitScan(t, site.ID, s.ID, 30*time.Second)
		rv.waitFor("scan.completed", func() bool { return rv.count(event.EventScanCompleted) == 1 })
		rv.mu.Lock()
		var scanEv map[string]any
		for _, ev := range rv.events {
			if ev["type"] == event.EventScanCompleted {
				scanEv = ev
			}
		}
		id := scanEv["_id"].(string)
		if rv.seen[id] != 3 {
			t.Errorf("scan.completed %s came %d times, want 3 (two 500s, then acknowledged)", id, rv.seen[id])
		}
		rv.mu.Unlock()
		var page struct {
			Deliveries []event.WebhookDelivery `json:"deliveries"`
			Total      int                     `json:"total"`
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			r.call(t, "GET", "/webhooks/"+ep.ID+"/deliveries?limit=100", nil, &page)
			var d *event.WebhookDelivery
			for i := range page.Deliveries {
				if page.Deliveries[i].ID == id {
					d = &page.Deliveries[i]
				}
			}
			if d != nil && d.Status == event.DeliveryDelivered {
				var codes []int
				for _, a := range d.Attempts {
					codes = append(codes, *a.StatusCode)
				}
				if fmt.Sprint(codes) != "[500 500 204]" {
					t.Errorf("delivery log of %s: %v, want [500 500 204]", id, codes)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("delivery %s not logged as delivered: %+v", id, page)
			}
			time.Sleep(50 * time.Millisecond)
		}
		// No change on a first scan: no scan.changed.
		if n := rv.count(event.EventScanChanged); n != 0 {
			t.Errorf("%d scan.changed for a first scan", n)
		}

		// Configuration and consents.
		r.call(t, "PATCH", "/sites/"+site.ID+"/banner", map[string]any{"cookieExpirationDays": 180}, nil)
		rv.waitFor("config.changed", func() bool { return rv.count(event.EventConfigChanged) == 1 })
		const n = 120
		want := map[string]bool{}
		for i := range n {
			var rec struct{ ID string }
			r.call(t, "POST", "/public/"+site.ProjectKey+"/consent", map[string]any{"visitorId": fmt.Sprintf("visitor-%03d", i),
				"categories": map[string]bool{"statistics": i%2 == 0, "marketing": false}, "consentVersion": 1}, &rec)
			want[rec.ID] = true
		}
		rv.waitFor("every consent record", func() bool { return len(rv.records) >= n })
		r.call(t, "DELETE", "/sites/"+site.ID+"/visitors/visitor-007", nil, nil)
		rv.waitFor("visitor.erased", func() bool { return rv.count(event.EventVisitorErased) == 1 })

		rv.mu.Lock()
		defer rv.mu.Unlock()
		for rid, times := range rv.records {
			if !want[rid] || times != 1 {
				t.Errorf("record %s received %d times (acknowledged: %v)", rid, times, want[rid])
			}
		}
		if len(rv.records) != n {
			t.Errorf("%d records received, want %d", len(rv.records), n)
		}
		if batches := rv.count(event.EventConsentRecorded); batches >= n {
			t.Errorf("%d consent.recorded deliveries for %d records: not batched", batches, n)
		}
		if len(rv.bad) > 0 {
			t.Errorf("the receiver refused: %v", rv.bad)
		}
	})
}
