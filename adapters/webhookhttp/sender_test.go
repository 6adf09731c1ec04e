package webhookhttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/consentd/consentd/core/watch"
)

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// TestSendSignsAndGuards: a delivery verifies with the reference library; a loopback target is
// refused unless private addresses are allowed; a redirect is an answer, not followed.
func TestSendSignsAndGuards(t *testing.T) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	var verified error
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		b, _ := io.ReadAll(r.Body)
		verified = wh.Verify(b, r.Header)
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "thanks")
	}))
	defer srv.Close()
	req := watch.WebhookRequest{URL: srv.URL + "/in", Secret: secret, ID: "msg_1", Timestamp: time.Now(), Payload: []byte(`{"type":"scan.changed"}`)}

	if _, err := New(false, "test").Send(t.Context(), req); err == nil || !strings.Contains(err.Error(), "loopback") || !strings.Contains(err.Error(), "CONSENTD_WEBHOOK_ALLOW_PRIVATE") {
		t.Fatalf("loopback target without permission: %v", err)
	}
	res, err := New(true, "test").Send(t.Context(), req)
	if err != nil || res.StatusCode != http.StatusAccepted || res.Body != "thanks" || verified != nil {
		t.Fatalf("allowed send: %+v %v; signature: %v", res, err, verified)
	}
	req.URL = srv.URL + "/moved"
	if res, err := New(true, "test").Send(t.Context(), req); err != nil || res.StatusCode != http.StatusFound {
		t.Fatalf("redirect: %+v %v, want the 302 itself", res, err)
	}
}

// TestSendLiteralForms: a target written in another literal form of a special-purpose
// address (decimal, octal, hexadecimal, short, mapped) is refused before any connection, as
// the endpoint's validation refuses it; allowed, the decimal form reaches the address it
// names, as a browser's URL parser reads it.
func TestSendLiteralForms(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer srv.Close()
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://127.0.0.1"), ":")
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	for _, host := range []string{"2130706433", "0177.0.0.1", "0x7f.1", "127.1", "[::ffff:127.0.0.1]", "1681915905", "0xe0.1", "4294967295"} {
		req := watch.WebhookRequest{URL: "http://" + host + ":" + port + "/in", Secret: secret, ID: "msg_1", Timestamp: time.Now(), Payload: []byte(`{}`)}
		if _, err := New(false, "test").Send(t.Context(), req); err == nil || !strings.Contains(err.Error(), "refused to deliver") {
			t.Errorf("%s: %v, want a refusal", host, err)
		}
	}
	req := watch.WebhookRequest{URL: "http://2130706433:" + port + "/in", Secret: secret, ID: "msg_1", Timestamp: time.Now(), Payload: []byte(`{}`)}
	if res, err := New(true, "test").Send(t.Context(), req); err != nil || res.StatusCode != http.StatusNoContent {
		t.Errorf("allowed decimal loopback: %+v %v", res, err)
	}
}
