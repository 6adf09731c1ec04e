package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWebhookSpecialAddresses: POST /webhooks and PATCH /webhooks/{id} refuse a URL whose host
// is a special-purpose address (the rule every delivery is dialled by), in any literal form,
// with a 400 naming the url field; nothing is created or changed.
func TestWebhookSpecialAddresses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ep := e.want(e.do("POST", "/api/v1/webhooks", map[string]any{"url": "https://hooks.example/in", "events": []string{"scan.changed"}}), 201).obj(t)
	id := ep["id"].(string)
	for _, u := range []string{
		"http://100.64.0.1/", "http://224.0.0.1/", "http://255.255.255.255/", "http://240.0.0.1/in", "http://198.18.0.1/",
		"http://1681915905/", "http://0177.0.0.1/", "http://0x7f.1/", "http://127.1/", "http://[::ffff:100.64.0.1]/",
		"http://[64:ff9b:1::1]/", "http://[2001:db8::1]/", "http://[ff02::1]/",
	} {
		for _, r := range []resp{
			e.do("POST", "/api/v1/webhooks", map[string]any{"url": u, "events": []string{"scan.changed"}}),
			e.do("PATCH", "/api/v1/webhooks/"+id, map[string]any{"url": u}),
		} {
			e.want(r, 400, "validation_error")
			var body struct {
				Error struct{ Message string } `json:"error"`
			}
			if err := json.Unmarshal([]byte(r.body), &body); err != nil || !strings.HasPrefix(body.Error.Message, "url: ") {
				t.Errorf("%s: %s, want a message naming url", u, r.body)
			}
		}
	}
	if list := e.want(e.do("GET", "/api/v1/webhooks", nil), 200).arr(t); len(list) != 1 || list[0].(map[string]any)["url"] != "https://hooks.example/in" {
		t.Errorf("endpoints after the refusals: %v", list)
	}
}
