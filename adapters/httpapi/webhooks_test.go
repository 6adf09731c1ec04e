package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/scan"
)

// TestWebhookEndpoints: the endpoint CRUD answers with the contract's error body, shows the
// secret once in the whsec_ form, refuses private targets and unknown events, and keeps
// endpoints to their organization.
func TestWebhookEndpoints(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	created := e.want(e.do("POST", "/api/v1/webhooks", map[string]any{"url": "https://hooks.example/in", "events": []string{"scan.changed"}}), 201).obj(t)
	id, _ := created["id"].(string)
	if secret, _ := created["secret"].(string); !strings.HasPrefix(secret, "whsec_") || len(secret) < 40 || created["enabled"] != true {
		t.Fatalf("created %v", created)
	}
	got := e.want(e.do("GET", "/api/v1/webhooks/"+id, nil), 200).obj(t)
	if _, ok := got["secret"]; ok || got["url"] != "https://hooks.example/in" {
		t.Fatalf("read back %v: the secret must not be shown again", got)
	}
	if list := e.want(e.do("GET", "/api/v1/webhooks", nil), 200).arr(t); len(list) != 1 {
		t.Fatalf("list %v", list)
	}
	e.want(e.do("GET", "/api/v1/webhooks/"+id, nil, e.keyB), 404, "not_found")
	e.want(e.do("DELETE", "/api/v1/webhooks/"+id, nil, e.keyB), 404, "not_found")
	if list := e.want(e.do("GET", "/api/v1/webhooks", nil, e.keyB), 200).arr(t); len(list) != 0 {
		t.Fatalf("organization B lists %v", list)
	}

	for _, bad := range []map[string]any{
		{"url": "http://127.0.0.1:8080/in", "events": []string{"scan.changed"}},
		{"url": "http://localhost/in", "events": []string{"scan.changed"}},
		{"url": "http://[::1]/in", "events": []string{"scan.changed"}},
		{"url": "ftp://hooks.example/in", "events": []string{"scan.changed"}},
		{"url": "https://hooks.example/in", "events": []string{"scan.exploded"}},
		{"url": "https://hooks.example/in", "events": []string{}},
		{"url": "https://hooks.example/in"},
		{"events": []string{"scan.changed"}},
	} {
		r := e.do("POST", "/api/v1/webhooks", bad)
		if r.status != 400 {
			t.Errorf("%v: %d %s, want 400", bad, r.status, r.body)
			continue
		}
		e.want(r, 400, "validation_error")
	}

	// A test event (delivered in TestWatchJourney, adapters/console): another organization's
	// endpoint is not found.
	e.want(e.do("POST", "/api/v1/webhooks/"+id+"/test", nil, e.keyB), 404, "not_found")

	patched := e.want(e.do("PATCH", "/api/v1/webhooks/"+id, map[string]any{"enabled": false, "events": []string{"scan.failed", "consent.recorded"}}), 200).obj(t)
	if patched["enabled"] != false || fmt.Sprint(patched["events"]) != "[scan.failed consent.recorded]" {
		t.Fatalf("patched %v", patched)
	}
	e.want(e.do("POST", "/api/v1/webhooks/"+id+"/test", nil), 400, "validation_error") // disabled
	page := e.want(e.do("GET", "/api/v1/webhooks/"+id+"/deliveries", nil), 200).obj(t)
	if fmt.Sprint(page["deliveries"], page["total"], page["page"], page["limit"]) != "[] 0 1 50" {
		t.Fatalf("empty delivery log %v", page)
	}
	e.want(e.do("GET", "/api/v1/webhooks/"+id+"/deliveries?limit=101", nil), 400, "validation_error")
	e.want(e.do("POST", "/api/v1/webhooks/"+id+"/deliveries/msg_nothing/redeliver", nil), 404, "not_found")
	e.want(e.do("DELETE", "/api/v1/webhooks/"+id, nil), 200)
	e.want(e.do("GET", "/api/v1/webhooks/"+id, nil), 404, "not_found")
}

// TestWebhookEventEnum: the document's event enum is core.EventTypes.
func TestWebhookEventEnum(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	doc := e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).obj(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for _, name := range []string{"WebhookCreateBody", "WebhookPatchBody"} {
		items := schemas[name].(map[string]any)["properties"].(map[string]any)["events"].(map[string]any)["items"].(map[string]any)
		if got, want := fmt.Sprint(items["enum"]), fmt.Sprint(event.EventTypes()); got != want {
			t.Errorf("%s events enum %s, want %s", name, got, want)
		}
	}
}

// TestScheduleEnums: the document's schedule enums are core's.
func TestScheduleEnums(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	doc := e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).obj(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for _, c := range []struct {
		schema, field string
		want          []string
	}{
		{"SitePatchBody", "scanSchedule", scan.ScanSchedules()}, {"SitePatchBody", "verifySchedule", scan.VerifySchedules()},
		{"SiteOut", "scanSchedule", scan.ScanSchedules()}, {"SiteOut", "verifySchedule", scan.VerifySchedules()},
	} {
		p := schemas[c.schema].(map[string]any)["properties"].(map[string]any)[c.field].(map[string]any)
		if got := fmt.Sprint(p["enum"]); got != fmt.Sprint(c.want) {
			t.Errorf("%s.%s enum %s, want %v", c.schema, c.field, got, c.want)
		}
	}
	site := e.want(e.do("POST", "/api/v1/sites", map[string]string{"name": "Shop", "url": "https://shop.example"}), 201).obj(t)
	if site["scanSchedule"] != "default" || site["verifySchedule"] != "off" || site["autoConfigure"] != false {
		t.Fatalf("new site %v: want the default schedule, no verification, no auto-configure", site)
	}
	id := site["id"].(string)
	got := e.want(e.do("PATCH", "/api/v1/sites/"+id, map[string]any{"scanSchedule": "weekly", "verifySchedule": "monthly", "autoConfigure": true}), 200).obj(t)
	if got["scanSchedule"] != "weekly" || got["verifySchedule"] != "monthly" || got["autoConfigure"] != true {
		t.Fatalf("patched site %v", got)
	}
	e.want(e.do("PATCH", "/api/v1/sites/"+id, map[string]any{"scanSchedule": "hourly"}), 400, "validation_error")
	e.want(e.do("PATCH", "/api/v1/sites/"+id, map[string]any{"digestEmails": []string{"Owner <owner@shop.example>"}}), 400, "validation_error")
	got = e.want(e.do("PATCH", "/api/v1/sites/"+id, map[string]any{"digestEmails": []string{"owner@shop.example", "OWNER@shop.example"}}), 200).obj(t)
	if fmt.Sprint(got["digestEmails"]) != "[owner@shop.example]" {
		t.Fatalf("digestEmails %v, want the address once", got["digestEmails"])
	}
	e.want(e.raw("GET", "/api/v1/unsubscribe/"+id+".nosuchtoken", "", ""), 404, "not_found")
}
