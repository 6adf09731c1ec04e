package httpapi_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestConsentExport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	pub := "/api/v1/public/" + pk + "/consent"
	visitors := []string{"=HYPERLINK(\"http://x\")", "plain", "v,with \"quotes\"\nand a newline"}
	for _, v := range visitors {
		e.want(e.raw("POST", pub, "", mustJSON(map[string]any{"visitorId": v, "categories": map[string]bool{"statistics": true}, "consentVersion": 1}), "X-Country", "FR"), 201)
	}
	base := "/api/v1/sites/" + id + "/consent-records/export"

	r := e.want(e.do("GET", base+"?format=csv", nil), 200)
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("content type %q", ct)
	}
	if cd := r.header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") {
		t.Fatalf("content disposition %q", cd)
	}
	rows, err := csv.NewReader(bytes.NewReader(r.body)).ReadAll()
	if err != nil {
		t.Fatalf("export is not CSV: %v\n%s", err, r.body)
	}
	if len(rows) != 4 || rows[0][0] != "id" || rows[0][10] != "createdAt" {
		t.Fatalf("csv: %d rows, header %v", len(rows), rows[0])
	}
	// newest first: the last posted visitor comes first; formulas are defused.
	if rows[1][2] != visitors[2] || rows[3][2] != "'"+visitors[0] || rows[2][4] != "gdpr" {
		t.Fatalf("csv rows: %q", rows[1:])
	}
	var cats map[string]bool
	if err := json.Unmarshal([]byte(rows[1][5]), &cats); err != nil || !cats["statistics"] || !cats["essential"] || cats["marketing"] {
		t.Fatalf("categoriesConsented cell %q", rows[1][5])
	}

	r = e.want(e.do("GET", base+"?format=ndjson", nil), 200)
	if ct := r.header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Fatalf("content type %q", ct)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(r.body))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("ndjson line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 || lines[0]["visitorId"] != visitors[2] || lines[2]["visitorId"] != visitors[0] {
		t.Fatalf("ndjson: %v", lines)
	}
	requireKeys(t, lines[0], "id", "siteId", "visitorId", "ipCountry", "jurisdiction", "categoriesConsented", "gpcSignal", "doNotSell", "consentVersion", "createdAt", "action")

	// the same exclusive date filters as the listing
	created, err := time.Parse(time.RFC3339Nano, lines[1]["createdAt"].(string))
	if err != nil {
		t.Fatal(err)
	}
	r = e.want(e.do("GET", fmt.Sprintf("%s?format=ndjson&from=%s", base, created.Format(time.RFC3339Nano)), nil), 200)
	if n := strings.Count(string(r.body), "\n"); n != 1 {
		t.Fatalf("from filter: %d lines, want 1", n)
	}
	r = e.want(e.do("GET", base+"?format=csv&to=2000-01-01", nil), 200)
	if n := strings.Count(string(r.body), "\n"); n != 1 {
		t.Fatalf("to filter: %d lines, want only the header", n)
	}
	r = e.want(e.do("GET", base, nil), 200)
	if !strings.HasPrefix(string(r.body), "id,siteId,") {
		t.Fatal("csv is not the default format")
	}

	e.want(e.do("GET", base+"?format=xml", nil), 400, "validation_error")
	e.want(e.do("GET", base+"?from=yesterday", nil), 400, "validation_error")
	e.want(e.do("GET", base+"?to=2026-13-45", nil), 400, "validation_error")
	e.want(e.do("GET", base, nil, e.keyB), 404, "not_found")
	e.want(e.do("GET", "/api/v1/sites/not-a-uuid/consent-records/export", nil), 404, "not_found")
	e.want(e.raw("GET", base, "", ""), 401, "unauthorized")
}
