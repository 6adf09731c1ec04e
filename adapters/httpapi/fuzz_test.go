package httpapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/bunstore/pgtest"
)

// fuzzOps are the operations FuzzHandlers sends to. {id}, {pk}, {cat}, {svc} and {scan} are
// real IDs of the fixture ({hook} a webhook endpoint's), {x} is the fuzzed argument; with the high bit of the op byte set,
// every placeholder is the fuzzed argument. Nothing here deletes the fixture's site.
var fuzzOps = []struct{ method, path string }{
	{"GET", "/api/v1/sites"},
	{"POST", "/api/v1/sites"},
	{"GET", "/api/v1/sites/{id}"},
	{"PATCH", "/api/v1/sites/{id}"},
	{"DELETE", "/api/v1/sites/{x}"},
	{"GET", "/api/v1/sites/{id}/banner"},
	{"PATCH", "/api/v1/sites/{id}/banner"},
	{"GET", "/api/v1/sites/{id}/categories"},
	{"POST", "/api/v1/sites/{id}/categories"},
	{"PATCH", "/api/v1/sites/{id}/categories/{cat}"},
	{"DELETE", "/api/v1/sites/{id}/categories/{x}"},
	{"GET", "/api/v1/sites/{id}/services"},
	{"POST", "/api/v1/sites/{id}/services"},
	{"POST", "/api/v1/sites/{id}/services/import"},
	{"DELETE", "/api/v1/sites/{id}/services/{x}"},
	{"GET", "/api/v1/library/services"},
	{"GET", "/api/v1/library/services/{x}"},
	{"GET", "/api/v1/region-presets"},
	{"GET", "/api/v1/region-laws"},
	{"POST", "/api/v1/sites/{id}/scan"},
	{"GET", "/api/v1/sites/{id}/scans"},
	{"GET", "/api/v1/sites/{id}/scans/{scan}"},
	{"POST", "/api/v1/sites/{id}/scans/{scan}/configure"},
	{"GET", "/api/v1/sites/{id}/trackers"},
	{"PUT", "/api/v1/sites/{id}/script-blocking"},
	{"GET", "/api/v1/sites/{id}/consent-records"},
	{"GET", "/api/v1/sites/{id}/consent-records/export"},
	{"GET", "/api/v1/sites/{id}/setup-snippet"},
	{"GET", "/api/v1/public/{pk}/config"},
	{"POST", "/api/v1/public/{pk}/consent"},
	{"OPTIONS", "/api/v1/public/{pk}/consent"},
	{"GET", "/{x}"},
	{"POST", "/api/v1/webhooks"},
	{"PATCH", "/api/v1/webhooks/{hook}"},
	{"POST", "/api/v1/api-keys"},
	{"PUT", "/api/v1/sso"},
}

// FuzzHandlers sends fuzzed paths, queries, headers and bodies to the real handler on SQLite
// and fails on any 5xx or ERROR log line: no input alone may make the server fail.
//
//	go test -run '^$' -fuzz 'FuzzHandlers$' -fuzztime 3m ./adapters/httpapi/
func FuzzHandlers(f *testing.F) {
	fuzzHandlers(f, "sqlite://"+filepath.Join(f.TempDir(), "fuzz.db"))
}

// FuzzHandlersPostgres is FuzzHandlers on Postgres, which refuses much that SQLite stores
// (NUL, invalid UTF-8, integers past 32 bits, year 0): skipped without
// CONSENTD_TEST_POSTGRES_URL.
//
//	go test -run '^$' -fuzz FuzzHandlersPostgres -fuzztime 3m ./adapters/httpapi/
func FuzzHandlersPostgres(f *testing.F) {
	fuzzHandlers(f, pgtest.FreshURL(f))
}

func fuzzHandlers(f *testing.F, dbURL string) {
	e := newEnvOn(f, dbURL)
	id, pk := e.site()
	cat := e.categoryID(id, "marketing")
	svc := e.want(e.do("POST", "/api/v1/sites/"+id+"/services", map[string]any{"slug": "fixture", "label": "F", "categorySlug": "marketing"}), 201).obj(f)["service"].(map[string]any)["id"].(string)
	scan := e.want(e.do("POST", "/api/v1/sites/"+id+"/scan", nil), 201).obj(f)["id"].(string)
	e.logs.errors()
	hook := e.want(e.do("POST", "/api/v1/webhooks", map[string]any{"url": "https://hooks.example/in", "events": []any{"scan.completed"}}), 201).obj(f)["id"].(string)
	real := strings.NewReplacer("{id}", id, "{pk}", pk, "{cat}", cat, "{svc}", svc, "{scan}", scan, "{hook}", hook)
	h := e.srv.Config.Handler

	// One seed per operation; the inputs that made 5xx before issue 12 was fixed are kept in
	// testdata/fuzz, one file each, named by what they are.
	for i, o := range fuzzOps {
		f.Add(uint8(i), "x", "", "", []byte(nil))
		if o.method != "GET" && o.method != "DELETE" {
			f.Add(uint8(i), "x", "", "", []byte(`{}`))
		}
	}
	f.Add(uint8(3), "", "", "", []byte(`{"NAME":"x","url":"https://a.example/\u0000"}`))
	f.Add(uint8(6), "", "", "", []byte(`{"textTranslations":{"\u0000":{"headline":"x"}},"colors":{"primary":"#fff"}}`))
	f.Add(uint8(12), "", "", "", []byte(`{"slug":"a","label":"b","categorySlug":"marketing","cookies":[{"name":"n","duration":"d","descriptionTranslations":{"de":"x"}}]}`))
	f.Add(uint8(15), "", "q=%00", "", []byte(nil))
	f.Add(uint8(17), "", "", "", []byte(`{"url":"http://[::1]:0/","urls":["http://%zz"]}`))
	f.Add(uint8(25), "", "framework=next", "", []byte(nil))
	f.Add(uint8(26), "", "", "W/\"x\", *", []byte(nil))
	f.Add(uint8(27), "", "", "\xff\xfe", []byte(`{"categories":{},"consentVersion":1}`))
	// issue 40: objects, arrays and nulls in a uniqueItems array panicked in huma up to v2.38
	f.Add(uint8(32), "", "", "", []byte(`{"url":"https://hooks.example/in","events":[{}]}`))
	f.Add(uint8(33), "", "", "", []byte(`{"events":[[],[]]}`))
	f.Add(uint8(33), "", "", "", []byte(`{"events":[{"a":1},{"a":2},null]}`))
	f.Add(uint8(34), "", "", "", []byte(`{"name":"k","siteIds":[{}],"role":[]}`))
	f.Add(uint8(35), "", "", "", []byte(`{"issuer":{},"clientId":[{}],"allowedDomains":[[]],"defaultRole":null}`))
	f.Add(uint8(6), "", "", "", []byte(`{"regionRules":[{"regions":[{}],"defaultBehavior":1e400}]}`))

	f.Fuzz(func(t *testing.T, op uint8, arg, query, header string, body []byte) {
		o := fuzzOps[int(op&0x7f)%len(fuzzOps)]
		path := strings.ReplaceAll(o.path, "{x}", arg)
		if op&0x80 != 0 {
			path = strings.NewReplacer("{id}", arg, "{pk}", arg, "{cat}", arg, "{svc}", arg, "{scan}", arg, "{hook}", arg).Replace(path)
		} else {
			path = real.Replace(path)
		}
		target := path
		if query != "" {
			target += "?" + query
		}
		if strings.ContainsAny(target, " \t\r\n#") || !strings.HasPrefix(target, "/") {
			return // not a request line net/http would accept
		}
		var rd *bytes.Reader
		if len(body) > 0 {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequest(o.method, "http://consentd.test"+target, nil)
		if err != nil {
			return
		}
		if rd != nil {
			req, _ = http.NewRequest(o.method, "http://consentd.test"+target, rd)
			req.Header.Set("Content-Type", "application/json")
		}
		req.RequestURI = target
		req.RemoteAddr = "192.0.2.1:1234"
		if validHeader(header) {
			// the trusted country header, and the validators of the cacheable endpoints
			req.Header.Set("X-Country", header)
			req.Header.Set("If-None-Match", header)
			if strings.ContainsAny(header, "/;+") && rd != nil {
				req.Header.Set("Content-Type", header) // media types huma may still read as JSON
			}
		}
		if strings.HasPrefix(o.path, "/api/v1/") && !strings.HasPrefix(o.path, "/api/v1/public/") {
			req.Header.Set("Authorization", "Bearer "+e.keyA)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s\nlogs: %v", o.method, target, body, rec.Code, rec.Body.Bytes(), e.logs.errors())
		}
		if errs := e.logs.errors(); len(errs) > 0 {
			t.Fatalf("%s %s %q: %d, ERROR logged: %v", o.method, target, body, rec.Code, errs)
		}
	})
}

// validHeader tells a value net/http would let through to a handler (no control characters
// but tab).
func validHeader(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
