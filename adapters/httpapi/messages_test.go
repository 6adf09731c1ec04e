package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
)

// TestErrorMessagesHelp: the messages of the mistakes clients make most say what to do: a key
// without its Bearer scheme, malformed JSON (where it breaks), a body that is not JSON (415
// with its own code). The scheme is read in any case, as HTTP has it.
func TestErrorMessagesHelp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	for _, c := range []struct {
		name, method, path, ct, auth, body string
		status                             int
		code, message                      string
	}{
		{"key alone", "GET", "/api/v1/sites", "", e.keyA, "", 401, "unauthorized", "holds the key without its scheme: send Authorization: Bearer <key>"},
		{"other scheme", "GET", "/api/v1/sites", "", "Token " + e.keyA, "", 401, "unauthorized", "does not use the Bearer scheme"},
		{"lower-case scheme", "GET", "/api/v1/sites", "", "bearer " + e.keyA, "", 200, "", ""},
		{"no key", "GET", "/api/v1/sites", "", "", "", 401, "unauthorized", "Bearer"},
		{"malformed JSON", "POST", "/api/v1/sites", "application/json", "Bearer " + e.keyA, "{\"name\": \"x\",\n \"url\": }", 400, "validation_error",
			"not valid JSON at line 2, column 9 (byte 22): invalid character '}'"},
		{"cut short", "PATCH", "/api/v1/sites/" + id + "/banner", "application/json", "Bearer " + e.keyA, `{"position": 3`, 400, "validation_error",
			"not valid JSON at line 1, column 15 (byte 14): it ends before the JSON value is complete"},
		{"not JSON", "POST", "/api/v1/sites", "text/plain", "Bearer " + e.keyA, `{"name":"x","url":"https://x.example"}`, 415, "unsupported_media_type",
			"send it with Content-Type: application/json (got text/plain)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, e.srv.URL+c.path, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if c.ct != "" {
				req.Header.Set("Content-Type", c.ct)
			}
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, c.status, b)
			}
			if c.code == "" {
				return
			}
			var eb struct {
				Error struct{ Code, Message string }
			}
			if json.Unmarshal(b, &eb) != nil || eb.Error.Code != c.code || !strings.Contains(eb.Error.Message, c.message) {
				t.Fatalf("got %s, want code %s and a message containing %q", b, c.code, c.message)
			}
			if strings.Contains(eb.Error.Message, e.keyA) {
				t.Fatal("the message echoes the key")
			}
		})
	}
}

// TestErrorCodeEnum: the served document's enum of error codes is core's list.
func TestErrorCodeEnum(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	doc := e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).obj(t)
	detail := doc["components"].(map[string]any)["schemas"].(map[string]any)["ErrorDetail"].(map[string]any)
	var got, want []string
	for _, v := range detail["properties"].(map[string]any)["code"].(map[string]any)["enum"].([]any) {
		got = append(got, v.(string))
	}
	for _, c := range core.Codes() {
		want = append(want, string(c))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("enum %v, core.Codes %v", got, want)
	}
}
