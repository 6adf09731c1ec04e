package console_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentd/consentd/app"
)

// TestWatchJourney: in headless Chromium, an owner sets a site's scan and verification
// schedules and its digest's recipients, adds a webhook endpoint (its secret shown once),
// sends it a test event that the receiver gets signed, sees the delivery in the log, and
// deletes the endpoint. Pages are checked with axe-core and photographed.
func TestWatchJourney(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []http.Header
	var bodies []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r.Header.Clone()), append(bodies, string(b))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(recv.Close)
	srv := startServer(t, func(c *app.Config) { c.WebhookAllowPrivate = true })
	ctx := tab(t)
	base := srv.base

	navigate(t, ctx, base+"/sign-in")
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	fill(t, ctx, map[string]string{"#site-name": "Shop", "#site-url": "https://shop.example/"})
	submit(t, ctx, "document.querySelector('form[action=\"/sites\"] button').click()")
	waitFor(t, ctx, "/^\\/sites\\/[0-9a-f-]+$/.test(location.pathname)")

	// Schedules and digest: a wrong address is refused with what was typed kept.
	eval(t, ctx, "document.querySelector('#scan-schedule').value = 'weekly'", nil)
	eval(t, ctx, "document.querySelector('#verify-schedule').value = 'monthly'", nil)
	fill(t, ctx, map[string]string{"#digest-emails": "dpo@shop.example, not-an-address"})
	submit(t, ctx, "document.querySelector('form[action$=\"/watch\"] button').click()")
	mustContain(t, ctx, "not-an-address")
	var name string
	eval(t, ctx, "document.querySelector('#name').value", &name)
	if name != "Shop" {
		t.Fatalf("the site settings' name after a schedule error: %q", name)
	}
	checkPage(t, ctx, base, "w01-watch-error")
	fill(t, ctx, map[string]string{"#digest-emails": "dpo@shop.example, web@shop.example"})
	submit(t, ctx, "document.querySelector('form[action$=\"/watch\"] button').click()")
	mustContain(t, ctx, "Warning:", "No digest email will be sent", "CONSENTD_SMTP_URL is not set")
	var scan, verify, emails string
	eval(t, ctx, "document.querySelector('#scan-schedule').value", &scan)
	eval(t, ctx, "document.querySelector('#verify-schedule').value", &verify)
	eval(t, ctx, "document.querySelector('#digest-emails').value", &emails)
	if scan != "weekly" || verify != "monthly" || emails != "dpo@shop.example, web@shop.example" {
		t.Fatalf("after saving: scan %q, verify %q, digest %q", scan, verify, emails)
	}
	checkPage(t, ctx, base, "w02-watch-saved")

	// Webhooks: an endpoint, its secret once, a test event.
	navigate(t, ctx, base+"/webhooks")
	mustContain(t, ctx, "No endpoint yet")
	checkPage(t, ctx, base, "w03-webhooks-empty")
	fill(t, ctx, map[string]string{"#wh-url": recv.URL + "/hook", "#wh-desc": "Our CRM"})
	submit(t, ctx, "document.querySelector('form[action=\"/webhooks\"] button[type=submit]').click()")
	mustContain(t, ctx, "Endpoint created", "Signing secret of "+recv.URL+"/hook", "scan.changed")
	var secret string
	eval(t, ctx, "document.querySelector('#secret').textContent", &secret)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret shown: %q", secret)
	}
	checkPage(t, ctx, base, "w04-webhook-created")
	submit(t, ctx, "document.querySelector('form[action$=\"/test\"] button').click()")
	mustContain(t, ctx, "Test event queued")
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the receiver got no test event")
		}
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	h, body := got[0], bodies[0]
	mu.Unlock()
	if h.Get("webhook-id") == "" || !strings.HasPrefix(h.Get("webhook-signature"), "v1,") || !strings.Contains(body, `"type":"webhook.test"`) {
		t.Fatalf("test event: %v %s", h, body)
	}
	// The delivery log shows it delivered.
	for i := 0; ; i++ {
		navigate(t, ctx, base+"/webhooks")
		if strings.Contains(text(t, ctx), "webhook.test delivered (HTTP 204)") {
			break
		}
		if i > 50 {
			t.Fatalf("the delivery log does not show the test delivered: %s", text(t, ctx))
		}
		time.Sleep(200 * time.Millisecond)
	}
	checkPage(t, ctx, base, "w05-webhook-delivered")
	submit(t, ctx, "document.querySelector('a[href$=\"/delete\"][href^=\"/webhooks/\"]').click()")
	mustContain(t, ctx, "Delete the webhook endpoint")
	checkPage(t, ctx, base, "w06-webhook-delete")
	submit(t, ctx, "document.querySelector('main form button[type=submit]').click()")
	mustContain(t, ctx, "Endpoint deleted", "No endpoint yet")
}
